#!/usr/bin/env bash
# handshake-cost.sh measures what a full TLS handshake costs the client
# with bench's defaults (certificate verification on, default key-exchange
# groups), for two builds of httpslab side by side (BEFORE, a git revision,
# and the working tree) and next to hey -disable-keepalive and h2load.
#
# Setup: nginx from Debian, one worker pinned to CPU 0, TLS 1.3 without
# session cache or tickets (every connection a full handshake), an ECDSA
# P-256 leaf for 127.0.0.1 signed by a private CA that httpslab trusts with
# --cacert (hey and h2load do not verify). Every client is pinned to CPU 1,
# with 50 connections, one request per connection.
#
# Client CPU is user+system time from /usr/bin/time over the whole client
# process divided by the requests it completed (one handshake each). The
# rows run in rounds, in an order that reverses from round to round (A B C,
# C B A, ...), and each ratio is taken within a round: the table gives the
# median of the per-round ratios and their range. On a shared machine the
# range is the honest part: a ratio whose range straddles 1 says nothing.
#
# Then the breakdown: the load package's BenchmarkFullHandshake (bench
# --conn new with the same defaults, against the same nginx, on the client
# core) runs HS_N handshakes under the CPU profiler, with -benchmem for the
# allocations per handshake; each profile sample is put in one part of the
# handshake by the functions on its stack (bench/handshake-parts.awk: key
# share generation, shared secret, signature verification, chain
# verification, record layer, key schedule; the rest split into the
# kernel's socket and connect, writes, reads, close and poller, allocation
# and GC, handshake messages, certificate parsing, scheduler, other). Around it, BenchmarkCryptoFloor measures on the same
# core the floor: the negotiated group's key generation and shared secret
# and one ECDSA P-256 verification (the leaf's key), in the thread's CPU
# time per op, before and after the profiled run; the floor is their mean.
# The client's CPU per handshake (getrusage over the run) over that floor
# is the ratio the target holds to at most 2.
#
# Environment: DUR seconds per measurement (default 3), ROUNDS (default 5),
# BEFORE the revision to compare with (default: the one before the run-wide
# certificate verification cache), HS_N handshakes in the profiled run
# (default 10000), BREAKDOWN=0 to leave the breakdown out, ROWS=0 to run the
# breakdown alone.
# Run from the repository root: bash bench/handshake-cost.sh
set -euo pipefail

DUR=${DUR:-3}
ROUNDS=${ROUNDS:-5}
HS_N=${HS_N:-10000}
BREAKDOWN=${BREAKDOWN:-1}
ROWS=${ROWS:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z ${BEFORE:-} ]]; then
	BEFORE=$(git -C "$ROOT" log --format=%H -n1 --grep='verifies each distinct certificate chain once')~1
fi
WORK=$(mktemp -d /tmp/httpslab-hscost.XXXXXX)
NGINX_PID=""
cleanup() {
	if [[ -n $NGINX_PID ]]; then kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
	rm -rf "$WORK"
}
trap cleanup EXIT

for tool in nginx openssl curl /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "handshake-cost.sh: needs $tool" >&2; exit 1; }
done
HAVE_HEY=$(command -v hey || true)
HAVE_H2LOAD=$(command -v h2load || true)

if [[ $ROWS == 1 ]]; then
	echo "building httpslab at $BEFORE and at the working tree" >&2
	mkdir -p "$WORK/before"
	git -C "$ROOT" archive "$BEFORE" | tar -x -C "$WORK/before"
	(cd "$WORK/before" && go build -o "$WORK/hl-before" ./cmd/httpslab)
	(cd "$ROOT" && go build -o "$WORK/hl-after" ./cmd/httpslab)
fi
if [[ $BREAKDOWN == 1 ]]; then
	(cd "$ROOT" && go test -c -o "$WORK/load.test" ./internal/load)
fi

# A private CA and an ECDSA P-256 leaf it signs.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=handshake-cost CA" \
	-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
	-keyout "$WORK/ca.key" -out "$WORK/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
	-keyout "$WORK/key.pem" -out "$WORK/leaf.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$WORK/leaf.ext"
openssl x509 -req -in "$WORK/leaf.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial -days 2 \
	-extfile "$WORK/leaf.ext" -out "$WORK/cert.pem" 2>/dev/null

mkdir -p "$WORK/www" "$WORK/tmp"
head -c 1024 /dev/zero | tr '\0' x >"$WORK/www/1k.bin"
PORT=$((20000 + RANDOM % 20000))
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
    ssl_certificate $WORK/cert.pem;
    ssl_certificate_key $WORK/key.pem;
    ssl_protocols TLSv1.3;
    ssl_session_cache off;
    ssl_session_tickets off;
    root $WORK/www;
    server { listen 127.0.0.1:$PORT ssl; }
}
CONF
SERVER_CPU="" CLIENT_CPU=""
if (($(nproc) >= 2)); then SERVER_CPU="taskset -c 0"; CLIENT_CPU="taskset -c 1"; fi
$SERVER_CPU nginx -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
NGINX_PID=$!
URL=https://127.0.0.1:$PORT/1k.bin
for _ in $(seq 50); do
	curl -sf --cacert "$WORK/ca.pem" -o /dev/null "$URL" && break
	sleep 0.1
done
curl -sf --cacert "$WORK/ca.pem" -o /dev/null "$URL" || { echo "nginx did not answer; its log:" >&2; cat "$WORK/error.log" >&2; exit 1; }

SAMPLES=$WORK/samples # row, round, handshakes/s, client µs per handshake
: >"$SAMPLES"
# measure ROW CMD...: one run of CMD on the client core; appends a sample.
measure() {
	local row=$1 out="$WORK/out" tim="$WORK/time" t0 t1 n cpu
	shift
	t0=$(date +%s.%N)
	$CLIENT_CPU /usr/bin/time -f "%U %S" -o "$tim" "$@" >"$out" 2>&1 || true
	t1=$(date +%s.%N)
	case $row in
	hey) n=$(awk '/\[200\]/ {print $2}' "$out") ;;
	h2load) n=$(awk '/^requests:/ {print $8}' "$out") ;;
	*) n=$(awk '/^Requests:/ {print $2; exit}' "$out") ;;
	esac
	cpu=$(awk '{print $1 + $2}' "$tim")
	if [[ -z $n || $n == 0 ]]; then
		echo "  $row: no requests completed; its output:" >&2
		tail -5 "$out" | sed 's/^/    /' >&2
		return 0
	fi
	awk -v r="$row" -v k="$round" -v n="$n" -v c="$cpu" -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%s\t%d\t%.1f\t%.1f\n", r, k, n / (b - a), c * 1e6 / n }' | tee -a "$SAMPLES" >&2
}

HL_ARGS=(bench "$URL" --cacert "$WORK/ca.pem" --conn new -c 50 -d "${DUR}s")
rows=(before after first-visit)
[[ -n $HAVE_HEY ]] && rows+=(hey)
[[ -n $HAVE_H2LOAD ]] && rows+=(h2load)
run_row() {
	case $1 in
	before) measure before "$WORK/hl-before" "${HL_ARGS[@]}" ;;
	after) measure after "$WORK/hl-after" "${HL_ARGS[@]}" ;;
	first-visit) measure first-visit "$WORK/hl-after" "${HL_ARGS[@]}" --first-visit ;;
	hey) measure hey hey -c 50 -z "${DUR}s" -disable-keepalive "$URL" ;;
	# h2load has no duration for reconnecting runs: a count near 3 s' worth.
	h2load) measure h2load h2load --h1 -t1 -c50 -n $((DUR * 1000)) -H "Connection: close" "$URL" ;;
	esac
}

[[ $ROWS == 1 ]] || ROUNDS=0
((ROUNDS == 0)) || echo "row	round	handshakes/s	client µs/handshake (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
for ((round = 1; round <= ROUNDS; round++)); do
	if ((round % 2)); then order=("${rows[@]}"); else order=(); for ((i = ${#rows[@]} - 1; i >= 0; i--)); do order+=("${rows[i]}"); done; fi
	for r in "${order[@]}"; do run_row "$r"; done
done

((ROUNDS == 0)) || {
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds of ${DUR} s, rows interleaved"
awk -F'\t' '
	function median(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ rate[$1, $2] = $3; us[$1, $2] = $4; seen[$1] = 1; if ($2 > rounds) rounds = $2 }
	END {
		printf "%-12s %14s %22s\n", "row", "handshakes/s", "client µs/handshake"
		split("before after first-visit hey h2load", order, " ")
		for (o = 1; o <= 5; o++) {
			r = order[o]; if (!(r in seen)) continue
			n = 0; for (k = 1; k <= rounds; k++) if ((r, k) in rate) { n++; x[n] = rate[r, k]; y[n] = us[r, k] }
			mr = median(x, n); mu = median(y, n)
			printf "%-12s %14.0f %22.0f   (median of %d)\n", r, mr, mu, n
		}
		print ""
		printf "%-24s %26s %26s\n", "ratio (per round)", "client µs/handshake", "handshakes/s"
		split("after/before after/hey after/h2load first-visit/before first-visit/hey", pairs, " ")
		for (p = 1; p <= 5; p++) {
			split(pairs[p], ab, "/"); a = ab[1]; b = ab[2]
			n = 0
			for (k = 1; k <= rounds; k++) if ((a, k) in rate && (b, k) in rate) { n++; c[n] = us[a, k] / us[b, k]; d[n] = rate[a, k] / rate[b, k] }
			if (n == 0) continue
			mc = median(c, n); lc = c[1]; hc = c[n]; md = median(d, n); ld = d[1]; hd = d[n]
			printf "%-24s %6.2f (range %.2f-%.2f) %6.2f (range %.2f-%.2f)\n", pairs[p], mc, lc, hc, md, ld, hd
		}
	}' "$SAMPLES"
}

[[ $BREAKDOWN == 1 ]] || exit 0

# floor prints "name cpu-µs/op" for each BenchmarkCryptoFloor case run.
floor() {
	(cd "$WORK" && $CLIENT_CPU ./load.test -test.run '^$' -test.bench "CryptoFloor/($1)\$" -test.benchtime 2000x) |
		awk '/^BenchmarkCryptoFloor/ { for (i = 1; i < NF; i++) if ($(i + 1) == "cpu-µs/op") { n = $1; sub(/^BenchmarkCryptoFloor\//, "", n); sub(/-[0-9]+$/, "", n); print n, $i } }'
}
echo
echo "breakdown: $HS_N full handshakes of BenchmarkFullHandshake (bench --conn new defaults, -c 20) under the CPU profiler" >&2
floor 'group=x25519|group=secp256r1|group=X25519MLKEM768|verify=ecdsa-p256' >"$WORK/floor1"
(cd "$WORK" && HTTPSLAB_HANDSHAKE_URL=$URL HTTPSLAB_HANDSHAKE_CA=$WORK/ca.pem $CLIENT_CPU ./load.test -test.run '^$' \
	-test.bench '^BenchmarkFullHandshake$' -test.benchtime "${HS_N}x" -test.cpuprofile "$WORK/cpu.out") >"$WORK/hs.out" 2>&1 ||
	{ cat "$WORK/hs.out" >&2; exit 1; }
floor 'group=x25519|group=secp256r1|group=X25519MLKEM768|verify=ecdsa-p256' >"$WORK/floor2"
GROUP=$(grep -o 'group=[^ ]*' "$WORK/hs.out" | tail -1 | cut -d= -f2)
read -r HS_CPU HS_BYTES HS_ALLOCS < <(awk '/^BenchmarkFullHandshake/ { for (i = 1; i < NF; i++) {
	if ($(i + 1) == "cpu-µs/handshake") c = $i; if ($(i + 1) == "B/op") b = $i; if ($(i + 1) == "allocs/op") a = $i }
	print c, b, a }' "$WORK/hs.out")
(cd "$WORK" && go tool pprof -traces load.test cpu.out 2>/dev/null) | awk -f "$ROOT/bench/handshake-parts.awk" >"$WORK/parts"
FLOOR_GROUP=$(cat "$WORK/floor1" "$WORK/floor2" | awk -v g="group=$GROUP" '$1 == g { s += $2; n++ } END { if (n) printf "%.1f", s / n }')
FLOOR_SIG=$(cat "$WORK/floor1" "$WORK/floor2" | awk '$1 == "verify=ecdsa-p256" { s += $2; n++ } END { if (n) printf "%.1f", s / n }')
FLOOR=$(awk -v a="$FLOOR_GROUP" -v b="$FLOOR_SIG" 'BEGIN { printf "%.1f", a + b }')
echo
echo "client CPU per full handshake, bench --conn new defaults (verification on, default groups; the key share"
echo "learned from the server: $GROUP), $HS_N handshakes on the client core; load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F'\t' -v n="$HS_N" -v cpu="$HS_CPU" '
	$1 == "total" { total = $2; next } { part[$1] = $2 }
	END {
		split("key share generation|shared secret|signature verification|chain verification (cached)|record layer|key schedule, transcript hash|rest: kernel, socket and connect|rest: kernel, writes|rest: kernel, reads|rest: kernel, close|rest: kernel, poller and wake-ups|rest: allocation and GC|rest: handshake messages|rest: certificate parsing|rest: scheduler|rest: other", order, "|")
		# The profile samples the CPU at 100 Hz; the parts are its shares
		# of the measured CPU time (getrusage), which it undercounts a little.
		printf "  %-40s %9s %7s\n", "part", "µs", "share"
		for (i = 1; i <= 16; i++) {
			s = (total > 0) ? part[order[i]] / total : 0
			printf "  %-40s %9.1f %6.1f%%\n", order[i], s * cpu, s * 100
		}
		printf "  %-40s %9.1f   (the profile saw %.1f µs per handshake)\n", "total (getrusage)", cpu, total / n * 1e6
	}' "$WORK/parts"
echo "allocations per handshake: $HS_ALLOCS ($HS_BYTES bytes)"
# The floor is measured in a hot loop; inside a handshake the same
# operations run with colder caches, which the line below shows.
awk -F'\t' -v n="$HS_N" -v cpu="$HS_CPU" -v fg="$FLOOR_GROUP" -v fs="$FLOOR_SIG" '
	$1 == "total" { total = $2 } { part[$1] = $2 }
	END { if (total == 0) exit
		kx = (part["key share generation"] + part["shared secret"]) / total * cpu; sig = part["signature verification"] / total * cpu
		printf "the floor'"'"'s operations inside the handshake: key exchange %.1f µs (%.2f × the hot loop), signature %.1f µs (%.2f ×)\n", kx, kx / fg, sig, sig / fs }' "$WORK/parts"
echo "crypto floor (BenchmarkCryptoFloor, thread CPU time, mean of before and after): $GROUP key generation and shared"
echo "secret $FLOOR_GROUP µs + one ECDSA P-256 verification $FLOOR_SIG µs = $FLOOR µs"
awk -v c="$HS_CPU" -v f="$FLOOR" 'BEGIN { r = c / f; printf "client CPU per handshake / crypto floor: %.2f  (target <= 2: %s)\n", r, r <= 2 ? "met" : "MISSED" }'
