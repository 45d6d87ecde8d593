#!/usr/bin/env bash
# peers.sh measures httpslab bench side by side with wrk, h2load, ab, hey
# and openssl s_time against one nginx and prints, per tool, requests/s,
# client CPU per request, how busy the server was and its CPU per request,
# then each target as the median of per-round ratios with an interval.
#
# Every tool runs first as a user runs it: bench with its defaults
# (certificate verification on, through --cacert; the default key-exchange
# groups), hey, wrk, h2load, ab and openssl s_time with theirs (none of them
# verifies the certificate). Flags that change what is measured for speed
# (bench -k, --curves X25519, ab -k) appear only in additional rows, marked
# "tuned".
#
# Setup: nginx from Debian, worker_processes 1 pinned to CPU 0, every
# client pinned to CPU 1, a 1 KiB static file, TLS 1.3 with an ECDSA P-256
# leaf signed by a private CA, keepalive_requests high. Port A allows
# session resumption (cache and tickets), port B refuses it (every
# connection a full handshake), port C allows it and logs
# $ssl_session_reused for every request, so that the resumed rows show
# how many of their handshakes nginx resumed.
#
# Why rounds: on a shared virtual machine the same work costs more from one
# second to the next. One long run per tool compares the machine's moments
# more than the tools, so the target rows run in ROUNDS short rounds; in
# each round the rows of a target run back to back, in an order that
# reverses from round to round, and the ratio of that round is one sample.
#
# How the interval of a ratio is computed: the per-round ratios are
# sorted, the verdict reads their median, and the interval is the pair of
# order statistics (k-th lowest, k-th highest) that holds the true median
# with at least 95% probability, k the largest rank with
# 2 P(Bin(n, 1/2) <= k-1) <= 0.05 (the sign test's interval, which assumes
# nothing of the ratios' distribution): for 9 rounds the 2nd lowest and 2nd
# highest ratio, 96.1%. With fewer than 6 rounds no such pair exists; the
# interval is then the whole range, with its coverage printed (below 95%).
# A target is "met, beyond the noise" when the median meets it and the
# whole interval does, "met, within the noise" when only the median does.
#
# The keep-alive rows where nginx is the limit (h1, h2) are held to
# equivalence: the whole interval of the requests/s ratio inside [0.95,
# 1.05]. Nine rounds cannot show that even for one tool against itself
# on a shared machine (wrk against wrk: [0.96, 1.09]; h2load against
# h2load: [0.97, 1.14]), so these rows run in rounds of their own,
# EQ_ROUNDS of them (3 times ROUNDS by default) of EQ_DUR seconds (1),
# and in each round wrk and h2load run a second time ("again", next to
# their first run): the ratio of each to its second run is the
# yardstick printed under the equivalence targets, the interval the same
# design gives where there is no difference at all.
#
# Client CPU is user+system time from /usr/bin/time over the whole client
# process (start-up and report included, for every tool alike; bench
# writes its default text report, as the others do) divided by the
# requests it completed; on the handshake rows a request is a connection.
# The server's CPU is the nginx worker's run time from /proc: "server
# busy" is that time over the run's wall time, "server µs/req" that time
# per completed request. "wakes/req" is how often per request the
# client's core was woken by an interrupt from another core (rescheduling
# and function-call IPIs, /proc/interrupts): nginx's writes that find the
# client asleep, each paid for in nginx's CPU time. "steal" is the time
# the hypervisor took from the two cores during the run (/proc/stat).
# "peak MiB" is the client's largest peak RSS over the row's runs
# (/usr/bin/time).
#
# Client-bound rows ("q"): a client that is not the limit cannot show its
# speed in requests/s. These rows hold the client to QUOTA of a core (0.25
# by default) with a cgroup CPU quota (cpu.max or cpu.cfs_quota_us, as
# docker --cpus sets it; nginx keeps its whole core), so the client is the
# limit. They need root and a cgroup hierarchy with the cpu controller;
# without them they are left out, and said so. The resumed handshakes have
# such a row too: unconstrained, nginx is the limit of both httpslab and
# wrk (98% busy), and the row measures nginx's speed more than theirs.
#
# The crypto floor: each round also runs the load package's
# BenchmarkCryptoFloor on the client core (X25519 key generation and shared
# secret, one ECDSA P-256 verification, in thread CPU time), and httpslab's
# client CPU per full handshake of that round over it is one sample of
# that target's ratio.
#
# Usage: bash bench/peers.sh [--rounds N] [--quick]
#   --rounds N  rounds of the target rows (default 9, the fewest whose
#               interval reaches 95%); --quick is --rounds 3 without the
#               memory rows and with 6 keep-alive rounds, for a look in
#               about 2 minutes
# Environment: DUR seconds per measurement (default 2), ROUNDS as
# --rounds, EQ_ROUNDS and EQ_DUR the rounds and seconds of the keep-alive
# rows where nginx is the limit (default 3 × ROUNDS and 1 s), SELF= (empty)
# to leave out their yardstick runs, OTHER_ROUNDS rounds of the other rows
# (default 2), QUOTA the
# client-bound rows' quota in cores (default 0.25), ONLY a regular
# expression selecting rows (e.g. ONLY='^h1'), MEMORY=0 to leave out
# httpslab's peak RSS over a 10 s and a 60 s keep-alive run (70 s),
# BEFORE a git revision to compare the working tree with: every httpslab
# row then also runs the build of that revision, right after the working
# tree's in the same round (as a row of its own, "... before"), and the
# targets and the per-round ratios after/before are printed for both.
# 9 rounds take about 10 minutes; ONLY='^(h1q|h2q) ' --rounds 5 about 1.
set -euo pipefail
# A command that fails says where, so that a run cut short can be told from one that finished.
trap 'echo "peers.sh: line $LINENO failed: $BASH_COMMAND" >&2' ERR

DUR=${DUR:-2}
ROUNDS=${ROUNDS:-9}
OTHER_ROUNDS=${OTHER_ROUNDS:-2}
QUOTA=${QUOTA:-0.25}
MEMORY=${MEMORY:-1}
SELF=${SELF-1} # empty: no second run of wrk and h2load in the keep-alive rounds
BEFORE=${BEFORE:-} # a git revision: its httpslab runs beside the working tree's
ONLY=${ONLY:-.} # a regular expression: measure only the matching rows
while (($#)); do
	case $1 in
	--rounds) ROUNDS=${2:?--rounds needs a number}; shift 2 ;;
	--quick) ROUNDS=3 OTHER_ROUNDS=1 MEMORY=0 EQ_ROUNDS=${EQ_ROUNDS:-6}; shift ;;
	*) echo "peers.sh: unknown argument $1 (usage: bash bench/peers.sh [--rounds N] [--quick])" >&2; exit 2 ;;
	esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "peers.sh: --rounds takes a whole number of at least 1, not $ROUNDS" >&2; exit 2; }
EQ_ROUNDS=${EQ_ROUNDS:-$((ROUNDS * 3))}
EQ_DUR=${EQ_DUR:-1}
[[ $EQ_ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "peers.sh: EQ_ROUNDS takes a whole number of at least 1, not $EQ_ROUNDS" >&2; exit 2; }
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

echo "building httpslab and the load package's benchmarks" >&2
(cd "$ROOT" && go build -o "$WORK/httpslab" ./cmd/httpslab && go test -c -o "$WORK/load.test" ./internal/load)
HL=$WORK/httpslab
HL_BEFORE=""
if [[ -n $BEFORE ]]; then
	echo "building httpslab at $BEFORE" >&2
	mkdir -p "$WORK/before"
	git -C "$ROOT" archive "$BEFORE" | tar -x -C "$WORK/before"
	(cd "$WORK/before" && go build -o "$WORK/before/httpslab" ./cmd/httpslab)
	HL_BEFORE=$WORK/before/httpslab
fi

SERVER_CPU="" CLIENT_CPU=""
if (($(nproc) >= 2)); then SERVER_CPU="taskset -c 0"; CLIENT_CPU="taskset -c 1"; fi

# Certificates: a private CA and an ECDSA P-256 leaf for 127.0.0.1 that
# it signs; nginx sends the leaf, bench trusts the CA (--cacert).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=peers CA" \
	-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
	-keyout "$WORK/ca.key" -out "$WORK/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
	-keyout "$WORK/key.pem" -out "$WORK/leaf.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$WORK/leaf.ext"
openssl x509 -req -in "$WORK/leaf.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial -days 2 \
	-extfile "$WORK/leaf.ext" -out "$WORK/cert.pem" 2>/dev/null
CA=$WORK/ca.pem
mkdir -p "$WORK/www" "$WORK/tmp"
head -c 1024 /dev/zero | tr '\0' x >"$WORK/www/1k.bin"
PORT_A=$((20000 + RANDOM % 20000))
PORT_B=$((PORT_A + 1))
PORT_C=$((PORT_A + 2))
cat >"$WORK/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/error.log warn;
$( [[ $(id -u) == 0 ]] && echo "user root;" )
events { worker_connections 8192; }
http {
    access_log off;
    log_format reused \$ssl_session_reused;
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
    server {
        listen 127.0.0.1:$PORT_C ssl;
        ssl_session_cache shared:peers:10m;
        ssl_session_tickets on;
        access_log $WORK/reused.log reused;
    }
}
CONF
$SERVER_CPU nginx -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
NGINX_PID=$!
up=""
for _ in $(seq 50); do
	if curl -sf --cacert "$CA" -o /dev/null "https://127.0.0.1:$PORT_B/1k.bin"; then up=1; break; fi
	sleep 0.1
done
if [[ -z $up ]]; then
	echo "peers.sh: nginx did not answer on 127.0.0.1:$PORT_B within 5 s; its error log:" >&2
	cat "$WORK/error.log" >&2 || true
	exit 1
fi
A=https://127.0.0.1:$PORT_A/1k.bin
B=https://127.0.0.1:$PORT_B/1k.bin
C=https://127.0.0.1:$PORT_C/1k.bin

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

# client_wakes prints the wake-up interrupts the client's core has taken
# so far (rescheduling and function-call IPIs, /proc/interrupts): each
# time nginx's write finds the client asleep, nginx's core wakes the
# client's, and pays for it in its own CPU time. A client that needs less
# CPU per response sleeps more often between responses and costs nginx
# more wake-ups per request; "wakes/req" shows how many. The client's
# core is CPU 1, the third field of each line; 0 when the client is not
# pinned.
client_wakes() {
	[[ -n $CLIENT_CPU ]] || { echo 0; return; }
	awk '$1 == "RES:" || $1 == "CAL:" { t += $3 } END { print t + 0 }' /proc/interrupts
}

# run CMD...: runs CMD pinned to the client core under /usr/bin/time and
# prints "requests/s requests cpu_seconds"; it sets WALL to the run's wall
# time in seconds, SERVER_BUSY to the nginx worker's CPU share during the
# run in percent, SERVER_US to its CPU time in microseconds and STEAL to
# the share of the two cores' time the hypervisor took, in percent, and
# WAKES to the wake-up interrupts the client's core took (client_wakes).
run() {
	local out="$WORK/out" tim="$WORK/time" t0 t1 s0 s1 st0 st1 w0 w1
	st0=$(steal_ticks) s0=$(server_us) w0=$(client_wakes) t0=$(date +%s.%N)
	if [[ -n ${IN_QUOTA:-} ]]; then
		# The client (and /usr/bin/time) join the quota's cgroup before they start.
		sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" $CLIENT_CPU /usr/bin/time -f "%U %S %M" -o "$tim" "$@" >"$out" 2>&1 || true
	else
		$CLIENT_CPU /usr/bin/time -f "%U %S %M" -o "$tim" "$@" >"$out" 2>&1 || true
	fi
	s1=$(server_us) w1=$(client_wakes) t1=$(date +%s.%N) st1=$(steal_ticks)
	WAKES=$((w1 - w0))
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
	STEAL=$(awk -v d="$((st1 - st0))" -v hz="$CLK_TCK" -v w="$WALL" 'BEGIN { if (w > 0 && hz > 0) printf "%.0f", d / hz / w / 2 * 100; else print 0 }')
	SERVER_US=$((s1 - s0))
	SERVER_BUSY=$(awk -v d="$SERVER_US" -v w="$WALL" 'BEGIN { if (w > 0) printf "%.0f", d / 1e6 / w * 100; else print 0 }')
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
		# bench's text report, its default output.
		rate=$(awk '/^Requests\/s:/ {print $2; exit}' "$f")
		count=$(awk '/^Requests:/ {print $2; exit}' "$f") ;;
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

SAMPLES=$WORK/samples # key, round, req/s, client µs/req, server busy %, server µs/req, steal %, resumed %, client peak RSS KiB, client wakes/req
: >"$SAMPLES"
MAX_RSS_KB=0
RSS_KB=0
# measure KEY CMD...: runs one measurement and keeps it as a sample of
# KEY in the current round. On port C it also counts the requests nginx
# logged as resumed.
measure() {
	local key=$1${KEY_SUFFIX:-}
	[[ $1 =~ $ONLY ]] || return 0 # the row's name without " before"
	shift
	local log0=0 reused="-"
	[[ -f $WORK/reused.log ]] && log0=$(wc -l <"$WORK/reused.log")
	run "$@" >"$WORK/result"
	read -r rate count cpu <"$WORK/result"
	if [[ $1 == "$HL" ]] && ((RSS_KB > MAX_RSS_KB)); then MAX_RSS_KB=$RSS_KB; fi
	if [[ " $* " == *" $C "* || " $* " == *":$PORT_C"* ]]; then
		reused=$(tail -n +$((log0 + 1)) "$WORK/reused.log" | awk '{ n++; if ($1 == "r") r++ } END { if (n) printf "%.1f", r / n * 100; else print "-" }')
	fi
	local us srv wakes
	us=$(awk -v c="$cpu" -v n="$count" 'BEGIN { if (n > 0) printf "%.2f", c * 1e6 / n; else print "nan" }')
	srv=$(awk -v t="$SERVER_US" -v n="$count" 'BEGIN { if (n > 0) printf "%.2f", t / n; else print "nan" }')
	wakes=$(awk -v w="$WAKES" -v n="$count" 'BEGIN { if (n > 0) printf "%.4f", w / n; else print "nan" }')
	echo "  $key: $rate req/s, $count requests, $us µs CPU/request; server ${SERVER_BUSY}% busy, $srv µs/request; client woken $wakes/request; steal ${STEAL}%; resumed ${reused}%" >&2
	if [[ $count == 0 ]]; then
		echo "  $key: no requests completed; its output:" >&2
		sed 's/^/    /' "$WORK/out" | tail -5 >&2
		return 0
	fi
	if [[ $key == "full httpslab" ]]; then
		GROUP=$(awk '/^Key shares:/ && /returning visit:/ { print $5; exit }' "$WORK/out")
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$round" "$rate" "$us" "$SERVER_BUSY" "$srv" "$STEAL" "$reused" "$RSS_KB" "$wakes" >>"$SAMPLES"
}

# floor: the crypto floor of a full handshake on the client core, X25519
# key generation and shared secret and one ECDSA P-256 verification, kept
# as the "floor" sample of the round (in its client µs column).
GROUP=""
floor() {
	[[ "floor" =~ $ONLY || "full httpslab" =~ $ONLY ]] || return 0
	local us
	us=$(cd "$WORK" && $CLIENT_CPU ./load.test -test.run '^$' -test.bench 'CryptoFloor/(group=x25519|verify=ecdsa-p256)$' \
		-test.benchtime 1000x 2>/dev/null | awk '/^BenchmarkCryptoFloor/ { for (i = 1; i < NF; i++) if ($(i + 1) == "cpu-µs/op") s += $i } END { printf "%.2f", s }')
	echo "  crypto floor: $us µs (X25519 key generation and shared secret, one ECDSA P-256 verification)" >&2
	printf 'floor\t%s\t0\t%s\t0\t0\t0\t-\t0\tnan\n' "$round" "$us" >>"$SAMPLES"
}

# h2load makes a handshake per request only with a count, not a duration:
# N_FULL requests over 50 connections, each closed after its response
# ("Connection: close", as for wrk); N_FULLQ for the client held to QUOTA.
N_FULL=$((DUR * 800))
N_FULLQ=$((DUR * 300))
# Defaults: each tool as a user runs it.
m_full_httpslab() { measure "full httpslab" "$HL" bench "$B" --cacert "$CA" --conn new -c 50 -d "${DUR}s"; }
m_full_hey() { measure "full hey" hey -c 50 -z "${DUR}s" -disable-keepalive "$B"; }
m_full_h2load() { measure "full h2load" h2load --h1 -t1 -c50 -n "$N_FULL" -H "Connection: close" "$B"; }
m_fullq_httpslab() { IN_QUOTA=1 measure "fullq httpslab" "$HL" bench "$B" --cacert "$CA" --conn new -c 50 -d "${DUR}s"; }
m_fullq_hey() { IN_QUOTA=1 measure "fullq hey" hey -c 50 -z "${DUR}s" -disable-keepalive "$B"; }
m_fullq_h2load() { IN_QUOTA=1 measure "fullq h2load" h2load --h1 -t1 -c50 -n "$N_FULLQ" -H "Connection: close" "$B"; }
m_resumed_httpslab() { measure "resumed httpslab" "$HL" bench "$C" --cacert "$CA" --conn resume -c 50 -d "${DUR}s"; }
m_resumed_wrk() { measure "resumed wrk" wrk -t1 -c50 -d"${DUR}s" -H "Connection: close" "$C"; }
m_resumedq_httpslab() { IN_QUOTA=1 measure "resumedq httpslab" "$HL" bench "$C" --cacert "$CA" --conn resume -c 50 -d "${DUR}s"; }
m_resumedq_wrk() { IN_QUOTA=1 measure "resumedq wrk" wrk -t1 -c50 -d"${DUR}s" -H "Connection: close" "$C"; }
m_h1_httpslab() { measure "h1 httpslab" "$HL" bench "$A" --cacert "$CA" -c 50 -d "${DUR}s"; }
m_h1_wrk() { measure "h1 wrk" wrk -t1 -c50 -d"${DUR}s" "$A"; }
m_h2_httpslab() { measure "h2 httpslab" "$HL" bench "$A" --cacert "$CA" --http2 -c 10 -m 10 -d "${DUR}s"; }
m_h2_h2load() { measure "h2 h2load" h2load -t1 -c10 -m10 -D "$DUR" "$A"; }
# The same peers once more, for the equivalence targets' yardstick: the
# peer against itself, in the same rounds.
m_h1_wrk_again() { measure "h1 wrk again" wrk -t1 -c50 -d"${DUR}s" "$A"; }
m_h2_h2load_again() { measure "h2 h2load again" h2load -t1 -c10 -m10 -D "$DUR" "$A"; }
m_h1q_httpslab() { IN_QUOTA=1 measure "h1q httpslab" "$HL" bench "$A" --cacert "$CA" -c 50 -d "${DUR}s"; }
m_h1q_wrk() { IN_QUOTA=1 measure "h1q wrk" wrk -t1 -c50 -d"${DUR}s" "$A"; }
m_h2q_httpslab() { IN_QUOTA=1 measure "h2q httpslab" "$HL" bench "$A" --cacert "$CA" --http2 -c 10 -m 10 -d "${DUR}s"; }
m_h2q_h2load() { IN_QUOTA=1 measure "h2q h2load" h2load -t1 -c10 -m10 -D "$DUR" "$A"; }
m_h1_h2load() { measure "h1 h2load" h2load --h1 -t1 -c50 -D "$DUR" "$A"; }
m_h1_hey() { measure "h1 hey" hey -c 50 -z "${DUR}s" "$A"; }
m_full_ab() { measure "full ab" ab -c 50 -t "$DUR" -n 10000000 "$B"; }
m_full_wrk() { measure "full wrk" wrk -t1 -c50 -d"${DUR}s" -H "Connection: close" "$B"; }
m_full_openssl() { measure "full openssl" openssl s_time -connect "127.0.0.1:$PORT_B" -new -time "$DUR"; }
# Tuned: flags that trade what is measured for speed.
m_h1_ab_k() { measure "h1 ab -k (tuned)" ab -k -c 50 -t "$DUR" -n 10000000 "$A"; }
m_full_httpslab_k() { measure "full httpslab -k --curves X25519 (tuned)" "$HL" bench "$B" -k --curves X25519 --conn new -c 50 -d "${DUR}s"; }
m_full_httpslab_fv() { measure "full httpslab --first-visit" "$HL" bench "$B" --cacert "$CA" --first-visit --conn new -c 50 -d "${DUR}s"; }

# group F...: runs the measurement functions back to back, in the given
# order in odd rounds and reversed in even ones, so that a drift in the
# machine's speed does not favour the tools that run first.
# With BEFORE, an httpslab row also runs the other build, right after.
group() {
	local fs=("$@") i
	if ((round % 2)); then
		for ((i = 0; i < ${#fs[@]}; i++)); do both "${fs[i]}"; done
	else
		for ((i = ${#fs[@]} - 1; i >= 0; i--)); do both "${fs[i]}"; done
	fi
}
# both F runs F, and with BEFORE, if it is an httpslab row, F again with
# the build of BEFORE (first in even rounds).
both() {
	if [[ -z $HL_BEFORE || $1 != *httpslab* ]]; then "$1"; return; fi
	if ((round % 2)); then
		"$1"; HL=$HL_BEFORE KEY_SUFFIX=" before" "$1"
	else
		HL=$HL_BEFORE KEY_SUFFIX=" before" "$1"; "$1"
	fi
}

START=$(date +%s)
for round in $(seq "$ROUNDS"); do
	echo "target round $round of $ROUNDS (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
	floor
	group m_full_httpslab m_full_hey m_full_h2load
	group m_resumed_httpslab m_resumed_wrk
	if [[ -n $CG ]]; then
		group m_fullq_httpslab m_fullq_hey m_fullq_h2load
		group m_resumedq_httpslab m_resumedq_wrk
		group m_h1q_httpslab m_h1q_wrk
		group m_h2q_httpslab m_h2q_h2load
	fi
done
for round in $(seq "$EQ_ROUNDS"); do
	echo "keep-alive round $round of $EQ_ROUNDS (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
	DUR=$EQ_DUR group m_h1_httpslab m_h1_wrk ${SELF:+m_h1_wrk_again}
	DUR=$EQ_DUR group m_h2_httpslab m_h2_h2load ${SELF:+m_h2_h2load_again}
done
for round in $(seq "$OTHER_ROUNDS"); do
	echo "other rows, round $round of $OTHER_ROUNDS" >&2
	group m_h1_h2load m_h1_hey m_full_ab m_full_wrk m_full_openssl m_h1_ab_k m_full_httpslab_k m_full_httpslab_fv
done

# column KEY FIELD prints the values of one field (3 req/s, 4 client
# µs/req, 5 server busy, 6 server µs/req, 7 steal, 10 client wakes/req)
# of KEY's samples.
column() { awk -F'\t' -v k="$1" -v f="$2" '$1 == k && $f != "nan" { print $f }' "$SAMPLES"; }
# median reads numbers, one per line, and prints their median.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print ""; exit }
		printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
row() {
	local k=$1 n rates
	n=$(column "$k" 3 | wc -l)
	((n > 0)) || { printf "%-42s %3s\n" "$k" 0; return; }
	rates=$(column "$k" 3 | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f-%.0f", lo, hi }')
	printf "%-42s %3d %9.0f %13s %10.2f %6.0f%% %10.2f %9.2f %5.0f%% %8s %8s\n" "$k" "$n" "$(column "$k" 3 | median)" "$rates" \
		"$(column "$k" 4 | median)" "$(column "$k" 5 | median)" "$(column "$k" 6 | median)" "$(column "$k" 10 | median)" "$(column "$k" 7 | median)" \
		"$(column "$k" 8 | grep -v '^-$' | median | sed 's/$/%/;s/^%$/-/')" \
		"$(column "$k" 9 | sort -g | tail -1 | awk '{ printf "%.1f", $1 / 1024 }')"
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
# (no goal and no verdict when the last argument is "info"; with "eq" the
# target is equivalence, met when the whole interval lies within GOAL of 1).
target() {
	# A target whose rows ONLY left out is not printed.
	[[ ${3% before} =~ $ONLY || ${4% before} =~ $ONLY ]] || return 0
	ratios "$2" "$3" "$4" | sort -g | awk -v label="$1" -v g="$5" -v d="$6" -v note="${NOTE:-}" '
		{ v[NR] = $1 }
		END {
			n = NR
			if (n == 0) { printf "  %-46s %s\n", label, "no paired rounds  ?"; exit }
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
				printf "  %-46s median %.2f  [%.2f, %.2f] %2.0f%%  n=%d\n", label, m, lo, hi, cov * 100, n
				exit
			}
			if (d == "eq") {
				# Equivalence: the whole interval inside [1 - g, 1 + g].
				ok = lo >= 1 - g && hi <= 1 + g
				verdict = (ok ? "met" : "MISSED") (cov < 0.95 ? ", too few rounds to tell from noise" : "") (!ok && note != "" ? note : "")
				printf "  %-46s median %.2f  [%.2f, %.2f] %2.0f%%  n=%d  target inside [%.2f, %.2f]  %s\n",
					label, m, lo, hi, cov * 100, n, 1 - g, 1 + g, verdict
				exit
			}
			ok = (d == "ge") ? m >= g : m <= g
			clear = (d == "ge") ? (ok ? lo >= g : hi < g) : (ok ? hi <= g : lo > g)
			verdict = (ok ? "met" : "MISSED") (cov < 0.95 ? ", too few rounds to tell from noise" : clear ? ", beyond the noise" : ", within the noise")
			printf "  %-46s median %.2f  [%.2f, %.2f] %2.0f%%  n=%d  target %s %.2f  %s\n",
				label, m, lo, hi, cov * 100, n, (d == "ge") ? ">=" : "<=", g, verdict
		}'
}


echo
echo "httpslab bench vs peers: nginx $(nginx -v 2>&1 | sed 's/.*\///'), 1 worker on CPU 0, clients on CPU 1, 1 KiB file,"
echo "TLS 1.3, ECDSA P-256 leaf from a private CA; every tool with its defaults (bench verifies, through --cacert, with"
echo "the default groups; the others do not verify), tuned rows marked; full = a new connection per request"
echo "target rows: $ROUNDS rounds, other rows: $OTHER_ROUNDS, ${DUR}s each; medians over the rounds; load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
[[ -n $CG ]] && echo "q rows: the client held to $QUOTA of a core by a cgroup CPU quota, nginx free" || echo "q rows left out: $CG_NOTE"
echo
printf "%-42s %3s %9s %13s %10s %7s %10s %9s %6s %8s %8s\n" "scenario tool" "n" "req/s" "range" "CPU µs/req" "server" "server µs/req" "wakes/req" "steal" "resumed" "peak MiB"
for k in "full httpslab" "full hey" "full h2load" "full ab" "full wrk" "full openssl" \
	"full httpslab --first-visit" "full httpslab -k --curves X25519 (tuned)" \
	"fullq httpslab" "fullq hey" "fullq h2load" \
	"resumed httpslab" "resumed wrk" "resumedq httpslab" "resumedq wrk" \
	"h1 httpslab" "h1 wrk" "h1 wrk again" "h1 h2load" "h1 hey" "h1 ab -k (tuned)" "h2 httpslab" "h2 h2load" "h2 h2load again" \
	"h1q httpslab" "h1q wrk" "h2q httpslab" "h2q h2load"; do
	[[ $k =~ $ONLY ]] || continue
	[[ -z $CG && $k =~ ^(fullq|resumedq|h1q|h2q) ]] && continue
	row "$k"
	[[ -n $HL_BEFORE && $k == *httpslab* ]] && row "$k before"
done
FLOOR=$(column floor 4 | median)
[[ -z $FLOOR ]] || echo "crypto floor per full handshake (X25519 keygen + shared secret + one ECDSA P-256 verification, thread CPU): median $FLOOR µs"
[[ -z $GROUP || $GROUP == x25519 ]] || echo "warning: bench learned $GROUP from nginx, not x25519: the floor above is of x25519"
ALL_STEAL=$(cut -f7 "$SAMPLES" | median)
if awk -v s="${ALL_STEAL:-0}" 'BEGIN { exit !(s >= 5) }'; then
	echo "warning: the hypervisor took a median ${ALL_STEAL}% of the cores' time during these runs"
fi
echo
echo "targets: median of the per-round ratios [interval: sign-test order statistics, coverage], rounds:"
target "full: client CPU/handshake httpslab / hey" 4 "full httpslab" "full hey" 0.75 le
target "full: client CPU/handshake httpslab / floor" 4 "full httpslab" "floor" 2.0 le
target "full, q: handshakes/s httpslab / hey" 3 "fullq httpslab" "fullq hey" 1.3 ge
target "full, q: handshakes/s httpslab / h2load" 3 "fullq httpslab" "fullq h2load" 2.0 ge
target "resumed: handshakes/s httpslab / wrk" 3 "resumed httpslab" "resumed wrk" 1.15 ge
target "resumed, q: handshakes/s httpslab / wrk" 3 "resumedq httpslab" "resumedq wrk" 1.15 ge
target "h1: client CPU/request httpslab / wrk" 4 "h1 httpslab" "h1 wrk" 0.85 le
target "h2: client CPU/request httpslab / h2load" 4 "h2 httpslab" "h2 h2load" 0.85 le
target "h1, q: requests/s httpslab / wrk" 3 "h1q httpslab" "h1q wrk" 1.3 ge
target "h2, q: requests/s httpslab / h2load" 3 "h2q httpslab" "h2q h2load" 1.3 ge
# The yardstick first: where the peer against itself misses equivalence,
# the run cannot tell a difference of 5%, and the verdict says so.
YARD_H1="" YARD_H2=""
if [[ -n $SELF ]]; then
	YARD_H1=$(target "h1: req/s wrk / wrk again" 3 "h1 wrk" "h1 wrk again" 0.05 eq)
	YARD_H2=$(target "h2: req/s h2load / h2load again" 3 "h2 h2load" "h2 h2load again" 0.05 eq)
fi
# yard_note LINE PEER: the note for an equivalence verdict whose yardstick is LINE.
yard_note() { [[ $1 == *MISSED* ]] && echo "; $2 against itself missed too: this run cannot tell 5%" || true; }
NOTE=$(yard_note "$YARD_H1" wrk) target "h1: req/s httpslab / wrk, equivalence" 3 "h1 httpslab" "h1 wrk" 0.05 eq
NOTE=$(yard_note "$YARD_H2" h2load) target "h2: req/s httpslab / h2load, equivalence" 3 "h2 httpslab" "h2 h2load" 0.05 eq
if [[ -n $YARD_H1$YARD_H2 ]]; then
	echo "the yardstick of the two above, each peer against itself in the same rounds (how close the measurement can tell):"
	[[ -z $YARD_H1 ]] || echo "$YARD_H1"
	[[ -z $YARD_H2 ]] || echo "$YARD_H2"
fi
echo
echo "for reading the above (no target):"
target "full: handshakes/s httpslab / hey" 3 "full httpslab" "full hey" 0 info
target "full: server CPU/handshake httpslab / hey" 6 "full httpslab" "full hey" 0 info
target "resumed: client CPU/handshake httpslab / wrk" 4 "resumed httpslab" "resumed wrk" 0 info
# Why an equivalence row misses: nginx's CPU per request, and how often
# per request it had to wake the client's core.
target "h1: server CPU/request httpslab / wrk" 6 "h1 httpslab" "h1 wrk" 0 info
target "h1: client wakes/request httpslab / wrk" 10 "h1 httpslab" "h1 wrk" 0 info
target "h2: server CPU/request httpslab / h2load" 6 "h2 httpslab" "h2 h2load" 0 info
target "h2: client wakes/request httpslab / h2load" 10 "h2 httpslab" "h2 h2load" 0 info
if [[ -n $HL_BEFORE ]]; then
	echo
	echo "the build of $BEFORE ($(git -C "$ROOT" rev-parse --short "$BEFORE")), the same targets:"
	target "full: client CPU/handshake before / hey" 4 "full httpslab before" "full hey" 0.75 le
	target "full, q: handshakes/s before / hey" 3 "fullq httpslab before" "fullq hey" 1.3 ge
	target "full, q: handshakes/s before / h2load" 3 "fullq httpslab before" "fullq h2load" 2.0 ge
	target "resumed: handshakes/s before / wrk" 3 "resumed httpslab before" "resumed wrk" 1.15 ge
	target "resumed, q: handshakes/s before / wrk" 3 "resumedq httpslab before" "resumedq wrk" 1.15 ge
	target "h1: client CPU/request before / wrk" 4 "h1 httpslab before" "h1 wrk" 0.85 le
	target "h2: client CPU/request before / h2load" 4 "h2 httpslab before" "h2 h2load" 0.85 le
	target "h1, q: requests/s before / wrk" 3 "h1q httpslab before" "h1q wrk" 1.3 ge
	target "h2, q: requests/s before / h2load" 3 "h2q httpslab before" "h2q h2load" 1.3 ge
	echo
	echo "working tree / $BEFORE, per round (no target):"
	for k in "full httpslab" "fullq httpslab" "resumed httpslab" "resumedq httpslab" "h1 httpslab" "h2 httpslab" "h1q httpslab" "h2q httpslab"; do
		target "$k: requests/s" 3 "$k" "$k before" 0 info
		target "$k: client CPU/request" 4 "$k" "$k before" 0 info
	done
fi

# memory_row LABEL SECONDS ARGS...: one httpslab run of SECONDS at full
# speed; prints its requests and peak RSS and sets RSS_KB.
memory_row() {
	local label=$1 secs=$2
	shift 2
	run "$HL" bench "$@" -d "${secs}s" >"$WORK/result"
	read -r rate count _ <"$WORK/result"
	printf "  %-28s %4ss %10s requests %9.0f req/s  peak RSS %5.1f MiB  (target <= 32)  %s\n" "$label" "$secs" \
		"$count" "$rate" "$(awk -v k="$RSS_KB" 'BEGIN { print k / 1024 }')" "$( ((RSS_KB <= 32768)) && echo met || echo MISSED)"
}
echo
echo "httpslab peak RSS over all its runs above: $((MAX_RSS_KB / 1024)) MiB"
if [[ $MEMORY == 1 ]]; then
	echo "memory: httpslab's peak RSS at full speed over 10 s and 60 s (keep-alive h1, -c 50), flat when it grows by under 10%"
	memory_row "keep-alive h1 -c 50" 10 "$A" --cacert "$CA" -c 50
	rss10=$RSS_KB
	memory_row "keep-alive h1 -c 50" 60 "$A" --cacert "$CA" -c 50
	awk -v a="$rss10" -v b="$RSS_KB" 'BEGIN { d = (b - a) / 1024; p = a > 0 ? (b - a) / a * 100 : 0
		printf "  growth from 10 s to 60 s: %+.1f MiB (%+.0f%%) over 6 times the run  %s\n", d, p, p < 10 ? "flat" : "NOT flat" }'
fi
echo
echo "whole run: $(($(date +%s) - START)) s of measurements"
