#!/usr/bin/env bash
# seed003-directives.sh: seed 003's nginx directives one at a time. The
# seed set 25 directives at once (tcp_nopush, gzip_comp_level 9,
# http2_chunk_size 200k, ssl_session_cache, ...) and compared five loads
# before and after, so no single directive's effect could be known. Here
# httpslab experiment runs Debian's nginx over HTTP/2 and TLS behind an
# emulated 40 ms link, serving the seed's pages (serve --write-site), in
# these variants:
#   baseline     the seed's nginx.conf before its changes (listen ssl
#                http2, an RSA 2048 certificate as the seed's, keepalive
#                65 s, one worker), every seed directive at nginx's
#                default: each --vary's first value is empty, the template
#                as it is
#   25 variants  the baseline plus one seed directive each
#   all at once  the baseline plus all 25, as the seed measured
# Each run is a fresh nginx; the measurement is one cold page load over
# HTTP/2 (httpslab page --http2 -n 1) after a warm-up load, and the
# variants run in a new random order in each block. Variants that nginx
# 1.22 no longer knows come out "obsolete" with nginx's message and are
# not measured, directives a client cannot see "unverified", and a change
# that shows no difference from outside "not live" (not measured).
#
# Design and budget: BLOCKS blocks (default 13) of every measured variant
# on each page of PAGES (default scripts: the 360 scripts of 33.1 kB,
# where the seed saw its change; images and mixed are the seed's other
# two pages), then, on the scripts page, a second experiment of the same
# blocks: the seed's gzip and gzip_types together, all 25 at once, and all
# but the three gzip directives. On nginx 1.22, 4 directives are obsolete
# and 4 not live (their value is nginx's default, or gzip_comp_level with
# gzip off), so a block runs 19 variants: the baseline, 17 directives and
# all at once, each a fresh nginx, a warm-up load and a measured load,
# 35 to 55 s on a 2-core machine whose other work kept 1.6 cores busy.
# There the default took about 13 minutes and all three pages with the
# second experiment (13 scripts,images,mixed) 25 minutes.
# Holm's correction spans the 18 variants' 4 metrics that can differ (72
# comparisons; connections per load is 1 in every HTTP/2 load and is left
# out): with 13 blocks the signed-rank test's smallest p, 2/2^13 =
# 0.00024, is 0.018 after it, so a change is significant only when all 13
# blocks, or all but the closest, agree.
# Each experiment's report states its own.
#
# Needs root (the link), nginx and openssl. With KEEP=DIR each page's
# HTML report is copied to DIR.
# Usage: scripts/seed003-directives.sh [BLOCKS [PAGES]]
set -euo pipefail
blocks=${1:-13}
pages=${2:-scripts}
case "$blocks" in '' | *[!0-9]*) echo "usage: $0 [BLOCKS [PAGES]]  (PAGES: a comma list of images, scripts, mixed)" >&2; exit 2 ;; esac
for p in ${pages//,/ }; do
	case "$p" in images | scripts | mixed) ;; *) echo "$0: page $p: want images, scripts or mixed" >&2; exit 2 ;; esac
done
cd "$(dirname "$0")/.."
work=$(mktemp -d)
chmod 755 "$work" # nginx's workers read the site
trap 'rm -rf "$work"' EXIT
go build -o "$work/httpslab" ./cmd/httpslab
hl="$work/httpslab"
"$hl" serve --write-site "$work/site" >/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -addext subjectAltName=DNS:localhost \
	-keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
openssl rand 48 >"$work/ticket.key"

# The seed's nginx.conf before its changes, on a private port.
cat >"$work/nginx.conf" <<EOF
worker_processes 1;
events { worker_connections 1024; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    keepalive_timeout 65;
    server {
        listen 8443 ssl http2;
        server_name localhost;
        ssl_certificate cert.pem;
        ssl_certificate_key key.pem;
        root $work/site;
    }
}
EOF

# The seed's directives, as it set them (ssl_session_ticket_key: a key
# of 48 random bytes, as its openssl rand 48). Each is absent from the
# baseline (the empty first value).
varies=(
	'worker_rlimit_nofile=|2048'
	'accept_mutex_delay=|100ms'
	'sendfile=|on'
	'tcp_nopush=|on'
	'tcp_nodelay=|on'
	'open_file_cache=|max=1000 inactive=20s'
	'gzip=|on'
	'gzip_comp_level=|9'
	'gzip_types=|text/css text/plain text/js text/javascript application/javascript application/jron-rpc'
	'ssl=|on'
	'ssl_prefer_server_ciphers=|on'
	'ssl_protocols=|TLSv1 TLSv1.1 TLSv1.2'
	'ssl_ciphers=|ECDHE+RSAGCM:ECDH+AESGCM:DH+AESGCM:ECDH+AES256:DH+AES256:ECDH+AES128:DH+AES:!EXPORT:!DES:!3DES:!MD5:!DSS'
	'ssl_session_tickets=|on'
	'ssl_session_ticket_key=|ticket.key'
	'ssl_session_cache=|shared:SSL:10m'
	'ssl_session_timeout=|10m'
	'http2_max_concurrent_streams=|64'
	'http2_streams_index_size=|64'
	'http2_idle_timeout=|30s'
	'http2_recv_timeout=|3m'
	'http2_chunk_size=|200k'
	'http2_max_field_size=|4096'
	'http2_max_header_size=|16384'
	'http2_pool_size=|8192'
)
args=()
for v in "${varies[@]}"; do args+=(--vary "$v"); done

declare -A title=([images]="360 images of 18.3 kB" [scripts]="360 scripts of 33.1 kB" [mixed]="129 images of mixed sizes")
start=$(date +%s)
echo "seed 003's directives one at a time, with httpslab experiment and page"
echo "design: ${#varies[@]} directives, one variant each and all at once, against the template without them;"
echo "  $blocks blocks per page, variants in a new random order in each block, a fresh nginx per run;"
echo "  each run one cold HTTP/2 page load after a warm-up load; pages: $pages; link: 40 ms RTT;"
awk -v n="$blocks" 'BEGIN { p = 2 / 2^n; printf "  smallest p of %d blocks: %.2g; after Holm over 72 comparisons: %.2g (each report says its own)\n", n, p, p * 72 }'
echo "$(nginx -v 2>&1); load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
seed=3
for p in ${pages//,/ }; do
	echo
	echo "== page $p: ${title[$p]} =="
	"$hl" experiment --rtt 40ms --nginx "$work/nginx.conf" "${args[@]}" --all-at-once -n "$blocks" --seed "$seed" \
		--html "$work/$p.html" -- page --http2 -n 1 "https://localhost:8443/page/$p.html" --cacert "$work/cert.pem" \
		2>"$work/$p.err" || echo "experiment on $p failed: $(tail -3 "$work/$p.err")"
	seed=$((seed + 1))
done

# One at a time cannot see an interaction: gzip_types names the scripts'
# type but does nothing while gzip is off, and gzip on alone compresses
# the HTML only. On the scripts page, the seed's two gzip directives
# together, all 25 and all but the three gzip ones, against the same
# baseline, say whether compression is the whole of the seed's change.
if [[ ",$pages," == *,scripts,* ]]; then
	toml_set() { # the seed's directives as a TOML inline table, but those named
		local out="" v name
		for v in "${varies[@]}"; do
			name=${v%%=*}
			[[ " $* " == *" $name "* ]] && continue
			out+="${out:+, }$name = \"${v#*=|}\""
		done
		echo "{ $out }"
	}
	not_gzip=()
	for v in "${varies[@]}"; do case "$v" in gzip=* | gzip_types=*) ;; *) not_gzip+=("${v%%=*}") ;; esac; done
	cat >"$work/gzip.toml" <<EOF
nginx = "nginx.conf"
measure = ["page", "--http2", "-n", "1", "https://localhost:8443/page/scripts.html", "--cacert", "$work/cert.pem"]
blocks = $blocks
seed = $seed

[[variant]]
name = "gzip on, gzip_types as the seed's"
set = $(toml_set "${not_gzip[@]}")

[[variant]]
name = "all at once"
set = $(toml_set)

[[variant]]
name = "all at once but gzip, gzip_comp_level, gzip_types"
set = $(toml_set gzip gzip_comp_level gzip_types)
EOF
	echo
	echo "== page scripts: the seed's gzip directives together, all at once, and all but them =="
	"$hl" experiment --rtt 40ms --file "$work/gzip.toml" --html "$work/scripts-gzip.html" 2>"$work/gzip.err" ||
		echo "experiment on the gzip directives failed: $(tail -3 "$work/gzip.err")"
fi
echo
echo "took $(($(date +%s) - start)) s; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$work"/*.html "$KEEP"/; fi
