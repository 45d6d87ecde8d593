#!/usr/bin/env bash
# audit-peers.sh: time httpslab audit, sslscan and testssl on the same
# servers, print the times side by side, and check that the protocol
# versions, cipher suites and key-exchange groups they report agree, and
# with testssl also session resumption, OCSP stapling, HSTS, the key and
# whether the chain is complete; then a table of every finding testssl
# makes (LOW and above) with audit's finding for it.
#
# usage: scripts/audit-peers.sh
#   runs every target of scripts/auditpeers/targets.go: ten private nginx
#   configurations (modern; legacy TLS 1.0-1.2 with CBC, RSA key exchange
#   and anonymous ECDH; RSA-4096 with a 1024-bit ssl_dhparam; TLS 1.3 with
#   secp384r1 only; expired, missing-intermediate, wrong-name and SHA-1
#   leaves; plain HTTP without a redirect and with a redirect chain;
#   nginx's defaults), two more reached by DNS names (caa-record: a name
#   with a CAA record; caa-missing: one without), and a server for each
#   known TLS flaw of internal/labtest, all in a network namespace the
#   script creates (root needed) whose resolver is the helper's DNS server
#   on its loopback, alone in serving those names; audit and sslscan one
#   target at a time, testssl
#   PARALLEL (3) at a time. Where testssl (or sslscan) disagrees with audit
#   and openssl s_client settles it for audit, the s_client command and
#   what it printed are shown.
#   TARGETS=modern,legacy  only these targets (TARGETS=caa-record,caa-missing:
#                 the CAA comparison alone, in about a minute)
#   NO_TESTSSL=1  leave testssl out (a full run takes minutes per target)
#
# usage: scripts/audit-peers.sh NGINX_TLS_DIRECTIVES
#   one private nginx with these directives in its HTTPS block
#   TESTSSL_ARGS  extra testssl arguments (default: a full default run)
#   CERT=rsa-2048 the leaf's key kind (default ecdsa-p256), for RSA suites
#   CHAIN=incomplete  serve a leaf of an intermediate CA without the
#                 intermediate (audit then needs -k, and reports chain-incomplete)
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -eq 0 ]]; then
	if [[ $(id -u) -ne 0 ]]; then
		echo "audit-peers: the comparison runs in a network namespace of its own: run it as root" >&2
		exit 1
	fi
	tmp=$(mktemp -d)
	ns=httpslab-peers-$$
	cleanup_all() {
		# The helper and what it started (nginx, the tools) are the
		# namespace's only processes: the helper stops its servers and
		# removes its files when asked to, else they are killed after 5 s.
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
		for _ in $(seq 50); do
			[[ -z $(ip netns pids "$ns" 2>/dev/null) ]] && break
			sleep 0.1
		done
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
		rm -rf "/etc/netns/$ns" "$tmp"
	}
	trap cleanup_all EXIT
	trap 'exit 130' INT TERM
	go build -o "$tmp/httpslab" ./cmd/httpslab
	go build -o "$tmp/auditpeers" ./scripts/auditpeers
	dpkg-query -W -f '${Package} ${Version}  ' nginx testssl.sh sslscan openssl 2>/dev/null || true
	echo
	echo
	# Every program in the namespace resolves names through the helper's
	# DNS server on its loopback (ip netns exec mounts this resolv.conf over
	# /etc/resolv.conf), which alone serves the names of the caa-* targets.
	mkdir -p "/etc/netns/$ns"
	echo "nameserver 127.0.0.1" >"/etc/netns/$ns/resolv.conf"
	ip netns add "$ns"
	ip netns exec "$ns" ip link set lo up
	args=(-httpslab "$tmp/httpslab" -parallel "${PARALLEL:-3}" -dns 127.0.0.1:53)
	[[ -n ${TARGETS:-} ]] && args+=(-targets "$TARGETS")
	[[ -n ${NO_TESTSSL:-} ]] && args+=(-no-testssl)
	# In the background, so that a signal runs the cleanup at once.
	ip netns exec "$ns" "$tmp/auditpeers" all "${args[@]}" &
	wait $!
	exit
fi

directives=$1

tmp=$(mktemp -d)
cleanup() {
	# Closing the helper's standard input makes it stop nginx and exit.
	exec 3>&- 2>/dev/null || true
	[[ -n ${NGINX_PID:-} ]] && wait "$NGINX_PID" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/httpslab" ./cmd/httpslab
go build -o "$tmp/auditpeers" ./scripts/auditpeers

# The helper serves until its standard input closes: keep a pipe open.
mkfifo "$tmp/stdin"
"$tmp/auditpeers" -tls "$directives" ${CERT:+-cert "$CERT"} ${CHAIN:+-chain "$CHAIN"} <"$tmp/stdin" >"$tmp/urls" &
NGINX_PID=$!
exec 3>"$tmp/stdin"
for _ in $(seq 100); do
	[[ $(wc -l <"$tmp/urls") -ge 3 ]] && break
	if ! kill -0 "$NGINX_PID" 2>/dev/null; then
		echo "audit-peers: the nginx helper exited before serving (see its error above)" >&2
		exit 1
	fi
	sleep 0.1
done
if [[ $(wc -l <"$tmp/urls") -lt 3 ]]; then
	echo "audit-peers: the nginx helper printed no URLs within 10 s" >&2
	exit 1
fi
{ read -r https; read -r plain; read -r ca; } <"$tmp/urls"
hostport=${https#https://}
plainport=${plain##*:}
echo "nginx $(nginx -v 2>&1 | sed 's/.*nginx\///') at $https"
echo

# elapsed runs a command, its standard output to the file $1, and prints
# its wall time in seconds, or "failed (status N)" when it failed (with
# ANY_STATUS set, whatever its status); its standard error goes to $1.err.
elapsed() {
	local out=$1 start end rc=0
	shift
	start=$(date +%s.%N)
	"$@" >"$out" 2>"$out.err" || rc=$?
	end=$(date +%s.%N)
	if ((rc != 0)) && [[ -z ${ANY_STATUS:-} ]]; then
		printf 'failed (status %d)' "$rc"
		return
	fi
	printf '%.3f' "$(echo "$end - $start" | bc)"
}

# The timed run is the one whose JSON is compared. Findings make audit exit
# 0 (no --fail-on), so a non-zero status is a failure.
insecure=()
[[ -n ${CHAIN:-} ]] && insecure=(-k) # the chain does not verify: audit reports it as a finding
t_audit=$(elapsed "$tmp/audit.json" "$tmp/httpslab" audit "$https/" --cacert "$ca" "${insecure[@]}" --http-port "$plainport" --json)
t_sslscan=$(elapsed "$tmp/sslscan.out" sslscan --no-colour --xml="$tmp/sslscan.xml" "$hostport")
testssl_file=()
t_testssl="(skipped)"
if [[ -z ${NO_TESTSSL:-} ]]; then
	# shellcheck disable=SC2086
	# --add-ca: testssl trusts the lab CA, as audit does with --cacert.
	# testssl's status is the sum of its checks' return codes, not
	# success or failure: it failed when it wrote no JSON.
	t_testssl=$(ANY_STATUS=1 elapsed "$tmp/testssl.out" testssl --quiet --warnings batch --color 0 --add-ca "$ca" ${TESTSSL_ARGS:-} --jsonfile "$tmp/testssl.json" "$hostport")
	[[ -s "$tmp/testssl.json" ]] || t_testssl="failed (no JSON written)"
	testssl_file=("$tmp/testssl.json")
fi

printf '%-28s %10s\n' "tool" "seconds"
printf '%-28s %10s\n' "httpslab audit (everything)" "$t_audit"
printf '%-28s %10s\n' "sslscan" "$t_sslscan"
printf '%-28s %10s\n' "testssl ${TESTSSL_ARGS:-}" "$t_testssl"
echo
for t in "$t_audit" "$t_sslscan" "$t_testssl"; do
	if [[ $t == failed* ]]; then
		echo "audit-peers: a tool failed; its errors:" >&2
		cat "$tmp"/*.err >&2 2>/dev/null || true
		exit 1
	fi
done
"$tmp/auditpeers" compare "$tmp/audit.json" "$tmp/sslscan.xml" "${testssl_file[@]}"
