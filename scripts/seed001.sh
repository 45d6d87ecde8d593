#!/usr/bin/env bash
# seed001.sh: seed 001 (an nginx SSL tuning study with ab -c 100 and
# openssl s_time) reproduced with httpslab experiment, on Debian's nginx
# behind an emulated link, in four experiments:
#
#   1. a 1.9 MB download (1,895,420 bytes, the seed's file) under
#      bench -c 100 -n 100 over TLS 1.2 with an RSA-2048 certificate, as
#      the seed's ab: nginx's defaults against the seed's "tuned" SSL
#      directives (its session cache, cipher list, server cipher order,
#      tickets, ssl_buffer_size 1460, tcp_nodelay and
#      proxy_ssl_session_reuse, OCSP stapling from a file, HSTS; tickets,
#      tcp_nodelay and proxy_ssl_session_reuse are nginx's defaults
#      already), behind 20 ms and 100 Mbit/s, the link the bottleneck as
#      the seed's network was (and slow enough for a busy 2-core machine
#      to keep up with): does "no improvement" hold, within what interval?
#   2. the same directives under bench --conn resume (every request a
#      new connection resuming an earlier session: handshake bound) at
#      20 ms, with a third variant that keeps the session cache and turns
#      tickets off: whether the resumption directives change anything,
#      and why not where they do not; then, on one nginx of that third
#      setting on loopback, who resumes by session ID (openssl s_client)
#      and who does not (httpslab's Go client under TLS 1.2).
#   3. ECDSA P-256 against RSA-2048 under bench --conn new (every request
#      a full TLS 1.3 handshake) at 20 ms: full handshakes per second,
#      handshake time and the server's CPU per handshake.
#   4. ssl_buffer_size 16k (nginx's default) against 1460 on a 100 KB page
#      loaded cold over HTTP/1.1 and TLS 1.3 at 100 ms and 10 Mbit/s: the
#      document's time to first byte and the page's load time.
#
# Each experiment runs its variants in BLOCKS randomised blocks (a fresh
# nginx for every run) and prints its verdict table; a short summary
# follows each. About 11 minutes at the default of 10 blocks on 2 cores
# (part 1, whose every run moves 190 MB through the link, takes 6 to 8 of
# them; each part starts no block past its --max-time, 8 or 3 minutes);
# BLOCKS=3 checks the script in about 3, and PARTS picks experiments.
#
# Needs root (the emulated link), nginx, openssl, python3 and go.
# Usage: scripts/seed001.sh [BLOCKS [PARTS]]   (PARTS: digits of the
# experiments to run, default 1234). With KEEP=DIR the texts are copied
# to DIR.
set -euo pipefail
blocks=${1:-10}
parts=${2:-1234}
case "$blocks" in '' | *[!0-9]*) echo "usage: $0 [BLOCKS [PARTS]]" >&2; exit 2 ;; esac
case "$parts" in '' | *[!1-4]*) echo "usage: $0 [BLOCKS [PARTS]]   (PARTS: digits 1 to 4)" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/httpslab-seed001.XXXXXX)
chmod 755 "$tmp" # nginx's workers read the files
nginx_pid=""
cleanup() {
	if [ -n "$nginx_pid" ]; then kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/httpslab" ./cmd/httpslab
hl="$tmp/httpslab"

# Certificates: a CA, an RSA-2048 and an ECDSA P-256 leaf for localhost,
# and an OCSP response for each (ssl_stapling_file staples it without a
# responder on the network).
cd "$tmp"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=seed001-ca \
	-addext basicConstraints=critical,CA:true -addext keyUsage=keyCertSign,cRLSign \
	-keyout ca.key -out ca.pem 2>/dev/null
printf 'subjectAltName=DNS:localhost\nauthorityInfoAccess=OCSP;URI:http://ocsp.invalid/\n' >leaf.ext
: >index.txt
echo 'unique_subject = no' >index.txt.attr
for leaf in rsa ec; do
	case $leaf in
	rsa) key=(-newkey rsa:2048) ;;
	ec) key=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1) ;;
	esac
	openssl req -new "${key[@]}" -nodes -subj /CN=localhost -keyout $leaf.key -out $leaf.csr 2>/dev/null
	openssl x509 -req -in $leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile leaf.ext \
		-out $leaf.pem 2>/dev/null
	printf 'V\t%s\t\t%s\tunknown\t/CN=localhost\n' \
		"$(date -u -d "$(openssl x509 -in $leaf.pem -noout -enddate | cut -d= -f2)" +%y%m%d%H%M%SZ)" \
		"$(openssl x509 -in $leaf.pem -noout -serial | cut -d= -f2)" >>index.txt
done
for leaf in rsa ec; do
	openssl ocsp -index index.txt -CA ca.pem -rsigner ca.pem -rkey ca.key -issuer ca.pem -cert $leaf.pem \
		-ndays 2 -respout $leaf.ocsp >/dev/null 2>&1
done

# The files: the seed's download, a 100 KB page (no sub-resources) and
# a small index for the handshake-bound runs.
mkdir www
head -c 1895420 /dev/urandom >www/seed.bin
python3 - >www/page100k.html <<'EOF'
print("<!doctype html><html><head><title>100 KB</title></head><body>")
n = 0
while n < 100_000:
    line = "<p>%06d The quick brown fox jumps over the lazy dog, again and again.</p>\n" % n
    print(line, end="")
    n += len(line)
print("</body></html>")
EOF
printf '<!doctype html><title>seed 001</title>ok\n' >www/index.html

cat >nginx.conf <<EOF
worker_processes 1;
events { worker_connections 1024; }
http {
    include /etc/nginx/mime.types;
    access_log off;
    server {
        listen 8443 ssl;
        server_name localhost;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_certificate rsa.pem;
        ssl_certificate_key rsa.key;
        root $tmp/www;
    }
}
EOF

# The seed's tuned set: its test parameters (ssl_buffer_size 1460) and
# the OCSP block of its final configuration.
tuned=$(
	cat <<'EOF'
name = "seed's tuned set"
[variant.set]
proxy_ssl_session_reuse = "on"
ssl_session_cache = "shared:SSL:50m"
ssl_ciphers = "ALL:!DH:!EXPORT:!RC4:+HIGH:+MEDIUM:!LOW:!aNULL:!eNULL"
ssl_prefer_server_ciphers = "on"
ssl_session_tickets = "on"
ssl_buffer_size = "1460"
tcp_nodelay = "on"
ssl_stapling = "on"
ssl_stapling_verify = "on"
ssl_trusted_certificate = "ca.pem"
ssl_stapling_file = "rsa.ocsp"
add_header = 'Strict-Transport-Security "max-age=31536000"'
EOF
)
cat >part1.toml <<EOF
nginx = "nginx.conf"
measure = ["bench", "-c", "100", "-n", "100", "--tls-max", "1.2", "https://localhost:8443/seed.bin", "--cacert", "$tmp/ca.pem"]

[[variant]]
$tuned
EOF
cat >part2.toml <<EOF
nginx = "nginx.conf"
measure = ["bench", "--conn", "resume", "-c", "10", "-d", "2s", "--tls-max", "1.2", "https://localhost:8443/", "--cacert", "$tmp/ca.pem"]

[[variant]]
$tuned

[[variant]]
name = "session cache, no tickets"
set = { ssl_session_cache = "shared:SSL:50m", ssl_session_tickets = "off" }
EOF
cat >part3.toml <<EOF
nginx = "nginx.conf"
measure = ["bench", "--conn", "new", "-c", "8", "-d", "2s", "https://localhost:8443/", "--cacert", "$tmp/ca.pem"]

[baseline]
ssl_certificate = "rsa.pem"
ssl_certificate_key = "rsa.key"

[[variant]]
name = "ECDSA P-256"
set = { ssl_certificate = "ec.pem", ssl_certificate_key = "ec.key" }
EOF
cd - >/dev/null

# experiment PART TITLE ARGS...: one experiment, its text kept for the
# summary.
experiment() {
	local part=$1 title=$2
	shift 2
	echo
	echo "== $part. $title"
	local t0=$SECONDS
	if ! "$hl" experiment -n "$blocks" --seed 1 "$@" | tee "$tmp/part$part.txt"; then
		echo "experiment $part failed" >&2
	fi
	echo "($((SECONDS - t0)) s)"
}

# summary PART: the verdicts of the part's table, one line each, read
# from the text report's columns.
summary() {
	python3 - "$tmp/part$1.txt" "$1" <<'EOF'
import re, sys
text, part = open(sys.argv[1]).read(), sys.argv[2]
rows, status = {}, {}
for line in text.splitlines():
    cells = re.split(r"\s{2,}", line.strip())
    if len(cells) == 8 and cells[0] != "variant":
        rows[(cells[0], cells[1])] = cells
    elif len(cells) == 3 and cells[1] in ("baseline", "verified", "unverified", "not live", "failed", "obsolete"):
        status[cells[0]] = (cells[1], cells[2])
blocks = re.search(r"^(\d+ of \d+ blocks)", text, re.M)
print("summary %s (%s):" % (part, blocks.group(1) if blocks else "no blocks"))
for name, (st, ev) in status.items():
    if st != "baseline":
        print("  %s: %s (%s)" % (name, st, ev))
def say(variant, metric, what=""):
    r = rows.get((variant, metric))
    if r is None:
        print("  %s, %s: no verdict" % (variant, metric))
        return
    change = "~ (no significant change)" if r[4] == "~" else r[4]
    what = " (%s)" % what if what else ""
    print("  %s, %s%s: %s → %s, %s, 95%% CI %s, p %s" % (variant, metric, what, r[2], r[3], change, r[5], r[6]))
tuned = "seed's tuned set"
if part == "1":
    say(tuned, "requests/s", "downloads per second")
    say(tuned, "latency p50", "download time")
    say(tuned, "server CPU/request", "nginx's CPU per download")
    rps, lat, cpu = (rows.get((tuned, m)) for m in ("requests/s", "latency p50", "server CPU/request"))
    if rps and lat:
        better = rps[4].startswith("+") or lat[4].startswith("-")
        worse = rps[4].startswith("-") or lat[4].startswith("+")
        verdict = "does not hold: the tuned set is faster" if better else \
            "holds, and the tuned set is slower" if worse else "holds: no significant change"
        print("  the seed's \"no improvement\" %s; downloads per second %s (95%% CI %s), median download time %s (95%% CI %s)%s"
              % (verdict, rps[4], rps[5], lat[4], lat[5],
                 ", nginx's CPU per download %s (95%% CI %s)" % (cpu[4], cpu[5]) if cpu else ""))
elif part == "2":
    for v in (tuned, "session cache, no tickets"):
        say(v, "resumed handshakes")
        say(v, "handshake p50")
        say(v, "requests/s")
        say(v, "server CPU/request")
    share = lambda v, i: rows.get((v, "resumed handshakes"), [None] * 4)[i]
    base, t, cache = share(tuned, 2), share(tuned, 3), share("session cache, no tickets", 3)
    print("  resumed handshakes: %s with nginx's defaults, %s with the tuned set, %s with the cache and no tickets" % (base, t, cache))
    if base and t and cache and float(base[:-1]) > 90 and float(t[:-1]) > 90 and float(cache[:-1]) < 10:
        print("  the tuned set's session cache and tickets change nothing here: nginx's default (tickets on)")
        print("  already resumes every session; without tickets the cache resumes none, as this client")
        print("  (Go's crypto/tls) resumes TLS 1.2 by ticket only, never by session ID")
elif part == "3":
    v = next(iter(k for k in status if status[k][0] != "baseline"), "")
    say(v, "requests/s", "full handshakes per second")
    say(v, "handshake p50")
    say(v, "server CPU/request", "nginx's CPU per full handshake")
    r = rows.get((v, "server CPU/request"))
    if r:
        for label, cell in (("RSA-2048", r[2]), ("ECDSA P-256", r[3])):
            us = float(cell.split()[0].replace(",", ""))
            print("  %s: one core of nginx would hold about %.0f full handshakes per second" % (label, 1e6 / us))
elif part == "4":
    v = next(iter(k for k in status if status[k][0] != "baseline"), "")
    say(v, "ttfb p50", "the document's time to first byte")
    say(v, "load p50", "the page's load time")
EOF
}

# cache_only: why the session cache without tickets resumes nothing for
# bench under TLS 1.2, on one nginx of that setting on loopback: OpenSSL's
# client resumes by session ID (as openssl s_time, the seed's tool, does),
# Go's client under TLS 1.2 only by ticket, and under TLS 1.3 OpenSSL
# hands out tickets of its own from the cache.
cache_only() {
	local port dir=$tmp/cache-only
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	mkdir -p "$dir"
	cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    server {
        listen 127.0.0.1:$port ssl;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_certificate $tmp/rsa.pem;
        ssl_certificate_key $tmp/rsa.key;
        ssl_session_cache shared:SSL:50m;
        ssl_session_tickets off;
        root $tmp/www;
    }
}
EOF
	nginx -c "$dir/nginx.conf" -g 'daemon off;' &
	nginx_pid=$!
	for _ in $(seq 50); do
		if (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null; then break; fi
		sleep 0.1
	done
	local reused
	reused=$(echo | timeout 20 openssl s_client -connect "127.0.0.1:$port" -servername localhost -tls1_2 -no_ticket \
		-reconnect 2>/dev/null | grep -c '^Reused' || true)
	echo "why not, measured on one nginx with the session cache and tickets off (loopback):"
	echo "  openssl s_client -tls1_2 -no_ticket -reconnect: $reused of 5 reconnections resumed by session ID"
	for v in 1.2 1.3; do
		echo "  httpslab bench --conn resume --tls-max $v -n 50: $("$hl" bench --conn resume -c 1 -n 50 --tls-max $v \
			"https://localhost:$port/" --resolve "localhost:$port:127.0.0.1" --cacert "$tmp/ca.pem" | grep -o '([0-9]* full, [0-9]* resumed)')"
	done
	kill "$nginx_pid"
	wait "$nginx_pid" 2>/dev/null || true
	nginx_pid=""
}

start=$SECONDS
echo "seed 001 with httpslab experiment: $blocks blocks per experiment; $(nginx -v 2>&1); load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
for part in $(grep -o . <<<"$parts"); do
	case $part in
	1)
		experiment 1 "a 1.9 MB download, bench -c 100, nginx's defaults against the seed's tuned set" \
			--rtt 20ms --bandwidth 100mbit --max-time 8m --file "$tmp/part1.toml"
		;;
	2)
		experiment 2 "handshake bound (bench --conn resume, TLS 1.2): the same, and a session cache without tickets" \
			--rtt 20ms --max-time 3m --file "$tmp/part2.toml"
		summary 2
		cache_only
		continue
		;;
	3)
		experiment 3 "RSA-2048 against ECDSA P-256, every request a full TLS 1.3 handshake (bench --conn new)" \
			--rtt 20ms --max-time 3m --file "$tmp/part3.toml"
		;;
	4)
		experiment 4 "ssl_buffer_size 16k against 1460, a 100 KB page loaded cold at 100 ms and 10 Mbit/s" \
			--rtt 100ms --bandwidth 10mbit --max-time 3m --nginx "$tmp/nginx.conf" --vary 'ssl_buffer_size=16k|1460' \
			-- page --protocols h1 -n 3 https://localhost:8443/page100k.html --cacert "$tmp/ca.pem"
		;;
	esac
	summary "$part"
done
echo
echo "took $((SECONDS - start)) s; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$tmp"/part*.txt "$KEEP"/; fi
