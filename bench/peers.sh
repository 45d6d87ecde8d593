#!/usr/bin/env bash
# peers.sh measures httpslab bench side by side with wrk, h2load, ab, hey
# and openssl s_time against one nginx, interleaved, and prints requests/s
# and client CPU per request (best of ROUNDS), the ratios the bench targets
# are stated in, and the same ratios paired round by round (each pair run
# back to back, in alternating order), whose median is the steadier figure
# on a machine whose load drifts.
#
# Setup (as in issue 3): nginx from Debian, worker_processes 1 pinned to
# CPU 0, every client pinned to CPU 1, a 1 KiB static file, TLS 1.3 with an
# ECDSA P-256 certificate, keepalive_requests high. Port A allows session
# resumption (cache and tickets); port B refuses it, for full handshakes.
#
# Client CPU is user+system time from /usr/bin/time over the whole client
# process (start-up included, for every tool alike) divided by the
# requests it completed. "server busy" is the nginx worker's user+system
# time over the run's wall time: near 100%, the server is the limit and
# requests/s measures nginx, not the client; compare clients by their CPU.
#
# Environment: DUR seconds per measurement (default 3), ROUNDS (default
# 3), ONLY a regular expression selecting rows (e.g. ONLY='^h1').
# Run from the repository root or from bench/: bash bench/peers.sh
set -euo pipefail

DUR=${DUR:-3}
ROUNDS=${ROUNDS:-3}
ONLY=${ONLY:-.} # a regular expression: measure only the matching rows
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/httpslab-peers.XXXXXX)
NGINX_PID="" WALL=0
cleanup() {
	if [[ -n $NGINX_PID ]]; then kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
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

CLK_TCK=$(getconf CLK_TCK)
# server_ticks prints the CPU clock ticks (user+system) nginx's workers
# have used so far.
server_ticks() {
	local p t=0
	for p in $(cat "/proc/$NGINX_PID/task/$NGINX_PID/children" 2>/dev/null); do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo "$t"
}

# run CMD...: runs CMD pinned to the client core under /usr/bin/time and
# prints "requests/s requests cpu_seconds"; it sets WALL to the run's wall
# time in seconds and SERVER_BUSY to the nginx worker's CPU share during
# the run, in percent.
run() {
	local out="$WORK/out" tim="$WORK/time" t0 t1 s0 s1
	s0=$(server_ticks) t0=$(date +%s.%N)
	$CLIENT_CPU /usr/bin/time -f "%U %S %M" -o "$tim" "$@" >"$out" 2>&1 || true
	s1=$(server_ticks) t1=$(date +%s.%N)
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
	SERVER_BUSY=$(awk -v d="$((s1 - s0))" -v hz="$CLK_TCK" -v w="$WALL" 'BEGIN { printf "%.0f", d / hz / w * 100 }')
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

declare -A BEST_RATE BEST_CPU BEST_SERVER ROUND_RATE ROUND_CPU
MAX_RSS_KB=0
RSS_KB=0
# measure KEY CMD...: keeps the best rate of the rounds and the CPU per
# request of that round.
measure() {
	local key=$1
	shift
	[[ $key =~ $ONLY ]] || return 0
	run "$@" >"$WORK/result"
	read -r rate count cpu <"$WORK/result"
	if [[ $1 == "$HL" ]] && ((RSS_KB > MAX_RSS_KB)); then MAX_RSS_KB=$RSS_KB; fi
	local us
	us=$(awk -v c="$cpu" -v n="$count" 'BEGIN { if (n > 0) printf "%.2f", c * 1e6 / n; else print "nan" }')
	echo "  $key: $rate req/s, $count requests, $us µs CPU/request, server ${SERVER_BUSY}% busy" >&2
	ROUND_RATE[$key|$round]=$rate
	ROUND_CPU[$key|$round]=$us
	if [[ -z ${BEST_RATE[$key]:-} ]] || awk -v a="$rate" -v b="${BEST_RATE[$key]:-}" 'BEGIN { exit !(a > b) }'; then
		BEST_RATE[$key]=$rate
		BEST_CPU[$key]=$us
		BEST_SERVER[$key]=$SERVER_BUSY
	fi
}

# h2load runs a count, not a duration, when it is to make a handshake per
# request: N_FULL requests over 50 connections, each closed after its
# response ("Connection: close", as for wrk), so each request reconnects.
N_FULL=$((DUR * 400))
# The peers offer one X25519 key share (OpenSSL 3.0, and hey built with Go
# 1.19); Go 1.26 adds an X25519MLKEM768 share by default, which this nginx
# cannot use. The handshake rows give httpslab the same key exchange with
# --curves X25519; "full httpslab-pq" shows the default.
# pair KEY1 KEY2 runs the two measurements named by the functions
# m_KEY1 and m_KEY2 back to back, in alternating order from round to
# round, so that drift in the machine's load does not favour either.
pair() {
	if ((round % 2)); then "$1"; "$2"; else "$2"; "$1"; fi
}
m_h1_httpslab() { measure "h1 httpslab" "$HL" bench "$A" -k -c 50 -d "${DUR}s" --json; }
m_h1_wrk() { measure "h1 wrk" wrk -t1 -c50 -d"${DUR}s" "$A"; }
m_h2_httpslab() { measure "h2 httpslab" "$HL" bench "$A" -k --http2 -c 10 -m 10 -d "${DUR}s" --json; }
m_h2_h2load() { measure "h2 h2load" h2load -t1 -c10 -m10 -D "$DUR" "$A"; }
m_full_httpslab() { measure "full httpslab" "$HL" bench "$B" -k --curves X25519 --conn new -c 50 -d "${DUR}s" --json; }
m_full_hey() { measure "full hey" hey -c 50 -z "${DUR}s" -disable-keepalive "$B"; }
m_resumed_httpslab() { measure "resumed httpslab" "$HL" bench "$A" -k --curves X25519 --conn resume -c 50 -d "${DUR}s" --json; }
m_resumed_wrk() { measure "resumed wrk" wrk -t1 -c50 -d"${DUR}s" -H "Connection: close" "$A"; }

for round in $(seq "$ROUNDS"); do
	echo "round $round of $ROUNDS" >&2
	pair m_h1_httpslab m_h1_wrk
	measure "h1 h2load" h2load --h1 -t1 -c50 -D "$DUR" "$A"
	measure "h1 ab" ab -k -c 50 -t "$DUR" -n 10000000 "$A"
	measure "h1 hey" hey -c 50 -z "${DUR}s" "$A"
	pair m_h2_httpslab m_h2_h2load
	pair m_full_httpslab m_full_hey
	measure "full httpslab-verify" "$HL" bench "$B" --cacert "$WORK/cert.pem" --curves X25519 --conn new -c 50 -d "${DUR}s" --json
	measure "full h2load" h2load --h1 -t1 -c50 -n "$N_FULL" -H "Connection: close" "$B"
	measure "full httpslab-pq" "$HL" bench "$B" -k --conn new -c 50 -d "${DUR}s" --json
	measure "full wrk" wrk -t1 -c50 -d"${DUR}s" -H "Connection: close" "$B"
	measure "full ab" ab -c 50 -t "$DUR" -n 10000000 "$B"
	measure "full openssl" openssl s_time -connect "127.0.0.1:$PORT_B" -new -time "$DUR"
	pair m_resumed_httpslab m_resumed_wrk
done

# paired KIND KEY1 KEY2 prints the ratio KEY1/KEY2 of each round (rate or
# cpu) and their median: measurements of one round ran minutes apart at
# most, so the median of these ratios resists drift better than the ratio
# of the bests.
paired() {
	local -n table=$1
	local r list=""
	for r in $(seq "$ROUNDS"); do
		list+=" $(ratio "${table[$2|$r]:-}" "${table[$3|$r]:-}")"
	done
	echo "$list" | tr ' ' '\n' | grep -v '^$' | grep -v 'n/a' | sort -n |
		awk -v all="$list" '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "median %.2f of rounds%s", m, all }'
}

row() { printf "%-22s %12s %14s %12s\n" "$1" "${BEST_RATE[$1]:-}" "${BEST_CPU[$1]:-}" "${BEST_SERVER[$1]:+${BEST_SERVER[$1]}%}"; }
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
target() { # target LABEL VALUE GOAL ge|le: "met" when VALUE >= (or <=) GOAL
	local verdict
	verdict=$(awk -v v="$2" -v g="$3" -v d="$4" 'BEGIN { if (v == "n/a") print "?"; else if ((d == "ge" && v >= g) || (d == "le" && v <= g)) print "met"; else print "MISSED" }')
	printf "  %-52s %6s  (target %s %s)  %s\n" "$1" "$2" "$([[ $4 == ge ]] && echo '>=' || echo '<=')" "$3" "$verdict"
}

echo
echo "httpslab bench vs peers: nginx $(nginx -v 2>&1 | sed 's/.*\///'), 1 worker on CPU 0, clients on CPU 1, 1 KiB file, TLS 1.3, ECDSA P-256"
echo "best of $ROUNDS rounds of ${DUR}s; client CPU = user+system per completed request; server busy = nginx worker CPU / wall time"
echo
printf "%-22s %12s %14s %12s\n" "scenario tool" "req/s" "CPU µs/req" "server busy"
for k in "h1 httpslab" "h1 wrk" "h1 h2load" "h1 ab" "h1 hey" "h2 httpslab" "h2 h2load" \
	"full httpslab" "full httpslab-verify" "full httpslab-pq" "full hey" "full h2load" "full wrk" "full ab" "full openssl" \
	"resumed httpslab" "resumed wrk"; do
	row "$k"
done
echo
echo "httpslab peak RSS over all its runs: $((MAX_RSS_KB / 1024)) MiB"
echo
echo "targets (ratios of the bests in this run):"
target "keep-alive h1 req/s: httpslab / wrk" "$(ratio "${BEST_RATE[h1 httpslab]:-}" "${BEST_RATE[h1 wrk]:-}")" 1.0 ge
target "keep-alive h1 CPU/req: httpslab / wrk" "$(ratio "${BEST_CPU[h1 httpslab]:-}" "${BEST_CPU[h1 wrk]:-}")" 1.0 le
target "HTTP/2 req/s: httpslab / h2load" "$(ratio "${BEST_RATE[h2 httpslab]:-}" "${BEST_RATE[h2 h2load]:-}")" 1.0 ge
target "HTTP/2 CPU/req: httpslab / h2load" "$(ratio "${BEST_CPU[h2 httpslab]:-}" "${BEST_CPU[h2 h2load]:-}")" 1.0 le
target "full handshakes/s: httpslab -k / hey" "$(ratio "${BEST_RATE[full httpslab]:-}" "${BEST_RATE[full hey]:-}")" 1.0 ge
target "full handshakes/s: httpslab -k / h2load" "$(ratio "${BEST_RATE[full httpslab]:-}" "${BEST_RATE[full h2load]:-}")" 1.2 ge
target "full handshakes/s: httpslab verifying / hey" "$(ratio "${BEST_RATE[full httpslab-verify]:-}" "${BEST_RATE[full hey]:-}")" 1.0 ge
target "resumed handshakes/s: httpslab / wrk" "$(ratio "${BEST_RATE[resumed httpslab]:-}" "${BEST_RATE[resumed wrk]:-}")" 1.0 ge
echo
echo "paired ratios (same round, back to back, order alternating):"
echo "  keep-alive h1 req/s  httpslab / wrk:     $(paired ROUND_RATE "h1 httpslab" "h1 wrk")"
echo "  keep-alive h1 CPU    httpslab / wrk:     $(paired ROUND_CPU "h1 httpslab" "h1 wrk")"
echo "  HTTP/2 req/s         httpslab / h2load:  $(paired ROUND_RATE "h2 httpslab" "h2 h2load")"
echo "  HTTP/2 CPU           httpslab / h2load:  $(paired ROUND_CPU "h2 httpslab" "h2 h2load")"
echo "  full handshakes/s    httpslab / hey:     $(paired ROUND_RATE "full httpslab" "full hey")"
echo "  resumed handshakes/s httpslab / wrk:     $(paired ROUND_RATE "resumed httpslab" "resumed wrk")"
