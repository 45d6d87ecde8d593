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
# Environment: DUR seconds per measurement (default 3), ROUNDS (default 5),
# BEFORE the revision to compare with (default: the one before the run-wide
# certificate verification cache).
# Run from the repository root: bash bench/handshake-cost.sh
set -euo pipefail

DUR=${DUR:-3}
ROUNDS=${ROUNDS:-5}
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

echo "building httpslab at $BEFORE and at the working tree" >&2
mkdir -p "$WORK/before"
git -C "$ROOT" archive "$BEFORE" | tar -x -C "$WORK/before"
(cd "$WORK/before" && go build -o "$WORK/hl-before" ./cmd/httpslab)
(cd "$ROOT" && go build -o "$WORK/hl-after" ./cmd/httpslab)

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
	*) n=$(grep -m1 -o '"requests": [0-9]*' "$out" | awk '{print $2}') ;;
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

HL_ARGS=(bench "$URL" --cacert "$WORK/ca.pem" --conn new -c 50 -d "${DUR}s" --json)
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

echo "row	round	handshakes/s	client µs/handshake (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
for ((round = 1; round <= ROUNDS; round++)); do
	if ((round % 2)); then order=("${rows[@]}"); else order=(); for ((i = ${#rows[@]} - 1; i >= 0; i--)); do order+=("${rows[i]}"); done; fi
	for r in "${order[@]}"; do run_row "$r"; done
done

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
