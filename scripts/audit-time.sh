#!/usr/bin/env bash
# audit-time.sh: how long a whole httpslab audit takes, every check
# included (the enumeration, the behaviour and HTTP checks and the active
# vulnerability checks), on a private nginx: on loopback (the median of
# RUNS audits), then with the same nginx behind an emulated link of RTT
# (root only), where the time is also given in round trips of the link.
# For each it prints the slowest vulnerability check.
#
# usage: scripts/audit-time.sh [server-order | targets | NGINX_TLS_DIRECTIVES]
#   (none)       every version and suite, in the client's order
#   server-order the same in nginx's own order (ssl_prefer_server_ciphers
#                on), whose order audit reads from the server's picks
#   targets      each target of scripts/audit-peers.sh in turn (the nginx
#                configurations and the servers with a TLS flaw; those
#                reached by a DNS name aside), then a table of them all;
#                TARGETS=modern,fake-heartbleed chooses some
#   RUNS=5       audits per target
#   RTT=100ms    the emulated link's round-trip time
#   CERT=rsa-2048 nginx's certificate key kind (rsa-4096, ecdsa-p256, ...)
#   NO_LINK=1    loopback only (the link needs root)
#   AUDIT_ARGS   more audit flags (e.g. "--attempts 5")
set -euo pipefail
cd "$(dirname "$0")/.."

all='ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
ssl_ciphers ALL:@SECLEVEL=0;
ssl_session_cache shared:time:1m;
ssl_session_tickets on;'
directives=${1:-$all}
if [[ $directives == server-order ]]; then
	directives="$all
ssl_prefer_server_ciphers on;"
fi
# helper_args are the nginx helper's flags: a target of the comparison, or
# these directives.
helper_args=(-tls "$directives" -cert "${CERT:-rsa-2048}")
runs=${RUNS:-5}
rtt=${RTT:-100ms}

tmp=$(mktemp -d)
helper_pid=""
cleanup() {
	# Closing the helper's standard input makes it stop nginx and exit.
	exec 3>&- 2>/dev/null || true
	if [[ -n $helper_pid ]]; then
		kill "$helper_pid" 2>/dev/null || true
		wait "$helper_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/httpslab" ./cmd/httpslab
go build -o "$tmp/auditpeers" ./scripts/auditpeers

# start_nginx [COMMAND PREFIX...]: starts the helper (behind the prefix,
# such as httpslab lab), and reads its HTTPS URL and CA file.
start_nginx() {
	rm -f "$tmp/stdin" "$tmp/urls"
	mkfifo "$tmp/stdin"
	: >"$tmp/urls"
	"$@" "$tmp/auditpeers" "${helper_args[@]}" <"$tmp/stdin" >"$tmp/urls" 2>"$tmp/helper.err" &
	helper_pid=$!
	exec 3>"$tmp/stdin"
	for _ in $(seq 150); do
		[[ $(wc -l <"$tmp/urls") -ge 3 ]] && break
		if ! kill -0 "$helper_pid" 2>/dev/null; then
			echo "audit-time: the nginx helper exited:" >&2
			cat "$tmp/helper.err" >&2
			exit 1
		fi
		sleep 0.1
	done
	{ read -r https; read -r _; read -r ca; } <"$tmp/urls"
}

stop_nginx() {
	exec 3>&-
	wait "$helper_pid" 2>/dev/null || true
	helper_pid=""
}

# audit_times URL CA [AUDIT FLAGS...]: runs the audits and prints, per run, the audit's
# wall time in ms, the RTT it measured in ms, its slowest
# vulnerability check and its connections.
audit_times() {
	local i url=$1 ca=$2
	shift 2
	for i in $(seq "$runs"); do
		"$tmp/httpslab" audit "$url/" --cacert "$ca" "$@" ${AUDIT_ARGS:-} --json >"$tmp/audit$i.json" || {
			echo "audit-time: audit $i failed" >&2
			cat "$tmp/audit$i.json" >&2
			exit 1
		}
		python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["result"]
v = max(r["vulnerabilities"], key=lambda c: c["elapsed_ns"])
bad = [c["id"] for c in r["vulnerabilities"] if c["status"] in ("vulnerable", "not-measured")]
print("%.1f %.2f %s %.1f %s %d" % (r["elapsed_ns"] / 1e6, r["rtt_ns"] / 1e6, v["id"], v["elapsed_ns"] / 1e6, ",".join(bad) or "-", r["connections"]))
' "$tmp/audit$i.json"
	done
}

# summary LABEL RTT_MS: the median of the runs, in ms and round trips.
summary() {
	python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.strip()]
total = statistics.median(float(r[0]) for r in rows)
rtt = float(sys.argv[2])
print("%-28s median %8.1f ms over %d audits" % (sys.argv[1], total, len(rows)), end="")
print("  = %.1f round trips of %g ms" % (total / rtt, rtt) if rtt >= 1 else "")
for r in rows:
    rt = "  (%.1f RTT)" % (float(r[3]) / rtt) if rtt >= 1 else ""
    print("    audit %8.1f ms  %4s connections  slowest vulnerability check %-22s %7.1f ms%s  flagged: %s" % (float(r[0]), r[5], r[2], float(r[3]), rt, r[4]))
if len(sys.argv) > 3:
    with open(sys.argv[3], "a") as f:
        conns = statistics.median(int(r[5]) for r in rows)
        f.write("%s %.1f %.1f %.0f\n" % (sys.argv[4], total, max(float(r[0]) for r in rows), conns))
' "$@"
}

# measure LABEL: the audits of the helper's nginx on loopback, then
# behind the link; with a label, each summary also goes to a table.
measure() {
	local label=${1:-}
	start_nginx
	echo "${label:-nginx $(nginx -v 2>&1 | sed 's/.*nginx\///')} at $https"
	# The targets' flawed certificates (expired, wrong name, no
	# intermediate) are audited as audit-peers.sh does, with -k.
	audit_times "$https" "$ca" ${label:+-k} | summary "loopback" 0 ${label:+"$tmp/table.loopback" "$label"}
	stop_nginx
	if [[ ${NO_LINK:-0} == 1 ]]; then
		return
	fi
	# Behind the link nginx listens on the namespace's address, which lab
	# gives the command in HTTPSLAB_SERVER_IP.
	start_nginx "$tmp/httpslab" lab --rtt "$rtt" -- "$tmp/in-lab.sh"
	echo "the same nginx behind an emulated $rtt link at $https"
	# The lab certificate names 127.0.0.1, not the link's address: -k (the
	# time is the same, the report gains cert-name-mismatch).
	audit_times "$https" "$ca" -k | summary "emulated $rtt link" "$ms" ${label:+"$tmp/table.link" "$label"}
	stop_nginx
}

if [[ ${NO_LINK:-0} != 1 && $(id -u) -ne 0 ]]; then
	echo "audit-time: the emulated link needs root (NO_LINK=1 skips it)" >&2
	exit 1
fi
cat >"$tmp/in-lab.sh" <<'EOF'
#!/bin/sh
exec "$@" -host "$HTTPSLAB_SERVER_IP"
EOF
chmod +x "$tmp/in-lab.sh"
ms=$(echo "$rtt" | sed 's/ms$//')

if [[ $directives != targets ]]; then
	measure
	exit 0
fi
if [[ -n ${TARGETS:-} ]]; then
	IFS=, read -r -a names <<<"$TARGETS"
else
	mapfile -t names < <("$tmp/auditpeers" -list)
fi
for name in "${names[@]}"; do
	helper_args=(-target "$name")
	measure "$name"
	echo
done
python3 -c '
import sys
def rows(name):
    try:
        return {l.split()[0]: l.split()[1:] for l in open(name) if l.strip()}
    except FileNotFoundError:
        return {}
lo, link = rows(sys.argv[1]), rows(sys.argv[2])
rtt = float(sys.argv[3])
print("%-26s %12s %12s %26s %12s" % ("target", "loopback ms", "slowest ms", "link, round trips", "connections"))
for name in sys.argv[4:]:
    l = lo.get(name, ["-"] * 4)
    k = link.get(name)
    rt = "%.1f (slowest %.1f)" % (float(k[0]) / rtt, float(k[1]) / rtt) if k else "-"
    print("%-26s %12s %12s %26s %12s" % (name, l[0], l[1], rt, (k or l)[2]))
' "$tmp/table.loopback" "$tmp/table.link" "$ms" "${names[@]}"
