#!/usr/bin/env bash
# probe-vs-curl.sh: checks httpslab probe's timings against curl's on the
# same private nginx. It starts nginx on free loopback ports (HTTP and
# HTTPS, a fresh self-signed ECDSA certificate), runs `httpslab probe -n N`
# and N curl transfers, each on a new connection, and prints the medians
# of curl's -w times for both and their ratio:
#
#   HTTP total
#   HTTPS total
#   HTTPS total without the handshake
#   TLS handshake
#
# On loopback these are shown, not gated: the totals are tens to hundreds
# of microseconds, a full handshake is the client's own CPU (OpenSSL 3.0's
# client handshake took 1.6 to 2 times as long as Go's crypto/tls in our
# runs), and a
# busy machine's scheduling alone moves such ratios by more than 25%.
# Then the same nginx configuration runs behind an emulated 20 ms link
# (`httpslab lab --rtt 20ms`, needs root), where the round trips, not the
# clients' CPU, make up the totals, as on a real network: there the HTTP
# total, the HTTPS total and the handshake must agree within 25%.
# It also fails when a -w variable that must be equal (codes, sizes,
# counts, URLs, the certificate check and curl's exit code, on success,
# redirects and failures) differs from curl's, or when
# `-w @curl-format.txt` (the format of the nginx upgrade study) leaves a
# variable unprinted.
#
# Usage: scripts/probe-vs-curl.sh [N]    (N defaults to 30; NO_LINK=1 skips
# the emulated-link part, e.g. when not root)
# Needs: go, nginx, curl, openssl, python3.
set -euo pipefail

n=${1:-30}
repo=$(cd "$(dirname "$0")/.." && pwd)
format="$repo/testdata/curl-format.txt"
dir=$(mktemp -d /tmp/httpslab-vs-curl.XXXXXX)
nginx_pid=""
lab_pid=""
cleanup() {
	if [[ -n $nginx_pid ]]; then kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; fi
	if [[ -n $lab_pid ]]; then kill "$lab_pid" 2>/dev/null || true; wait "$lab_pid" 2>/dev/null || true; fi
	rm -rf "$dir"
}
trap cleanup EXIT

for tool in go nginx curl openssl python3; do
	command -v "$tool" >/dev/null || { echo "probe-vs-curl: $tool is missing (apt-get install -y $tool)" >&2; exit 1; }
done

(cd "$repo" && go build -o "$dir/httpslab" ./cmd/httpslab)

# Two free ports: bind port 0 and read what the kernel picked.
read -r port plain_port < <(python3 -c 'import socket
ss=[socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	-subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
	-keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
mkdir -p "$dir/www" "$dir/tmp"
head -c 1024 /dev/zero > "$dir/www/1k.bin"
chmod 755 "$dir" "$dir/www" && chmod 644 "$dir/www/1k.bin" # nginx workers run as another user
# write_conf FILE: the nginx configuration, listening on $listen_host.
write_conf() {
	cat > "$1" <<CONF
daemon off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    gzip on;   # for --compressed only: neither client asks for it otherwise
    gzip_types application/octet-stream;
    gzip_min_length 0;
    client_body_temp_path $dir/tmp;
    proxy_temp_path $dir/tmp;
    fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp;
    scgi_temp_path $dir/tmp;
    server {
        listen ${listen_host:-127.0.0.1}:$port ssl http2;
        ssl_certificate $dir/cert.pem;
        ssl_certificate_key $dir/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        root $dir/www;
        location = /redirect { return 302 /1k.bin; }
    }
    server {
        listen ${listen_host:-127.0.0.1}:$plain_port;
        root $dir/www;
        location = /redirect { return 302 https://127.0.0.1:$port/1k.bin; }
    }
}
CONF
}
write_conf "$dir/nginx.conf"
nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" &
nginx_pid=$!
url="https://127.0.0.1:$port/1k.bin"
ready=""
for _ in $(seq 50); do
	curl -s -o /dev/null --cacert "$dir/cert.pem" "$url" && { ready=1; break; }
	sleep 0.1
done
[[ -n $ready ]] || { echo "probe-vs-curl: nginx did not answer on $url within 5 s:" >&2; cat "$dir/error.log" >&2; exit 1; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Each run prints "time_total time_connect time_appconnect". The two
# clients take turns in rounds of $per_round requests, so that a busy
# moment of the machine hits both alike.
wformat='%{time_total} %{time_connect} %{time_appconnect}\n'
rounds=5
per_round=$(( (n + rounds - 1) / rounds ))
# extra holds options both clients get (--resolve behind the link).
extra=()
probe_runs() { "$dir/httpslab" probe -n "$per_round" --http1.1 ${extra[@]+"${extra[@]}"} --cacert "$dir/cert.pem" -w "$wformat" "$1"; }
# One curl process for all N transfers, as httpslab does them in one
# process: curl then sets up its TLS context and CA store once, not inside
# every transfer's timing. "Connection: close" makes each transfer open a
# new connection and --no-sessionid keeps curl from resuming TLS sessions.
curl_runs() {
	local transfers=()
	for _ in $(seq "$per_round"); do transfers+=(-o /dev/null "$1"); done
	curl -s --http1.1 --no-sessionid -H 'Connection: close' ${extra[@]+"${extra[@]}"} --cacert "$dir/cert.pem" -w "$wformat" "${transfers[@]}"
}
# measure PLAIN_URL TLS_URL: fills p_plain, c_plain, p_tls and c_tls with
# the runs of both clients, interleaved in rounds.
measure() {
	p_plain="" c_plain="" p_tls="" c_tls=""
	for _ in $(seq "$rounds"); do
		p_plain+=$(probe_runs "$1")$'\n'
		c_plain+=$(curl_runs "$1")$'\n'
		p_tls+=$(probe_runs "$2")$'\n'
		c_tls+=$(curl_runs "$2")$'\n'
	done
	# Drop the empty lines the joins leave.
	p_plain=$(grep . <<<"$p_plain"); c_plain=$(grep . <<<"$c_plain")
	p_tls=$(grep . <<<"$p_tls"); c_tls=$(grep . <<<"$c_tls")
}
total() { awk '{ print $1 }' | median; }
handshake() { awk '{ print $3 - $2 }' | median; }
without_handshake() { awk '{ print $1 - ($3 > 0 ? $3 - $2 : 0) }' | median; }

status=0
# compare NAME PROBE CURL GATE: prints both medians and their ratio; with
# GATE=1 a ratio outside 0.75..1.25 fails the script.
compare() {
	local ratio
	ratio=$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", a / b }')
	printf '  %-34s httpslab %.6fs  curl %.6fs  ratio %s%s\n' "$1" "$2" "$3" "$ratio" "$([[ $4 == 1 ]] && echo "" || echo "  (not gated)")"
	if [[ $4 == 1 ]] && ! awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.25 * b || d <= 0.0001) }'; then
		echo "probe-vs-curl: $1: the medians differ by more than 25% and more than 0.1 ms" >&2
		status=1
	fi
}

measure "http://127.0.0.1:$plain_port/1k.bin" "$url"

echo "nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'), $((rounds * per_round)) new connections per client in $rounds interleaved rounds, medians of curl's -w times"
compare "HTTP total" "$(total <<<"$p_plain")" "$(total <<<"$c_plain")" 0
compare "HTTPS total" "$(total <<<"$p_tls")" "$(total <<<"$c_tls")" 0
compare "HTTPS total without the handshake" "$(without_handshake <<<"$p_tls")" "$(without_handshake <<<"$c_tls")" 0
compare "TLS handshake (client CPU differs)" "$(handshake <<<"$p_tls")" "$(handshake <<<"$c_tls")" 0

# The same comparison behind an emulated 20 ms link: nginx runs inside
# the lab's namespace, listening on all of its addresses; both clients
# reach it by name through --resolve, so the certificate still verifies.
if [[ ${NO_LINK:-0} != 1 ]]; then
	listen_host=0.0.0.0
	write_conf "$dir/nginx-link.conf"
	"$dir/httpslab" lab --rtt 20ms -- nginx -p "$dir" -c "$dir/nginx-link.conf" -e "$dir/error.log" 2>"$dir/lab.err" &
	lab_pid=$!
	ip=""
	for _ in $(seq 50); do
		ip=$(grep -o '198\.1[89]\.[0-9]*\.[0-9]*' "$dir/lab.err" | head -1 || true)
		[[ -n $ip ]] && curl -s -o /dev/null --resolve "localhost:$port:$ip" --cacert "$dir/cert.pem" "https://localhost:$port/1k.bin" && break
		sleep 0.1
	done
	[[ -n $ip ]] || { echo "probe-vs-curl: the emulated link did not come up:" >&2; cat "$dir/lab.err" >&2; exit 1; }
	extra=(--resolve "localhost:$port:$ip" --resolve "localhost:$plain_port:$ip")
	measure "http://localhost:$plain_port/1k.bin" "https://localhost:$port/1k.bin"
	echo "the same nginx behind an emulated 20 ms link ($ip), medians of curl's -w times"
	compare "HTTP total" "$(total <<<"$p_plain")" "$(total <<<"$c_plain")" 1
	compare "HTTPS total" "$(total <<<"$p_tls")" "$(total <<<"$c_tls")" 1
	compare "TLS handshake" "$(handshake <<<"$p_tls")" "$(handshake <<<"$c_tls")" 1
	kill "$lab_pid" 2>/dev/null || true
	wait "$lab_pid" 2>/dev/null || true
	lab_pid=""
fi

# The variables that must be equal, not just close: codes, sizes,
# counts, URLs, and what a failed transfer reports. probe sends curl's
# User-Agent here, so that the request sizes can be compared.
exact='%{http_code} %{response_code} %{http_version} %{scheme} %{size_download} %{size_header} %{size_request} %{size_upload} %{num_connects} %{num_redirects} %{num_headers} %{content_type} %{redirect_url} %{url_effective} %{ssl_verify_result} %{exitcode}\n'
agent="User-Agent: curl/$(curl --version | awk 'NR == 1 { print $2 }')"
refused=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
same() {
	local c p
	c=$(curl -s -o /dev/null -w "$exact" "$@" 2>/dev/null || true)
	p=$("$dir/httpslab" probe -s -o /dev/null -H "$agent" -w "$exact" "$@" 2>/dev/null || true)
	if [[ $c == "$p" ]]; then
		printf '  same     %s\n' "$*"
	else
		printf '  DIFFERENT %s\n    curl:     %s\n    httpslab: %s\n' "$*" "$c" "$p"
		status=1
	fi
}
echo "-w variables that must be equal, curl vs httpslab:"
same "http://127.0.0.1:$plain_port/1k.bin"
same --http1.1 --cacert "$dir/cert.pem" "$url"
same --cacert "$dir/cert.pem" "$url"
# Over HTTP/1.1: an HTTP/2 server that answers before the body went out
# makes curl's own size_upload vary between runs.
same --http1.1 --cacert "$dir/cert.pem" -d 'a=1&b=2' "https://127.0.0.1:$port/redirect"
same -L --cacert "$dir/cert.pem" "http://127.0.0.1:$plain_port/redirect"
same -L "http://127.0.0.1:$plain_port/redirect"
same --compressed --http1.1 --cacert "$dir/cert.pem" "$url"   # gzip, chunked
same --compressed --cacert "$dir/cert.pem" "$url"
same -k "$url"
same "$url"
same "http://127.0.0.1:$refused/"
same -f "http://127.0.0.1:$plain_port/missing"
same -L --max-redirs 0 --cacert "$dir/cert.pem" "https://127.0.0.1:$port/redirect"

out=$("$dir/httpslab" probe -w "@$format" -o /dev/null -s --cacert "$dir/cert.pem" "$url")
echo "$out"
vars=$(grep -c '%{' "$format")
printed=$(echo "$out" | grep -c ':  [^ ]')
if [[ $printed -ne $vars ]] || echo "$out" | grep -q '%{'; then
	echo "probe-vs-curl: -w @curl-format.txt printed $printed of $vars variable lines" >&2
	status=1
fi
exit $status
