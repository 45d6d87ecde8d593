#!/usr/bin/env bash
# peers.sh measures httpslab bench side by side with wrk, h2load, ab, hey
# and openssl s_time against one nginx and prints, per tool, requests/s,
# client CPU per request, how busy the server was and its CPU per request,
# then each target of issue 3 as the median of paired ratios with a
# confidence interval.
#
# Setup (as in issue 3): nginx from Debian, worker_processes 1 pinned to
# CPU 0, every client pinned to CPU 1, a 1 KiB static file, TLS 1.3 with an
# ECDSA P-256 certificate, keepalive_requests high. Port A allows session
# resumption (cache and tickets); port B refuses it, for full handshakes.
#
# Why paired rounds: the keep-alive rows are server-bound (the nginx worker
# is 95-100% busy with every client), and on a shared virtual machine the
# same nginx work costs 10 to 18 µs per request from one second to the
# next. One long run per tool, or the best of a few, then compares the
# machine's moments more than the tools. So the targets run as PAIRS short
# rounds; in each round the tools of a target run back to back, in an
# order that reverses from round to round, and the ratio of that round is
# one sample. The verdict reads the median of the samples; the interval
# around it (order statistics, as for a sign test) shows how far the
# machine's noise leaves it open.
#
# Client CPU is user+system time from /usr/bin/time over the whole client
# process (start-up included, for every tool alike) divided by the
# requests it completed. The server's CPU is the nginx worker's run time
# from /proc (microsecond precision): "server busy" is that time over the
# run's wall time, "server µs/req" that time per completed request. A
# client cannot make a busy server faster; near 100% busy, requests/s
# measures nginx and the clients are told apart by their own CPU. "steal"
# is the time the hypervisor took from the two cores during the run
# (/proc/stat); a virtual machine on a busy host loses tens of percent.
#
# Client-bound rows: the keep-alive rows above cannot tell a fast client
# from a slow one, since nginx sets their pace. The "h1q" and "h2q" rows
# run the same keep-alive loads with the client held to a quarter core by
# a cgroup CPU quota (cpu.cfs_quota_us or cpu.max, as docker --cpus 0.25
# sets it; nginx keeps its whole core): then the client is the limit and
# requests/s measures it. They need root and a cgroup hierarchy with the
# cpu controller; without them they are left out, and said so.
#
# Environment: DUR seconds per measurement (default 2), PAIRS rounds of
# the target pairs (default 9, the fewest whose interval is the second
# lowest to the second highest ratio at 95%), ROUNDS rounds of the other rows (default
# 2), QROUNDS rounds of the client-bound rows (default 5), QUOTA the client's
# quota there in cores (default 0.25), ONLY a regular expression selecting rows (e.g. ONLY='^h1'),
# MEMORY=1 to add httpslab's peak RSS over a 10 s and a 60 s run at full
# speed (keep-alive h1 and HTTP/2; about 2.5 more minutes).
# Run from the repository root or from bench/: bash bench/peers.sh
set -euo pipefail

DUR=${DUR:-2}
PAIRS=${PAIRS:-9}
ROUNDS=${ROUNDS:-2}
QROUNDS=${QROUNDS:-5}
QUOTA=${QUOTA:-0.25}
ONLY=${ONLY:-.} # a regular expression: measure only the matching rows
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/httpslab-peers.XXXXXX)
NGINX_PID="" WALL=0 CG="" CG_NOTE=""
cleanup() {
	if [[ -n $NGINX_PID ]]; then kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
	if [[ -n $CG ]]; then rmdir "$CG" 2>/dev/null || true; fi
	rm -rf "$WORK"
}
trap cleanup EXIT

need=()
command -v wrk >/dev/null || need+=(wrk)
command -v h2load >/dev/null || need+=(nghttp2-client)
command -v ab >/dev/null || need+=(apache2-utils)
command -v hey >/dev/null || need+=(hey)
command -v openssl >/dev/null || need+=(openssl)
command -v curl >/dev/null || need+=(curl)
command -v nginx >/dev/null || need+=(nginx)
[[ -x /usr/bin/time ]] || need+=(time)
if ((${#need[@]})); then
	echo "installing ${need[*]}" >&2
	apt-get install -y "${need[@]}" >/dev/null
fi

echo "building httpslab" >&2
(cd "$ROOT" && go build -o "$WORK/httpslab" ./cmd/httpslab)
HL=$WORK/httpslab

SERVER_CPU="" CLIENT_CPU=""
if (($(nproc) >= 2)); then SERVER_CPU="taskset -c 0"; CLIENT_CPU="taskset -c 1"; fi

# Certificate: a self-signed ECDSA P-256 leaf for 127.0.0.1.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
mkdir -p "$WORK/www" "$WORK/tmp"
head -c 1024 /dev/zero | tr '\0' x >"$WORK/www/1k.bin"
PORT_A=$((20000 + RANDOM % 20000))
PORT_B=$((PORT_A + 1))
cat >"$WORK/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/error.log warn;
$( [[ $(id -u) == 0 ]] && echo "user root;" )
events { worker_connections 8192; }
http {
    access_log off;
    client_body_temp_path $WORK/tmp;
    proxy_temp_path $WORK/tmp;
    fastcgi_temp_path $WORK/tmp;
    uwsgi_temp_path $WORK/tmp;
    scgi_temp_path $WORK/tmp;
    default_type application/octet-stream;
    keepalive_requests 100000000;
    keepalive_timeout 60s;
    ssl_certificate $WORK/cert.pem;
    ssl_certificate_key $WORK/key.pem;
    ssl_protocols TLSv1.3;
    root $WORK/www;
    server {
        listen 127.0.0.1:$PORT_A ssl http2;
        ssl_session_cache shared:peers:10m;
        ssl_session_tickets on;
    }
    server {
        listen 127.0.0.1:$PORT_B ssl http2;
        ssl_session_cache off;
        ssl_session_tickets off;
    }
}
CONF
$SERVER_CPU nginx -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
NGINX_PID=$!
up=""
for _ in $(seq 50); do
	if curl -skf -o /dev/null "https://127.0.0.1:$PORT_B/1k.bin"; then up=1; break; fi
	sleep 0.1
done
if [[ -z $up ]]; then
	echo "peers.sh: nginx did not answer on 127.0.0.1:$PORT_B within 5 s; its error log:" >&2
	cat "$WORK/error.log" >&2 || true
	exit 1
fi
A=https://127.0.0.1:$PORT_A/1k.bin
B=https://127.0.0.1:$PORT_B/1k.bin

# make_quota_cgroup sets CG to a new cgroup whose processes may use QUOTA
# cores' worth of CPU time, or CG_NOTE to why there is none.
make_quota_cgroup() {
	local us base
	us=$(awk -v q="$QUOTA" 'BEGIN { printf "%d", q * 100000 }')
	if [[ $(id -u) != 0 ]]; then CG_NOTE="not root"; return; fi
	if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then # cgroup v2
		base=/sys/fs/cgroup
		grep -qw cpu "$base/cgroup.subtree_control" || echo +cpu >"$base/cgroup.subtree_control" 2>/dev/null || true
		CG=$(mktemp -d "$base/httpslab-peers.XXXXXX" 2>/dev/null) || { CG="" CG_NOTE="cannot make a cgroup in $base"; return; }
		echo "$us 100000" >"$CG/cpu.max" 2>/dev/null || CG_NOTE="cannot set cpu.max"
	else # cgroup v1: the hierarchy with the cpu controller
		base=$(awk -F' - ' '{ split($1, a, " "); split($2, b, " ") }
			b[1] == "cgroup" && ("," b[3] ",") ~ /,cpu,/ { print a[5]; exit }' /proc/self/mountinfo)
		if [[ -z $base ]]; then CG_NOTE="no cgroup hierarchy with the cpu controller"; return; fi
		CG=$(mktemp -d "$base/httpslab-peers.XXXXXX" 2>/dev/null) || { CG="" CG_NOTE="cannot make a cgroup in $base"; return; }
		echo 100000 >"$CG/cpu.cfs_period_us" && echo "$us" >"$CG/cpu.cfs_quota_us" 2>/dev/null || CG_NOTE="cannot set cpu.cfs_quota_us"
	fi
	if [[ -n $CG_NOTE ]]; then rmdir "$CG"; CG=""; fi
}
make_quota_cgroup

# server_us prints the CPU time, in microseconds, nginx's workers have
# used so far (se.sum_exec_runtime, kept in milliseconds with six decimals).
server_us() {
	local p t=0 ms
	for p in $(cat "/proc/$NGINX_PID/task/$NGINX_PID/children" 2>/dev/null); do
		ms=$(awk '/^se.sum_exec_runtime/ { print $3 }' "/proc/$p/sched" 2>/dev/null || true)
		t=$(awk -v t="$t" -v ms="${ms:-0}" 'BEGIN { printf "%.0f", t + ms * 1000 }')
	done
	echo "$t"
}

# steal_ticks prints the clock ticks the hypervisor has taken from the
# two cores so far (the steal column of /proc/stat): time in which neither
# nginx nor the client ran, though both wanted to.
CLK_TCK=$(getconf CLK_TCK)
steal_ticks() { awk '$1 == "cpu0" || $1 == "cpu1" { t += $9 } END { print t + 0 }' /proc/stat; }

# run CMD...: runs CMD pinned to the client core under /usr/bin/time and
# prints "requests/s requests cpu_seconds"; it sets WALL to the run's wall
# time in seconds, SERVER_BUSY to the nginx worker's CPU share during the
# run in percent, SERVER_US to its CPU time in microseconds and STEAL to
# the share of the two cores' time the hypervisor took, in percent.
run() {
	local out="$WORK/out" tim="$WORK/time" t0 t1 s0 s1 st0 st1
	st0=$(steal_ticks) s0=$(server_us) t0=$(date +%s.%N)
	if [[ -n ${IN_QUOTA:-} ]]; then
		# The client (and /usr/bin/time) join the quota's cgroup before they start.
		sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" $CLIENT_CPU /usr/bin/time -f "%U %S %M" -o "$tim" "$@" >"$out" 2>&1 || true
	else
		$CLIENT_CPU /usr/bin/time -f "%U %S %M" -o "$tim" "$@" >"$out" 2>&1 || true
	fi
	s1=$(server_us) t1=$(date +%s.%N) st1=$(steal_ticks)
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
	STEAL=$(awk -v d="$((st1 - st0))" -v hz="$CLK_TCK" -v w="$WALL" 'BEGIN { printf "%.0f", d / hz / w / 2 * 100 }')
	SERVER_US=$((s1 - s0))
	SERVER_BUSY=$(awk -v d="$SERVER_US" -v w="$WALL" 'BEGIN { printf "%.0f", d / 1e6 / w * 100 }')
	local cpu
	cpu=$(awk 'END {print $1 + $2}' "$tim")
	RSS_KB=$(awk 'END {print $3}' "$tim")
	parse "$1" "$out" "$cpu"
}

# parse TOOL OUTFILE CPU prints "rate count cpu" from a tool's output.
parse() {
	local f=$2 rate="" count=""
	case $1 in
	*/httpslab)
		rate=$(grep -o '"requests_per_s": [0-9.e+]*' "$f" | awk '{print $2}')
		count=$(grep -m1 -o '"requests": [0-9]*' "$f" | awk '{print $2}') ;;
	wrk)
		rate=$(awk '/^Requests\/sec/ {print $2}' "$f")
		count=$(awk '/requests in/ {print $1}' "$f") ;;
	h2load)
		rate=$(awk '/^finished in/ {print $4}' "$f")
		count=$(awk '/^requests:/ {print $8}' "$f") ;;
	ab)
		rate=$(awk '/^Requests per second/ {print $4}' "$f")
		count=$(awk '/^Complete requests/ {print $3}' "$f") ;;
	hey)
		rate=$(awk '/Requests\/sec/ {print $2}' "$f")
		count=$(awk '/\[200\]/ {print $2}' "$f") ;;
	openssl)
		# s_time reports whole "real seconds" (2 for a run of 2.9 s): the
		# rate uses the wall time measured around the process instead.
		count=$(awk '/connections in [0-9.]+ real seconds/ {print $1; exit}' "$f")
		rate=$(awk -v n="${count:-0}" -v s="$WALL" 'BEGIN { if (s > 0) print n / s; else print 0 }') ;;
	esac
	printf "%.1f %s %s\n" "${rate:-0}" "${count:-0}" "$3"
}

SAMPLES=$WORK/samples # key, round, req/s, client µs/req, server busy %, server µs/req, steal %
: >"$SAMPLES"
MAX_RSS_KB=0
RSS_KB=0
# measure KEY CMD...: runs one measurement and keeps it as a sample of
# KEY in the current round.
measure() {
	local key=$1
	shift
	[[ $key =~ $ONLY ]] || return 0
	run "$@" >"$WORK/result"
	read -r rate count cpu <"$WORK/result"
	if [[ $1 == "$HL" ]] && ((RSS_KB > MAX_RSS_KB)); then MAX_RSS_KB=$RSS_KB; fi
	local us srv
	us=$(awk -v c="$cpu" -v n="$count" 'BEGIN { if (n > 0) printf "%.2f", c * 1e6 / n; else print "nan" }')
	srv=$(awk -v t="$SERVER_US" -v n="$count" 'BEGIN { if (n > 0) printf "%.2f", t / n; else print "nan" }')
	echo "  $key: $rate req/s, $count requests, $us µs CPU/request; server ${SERVER_BUSY}% busy, $srv µs/request; steal ${STEAL}%" >&2
	if [[ $count == 0 ]]; then
		echo "  $key: no requests completed; its output:" >&2
		sed 's/^/    /' "$WORK/out" | tail -5 >&2
		return 0
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$round" "$rate" "$us" "$SERVER_BUSY" "$srv" "$STEAL" >>"$SAMPLES"
}

# h2load runs a count, not a duration, when it is to make a handshake per
# request: N_FULL requests over 50 connections, each closed after its
# response ("Connection: close", as for wrk), so each request reconnects.
N_FULL=$((DUR * 800))
# The peers offer one X25519 key share (OpenSSL 3.0, and hey built with Go
# 1.19); Go 1.26 adds an X25519MLKEM768 share by default, which this nginx
# cannot use. The handshake rows give httpslab the same key exchange with
# --curves X25519; "full httpslab-pq" shows the default.
m_h1_httpslab() { measure "h1 httpslab" "$HL" bench "$A" -k -c 50 -d "${DUR}s" --json; }
m_h1_wrk() { measure "h1 wrk" wrk -t1 -c50 -d"${DUR}s" "$A"; }
m_h1_h2load() { measure "h1 h2load" h2load --h1 -t1 -c50 -D "$DUR" "$A"; }
m_h1_ab() { measure "h1 ab" ab -k -c 50 -t "$DUR" -n 10000000 "$A"; }
m_h1_hey() { measure "h1 hey" hey -c 50 -z "${DUR}s" "$A"; }
m_h2_httpslab() { measure "h2 httpslab" "$HL" bench "$A" -k --http2 -c 10 -m 10 -d "${DUR}s" --json; }
m_h2_h2load() { measure "h2 h2load" h2load -t1 -c10 -m10 -D "$DUR" "$A"; }
m_full_httpslab() { measure "full httpslab" "$HL" bench "$B" -k --curves X25519 --conn new -c 50 -d "${DUR}s" --json; }
m_full_hey() { measure "full hey" hey -c 50 -z "${DUR}s" -disable-keepalive "$B"; }
m_full_verify() { measure "full httpslab-verify" "$HL" bench "$B" --cacert "$WORK/cert.pem" --curves X25519 --conn new -c 50 -d "${DUR}s" --json; }
m_full_h2load() { measure "full h2load" h2load --h1 -t1 -c50 -n "$N_FULL" -H "Connection: close" "$B"; }
m_full_pq() { measure "full httpslab-pq" "$HL" bench "$B" -k --conn new -c 50 -d "${DUR}s" --json; }
m_full_wrk() { measure "full wrk" wrk -t1 -c50 -d"${DUR}s" -H "Connection: close" "$B"; }
m_full_ab() { measure "full ab" ab -c 50 -t "$DUR" -n 10000000 "$B"; }
m_full_openssl() { measure "full openssl" openssl s_time -connect "127.0.0.1:$PORT_B" -new -time "$DUR"; }
m_resumed_httpslab() { measure "resumed httpslab" "$HL" bench "$A" -k --curves X25519 --conn resume -c 50 -d "${DUR}s" --json; }
m_h1q_httpslab() { IN_QUOTA=1 measure "h1q httpslab" "$HL" bench "$A" -k -c 50 -d "${DUR}s" --json; }
m_h1q_wrk() { IN_QUOTA=1 measure "h1q wrk" wrk -t1 -c50 -d"${DUR}s" "$A"; }
m_h2q_httpslab() { IN_QUOTA=1 measure "h2q httpslab" "$HL" bench "$A" -k --http2 -c 10 -m 10 -d "${DUR}s" --json; }
m_h2q_h2load() { IN_QUOTA=1 measure "h2q h2load" h2load -t1 -c10 -m10 -D "$DUR" "$A"; }
m_resumed_wrk() { measure "resumed wrk" wrk -t1 -c50 -d"${DUR}s" -H "Connection: close" "$A"; }

# group F...: runs the measurement functions back to back, in the given
# order in odd rounds and reversed in even ones, so that a drift in the
# machine's speed does not favour the tools that run first.
group() {
	local fs=("$@") i
	if ((round % 2)); then
		for ((i = 0; i < ${#fs[@]}; i++)); do "${fs[i]}"; done
	else
		for ((i = ${#fs[@]} - 1; i >= 0; i--)); do "${fs[i]}"; done
	fi
}

START=$(date +%s)
for round in $(seq "$PAIRS"); do
	echo "target round $round of $PAIRS" >&2
	group m_h1_httpslab m_h1_wrk
	group m_h2_httpslab m_h2_h2load
	group m_full_httpslab m_full_hey m_full_verify m_full_h2load
	group m_resumed_httpslab m_resumed_wrk
done
for round in $(seq "$ROUNDS"); do
	echo "other rows, round $round of $ROUNDS" >&2
	group m_h1_h2load m_h1_ab m_h1_hey m_full_pq m_full_wrk m_full_ab m_full_openssl
done
if [[ -n $CG ]]; then
	for round in $(seq "$QROUNDS"); do
		echo "client-bound rows (client held to $QUOTA cores), round $round of $QROUNDS" >&2
		group m_h1q_httpslab m_h1q_wrk
		group m_h2q_httpslab m_h2q_h2load
	done
fi

# column KEY FIELD prints the values of one field (3 req/s, 4 client
# µs/req, 5 server busy, 6 server µs/req, 7 steal) of KEY's samples.
column() { awk -F'\t' -v k="$1" -v f="$2" '$1 == k && $f != "nan" { print $f }' "$SAMPLES"; }
# median reads numbers, one per line, and prints their median.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print ""; exit }
		printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
row() {
	local k=$1 n rates
	n=$(column "$k" 3 | wc -l)
	((n > 0)) || { printf "%-22s %3s\n" "$k" 0; return; }
	rates=$(column "$k" 3 | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f-%.0f", lo, hi }')
	printf "%-22s %3d %10.0f %15s %10.2f %7.0f%% %10.2f %6.0f%%\n" "$k" "$n" "$(column "$k" 3 | median)" "$rates" \
		"$(column "$k" 4 | median)" "$(column "$k" 5 | median)" "$(column "$k" 6 | median)" "$(column "$k" 7 | median)"
}

# ratios FIELD KEY1 KEY2 prints, one per line, KEY1's value over KEY2's
# of each round in which both were measured.
ratios() {
	awk -F'\t' -v f="$1" -v a="$2" -v b="$3" '
		$1 == a && $f != "nan" { x[$2] = $f } $1 == b && $f != "nan" { y[$2] = $f }
		END { for (r in x) if ((r in y) && x[r] > 0 && y[r] > 0) printf "%.4f\n", x[r] / y[r] }' "$SAMPLES"
}

# target LABEL FIELD KEY1 KEY2 GOAL ge|le prints the median of the paired
# ratios, the interval of order statistics around it that holds the true
# median with at least 95% probability (the sign test's interval; with
# fewer than 6 pairs it is the whole range, with its lower coverage), and
# the verdict on the median, with whether the interval clears the goal
# (no goal and no verdict when the last argument is "info").
target() {
	ratios "$2" "$3" "$4" | sort -g | awk -v label="$1" -v g="$5" -v d="$6" '
		{ v[NR] = $1 }
		END {
			n = NR
			if (n == 0) { printf "  %-44s %s\n", label, "no paired rounds  ?"; exit }
			m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			# k: the largest rank with 2 P(X <= k-1) <= 0.05, X ~ Bin(n, 1/2);
			# cum is P(X <= i) and c the binomial coefficient C(n, i).
			k = 1; cum = 0; c = 1; p = 2 ^ -n
			for (i = 0; i < n; i++) {
				cum += c * p
				if (2 * cum > 0.05) break
				k = i + 1
				c = c * (n - i) / (i + 1)
			}
			if (k > (n + 1) / 2) k = int((n + 1) / 2)
			cov = 1; c = 1
			for (i = 0; i < k; i++) { cov -= 2 * c * p; c = c * (n - i) / (i + 1) }
			lo = v[k]; hi = v[n - k + 1]
			if (d == "info") {
				printf "  %-44s median %.2f  [%.2f, %.2f] %2.0f%%  n=%d\n", label, m, lo, hi, cov * 100, n
				exit
			}
			ok = (d == "ge") ? m >= g : m <= g
			clear = (d == "ge") ? (ok ? lo >= g : hi < g) : (ok ? hi <= g : lo > g)
			verdict = (ok ? "met" : "MISSED") (cov < 0.95 ? ", too few rounds to tell from noise" : clear ? ", beyond the noise" : ", within the noise")
			printf "  %-44s median %.2f  [%.2f, %.2f] %2.0f%%  n=%d  target %s %.1f  %s\n",
				label, m, lo, hi, cov * 100, n, (d == "ge") ? ">=" : "<=", g, verdict
		}'
}

echo
echo "httpslab bench vs peers: nginx $(nginx -v 2>&1 | sed 's/.*\///'), 1 worker on CPU 0, clients on CPU 1, 1 KiB file, TLS 1.3, ECDSA P-256"
echo "target rows: $PAIRS rounds, other rows: $ROUNDS rounds, client-bound rows: $QROUNDS rounds, ${DUR}s each; medians over the rounds"
echo "client CPU = user+system per completed request; server = the nginx worker's CPU time over the wall time and per request;"
echo "steal = the share of both cores' time the hypervisor took during the run (high: the machine, not the tools, set the pace)"
echo
printf "%-22s %3s %10s %15s %10s %8s %10s %7s\n" "scenario tool" "n" "req/s" "range" "CPU µs/req" "server" "server µs/req" "steal"
for k in "h1 httpslab" "h1 wrk" "h1 h2load" "h1 ab" "h1 hey" "h2 httpslab" "h2 h2load" \
	"full httpslab" "full httpslab-verify" "full httpslab-pq" "full hey" "full h2load" "full wrk" "full ab" "full openssl" \
	"resumed httpslab" "resumed wrk" "h1q httpslab" "h1q wrk" "h2q httpslab" "h2q h2load"; do
	[[ $k =~ $ONLY ]] || continue
	[[ -z $CG && $k =~ ^h[12]q ]] || row "$k"
done
ALL_STEAL=$(cut -f7 "$SAMPLES" | median)
if awk -v s="${ALL_STEAL:-0}" 'BEGIN { exit !(s >= 5) }'; then
	echo
	echo "warning: the hypervisor took a median ${ALL_STEAL}% of the cores' time during these runs; requests/s"
	echo "then says more about the host than about the tools (run again when the host is quieter)"
fi
echo
echo "httpslab peak RSS over all its runs: $((MAX_RSS_KB / 1024)) MiB"
echo
echo "targets: median of the per-round ratios [interval] coverage, pairs:"
target "keep-alive h1 req/s: httpslab / wrk" 3 "h1 httpslab" "h1 wrk" 1.0 ge
target "keep-alive h1 CPU/req: httpslab / wrk" 4 "h1 httpslab" "h1 wrk" 1.0 le
target "HTTP/2 req/s: httpslab / h2load" 3 "h2 httpslab" "h2 h2load" 1.0 ge
target "HTTP/2 CPU/req: httpslab / h2load" 4 "h2 httpslab" "h2 h2load" 1.0 le
target "full handshakes/s: httpslab -k / hey" 3 "full httpslab" "full hey" 1.0 ge
target "full handshakes/s: httpslab -k / h2load" 3 "full httpslab" "full h2load" 1.2 ge
target "full handshakes/s: httpslab verifying / hey" 3 "full httpslab-verify" "full hey" 1.0 ge
target "resumed handshakes/s: httpslab / wrk" 3 "resumed httpslab" "resumed wrk" 1.0 ge
echo
echo "server CPU per request, httpslab / peer (1.00: each request cost nginx the same; a busy server's"
echo "requests/s is its CPU over this cost, so where both keep it near 100% busy this ratio decides req/s):"
target "keep-alive h1: httpslab / wrk" 6 "h1 httpslab" "h1 wrk" 0 info
target "HTTP/2: httpslab / h2load" 6 "h2 httpslab" "h2 h2load" 0 info
target "full handshakes: httpslab -k / hey" 6 "full httpslab" "full hey" 0 info
echo
if [[ -n $CG ]]; then
	echo "client-bound (h1q, h2q: the client held to $QUOTA cores by a cgroup CPU quota, nginx free), httpslab / peer:"
	target "keep-alive h1 req/s: httpslab / wrk" 3 "h1q httpslab" "h1q wrk" 0 info
	target "HTTP/2 req/s: httpslab / h2load" 3 "h2q httpslab" "h2q h2load" 0 info
else
	echo "client-bound rows left out: $CG_NOTE"
fi

# memory_row LABEL SECONDS ARGS...: one httpslab run of SECONDS at full
# speed; prints its requests and peak RSS against the 32 MiB target.
memory_row() {
	local label=$1 secs=$2
	shift 2
	run "$HL" bench "$@" -d "${secs}s" --json >"$WORK/result"
	read -r rate count _ <"$WORK/result"
	printf "  %-28s %4ss %10s requests %9.0f req/s  peak RSS %5.1f MiB  (target <= 32)  %s\n" "$label" "$secs" \
		"$count" "$rate" "$(awk -v k="$RSS_KB" 'BEGIN { print k / 1024 }')" "$( ((RSS_KB <= 32768)) && echo met || echo MISSED)"
}
if [[ ${MEMORY:-} == 1 ]]; then
	echo
	echo "memory: httpslab's peak RSS does not grow with the number of requests"
	for secs in 10 60; do
		memory_row "keep-alive h1 -c 50" "$secs" "$A" -k -c 50
		memory_row "HTTP/2 -c 10 -m 10" "$secs" "$A" -k --http2 -c 10 -m 10
	done
fi
echo
echo "whole run: $(($(date +%s) - START)) s of measurements"
