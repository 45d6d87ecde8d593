#!/usr/bin/env bash
# seed003.sh: seed 003's tables (HTTP/1.1 against HTTP/2 on three pages),
# measured with httpslab page. Its three pages (360 images of 18.3 kB,
# 360 scripts of 33.1 kB, and 129 images of mixed sizes) are loaded over
# plain HTTP, HTTP/1.1 over TLS and HTTP/2 over TLS (and HTTP/3 on the
# embedded server), interleaved in a shuffled order, from two servers:
# the embedded one and Debian's nginx serving the same files (serve
# --write-site), each behind an emulated link of 40 ms and behind a 3G
# profile (1.6 Mbit/s down, 768 kbit/s up, 300 ms). For each server,
# link and page it prints the median load time per protocol with its 95%
# interval and the differences (TLS alone: http → h1, multiplexing:
# h1 → h2, QUIC: h2 → h3) with their intervals and p-values.
#
# Bounded to about ten minutes: behind 40 ms the full pages, N40 loads
# per protocol (5, as the seed); on 3G, where one full page takes 30 to
# 60 s, the same pages cut short (the first 36 images, 18 scripts, 13
# mixed images, the same files) and N3G loads (3).
#
# FULL3G=1 loads the full pages on 3G too, N3G loads (default then 5, as
# the seed). The link's rate bounds that run from below: the three pages
# are 26.5 MB, 140 s at 1.6 Mbit/s, for every protocol and round (the
# warm-up round included), so one server's three protocols take about 40
# minutes. PAGES, SERVERS and LINKS choose a part (default "images
# scripts mixed", "embedded nginx", "40ms 3g"); the script prints the
# time the link needs at least before it starts, and with MAXMIN=M
# refuses a run that needs more than M minutes.
#
# Needs root (the links), nginx, openssl and python3. With KEEP=DIR the
# JSON results are copied to DIR.
# Usage: [FULL3G=1] [PAGES=...] [SERVERS=...] [LINKS=...] [MAXMIN=M] scripts/seed003.sh [N40 [N3G]]
set -euo pipefail
full3g=${FULL3G:-}
n40=${1:-5}
n3g=${2:-3}
[ -n "$full3g" ] && n3g=${2:-5}
pages=${PAGES:-images scripts mixed}
servers=${SERVERS:-embedded nginx}
links=${LINKS:-40ms 3g}
case "$n40$n3g${MAXMIN:-0}" in *[!0-9]*) echo "usage: $0 [N40 [N3G]]" >&2; exit 2 ;; esac
for x in $pages; do case $x in images | scripts | mixed) ;; *) echo "PAGES: unknown page $x (want images, scripts, mixed)" >&2; exit 2 ;; esac; done
for x in $servers; do case $x in embedded | nginx) ;; *) echo "SERVERS: unknown server $x (want embedded, nginx)" >&2; exit 2 ;; esac; done
for x in $links; do case $x in 40ms | 3g) ;; *) echo "LINKS: unknown link $x (want 40ms, 3g)" >&2; exit 2 ;; esac; done

# The least time the 3G part takes: every page's bytes over 1.6 Mbit/s,
# for each protocol (4 on the embedded server, 3 on nginx) and round,
# the warm-up round included.
declare -A page_bytes=([images]=6588000 [scripts]=11916000 [mixed]=8009691)
[ -z "$full3g" ] && page_bytes=([images]=658800 [scripts]=595800 [mixed]=1125771)
if [[ " $links " == *" 3g "* ]]; then
	bytes=0
	for p in $pages; do bytes=$((bytes + page_bytes[$p])); done
	protos=0
	for x in $servers; do [ "$x" = embedded ] && protos=$((protos + 4)) || protos=$((protos + 3)); done
	least=$((bytes * 8 / 1600000 * protos * (n3g + 1) / 60))
	echo "the 3G part needs at least $least minutes of the link's time ($(((bytes + 50000) / 100000 / 10)).$(((bytes + 50000) / 100000 % 10)) MB of pages per protocol and round, $protos protocols, $((n3g + 1)) rounds)"
	if [ -n "${MAXMIN:-}" ] && [ "$least" -gt "$MAXMIN" ]; then
		echo "that is more than MAXMIN=$MAXMIN minutes: choose fewer PAGES, SERVERS or loads" >&2
		exit 2
	fi
fi
cd "$(dirname "$0")/.."
work=$(mktemp -d)
chmod 755 "$work" # nginx's workers read the site
lab_pid=""
cleanup() {
	if [ -n "$lab_pid" ]; then kill "$lab_pid" 2>/dev/null || true; wait "$lab_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/httpslab" ./cmd/httpslab
hl="$work/httpslab"

# The site, and its pages cut short for 3G: the first resources of each.
"$hl" serve --write-site "$work/site" >/dev/null
python3 - "$work/site/page" <<'EOF'
import sys
d = sys.argv[1]
for name, tag, keep in [("images", "<img ", 36), ("scripts", "<script ", 18), ("mixed", "<img ", 13)]:
    out, n = [], 0
    for line in open("%s/%s.html" % (d, name)):
        if line.startswith(tag):
            n += 1
            if n > keep:
                continue
        out.append(line)
    open("%s/%s-3g.html" % (d, name), "w").write("".join(out))
EOF
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=httpslab.test \
	-addext subjectAltName=DNS:httpslab.test -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
mkdir -p "$work/nginx"
cat >"$work/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 4096; }
http {
	include /etc/nginx/mime.types;
	access_log off;
	client_body_temp_path $work/nginx/body;
	proxy_temp_path $work/nginx/proxy;
	fastcgi_temp_path $work/nginx/fastcgi;
	uwsgi_temp_path $work/nginx/uwsgi;
	scgi_temp_path $work/nginx/scgi;
	keepalive_requests 10000;
	server {
		listen 8080;
		listen 8443 ssl http2;
		ssl_certificate $work/cert.pem;
		ssl_certificate_key $work/key.pem;
		root $work/site;
	}
}
EOF

declare -A embedded_path=(
	[images]="/page/images?n=360&size=18300" [scripts]="/page/scripts?n=360&size=33100" [mixed]="/page/mixed"
	[images-3g]="/page/images?n=36&size=18300" [scripts-3g]="/page/scripts?n=18&size=33100" [mixed-3g]="/page/mixed?n=13"
)

# embedded LINKNAME N LINKFLAGS...: the three pages from the embedded
# server behind the link, over http, h1, h2 and h3.
embedded() {
	local name=$1 n=$2 suffix=""
	shift 2
	[ "$name" = 3g ] && [ -z "$full3g" ] && suffix=-3g
	for p in $pages; do
		"$hl" page --protocols http,h1,h2,h3 -n "$n" --seed 3 --max-time 300 --path "${embedded_path[$p$suffix]}" --json "$@" \
			>"$work/embedded-$name-$p.json" 2>>"$work/errors.txt" || echo "embedded $name $p: $(tail -1 "$work/errors.txt")" >&2
	done
}

# nginx LINKNAME N LINKFLAGS...: the same from nginx run behind the link
# by httpslab lab, over http, h1 and h2 (nginx 1.22 has no HTTP/3).
nginx_run() {
	local name=$1 n=$2 suffix=""
	shift 2
	[ "$name" = 3g ] && [ -z "$full3g" ] && suffix=-3g
	rm -f "$work/ip"
	"$hl" lab "$@" -- sh -c "echo \$HTTPSLAB_SERVER_IP >$work/ip.tmp && mv $work/ip.tmp $work/ip && exec nginx -c $work/nginx.conf -g 'daemon off;'" \
		>"$work/lab.out" 2>&1 &
	lab_pid=$!
	for _ in $(seq 100); do [ -s "$work/ip" ] && break; sleep 0.1; done
	local ip
	ip=$(cat "$work/ip")
	sleep 1 # nginx listening
	for p in $pages; do
		"$hl" page "https://httpslab.test:8443/page/$p$suffix.html" --http-url "http://httpslab.test:8080/page/$p$suffix.html" \
			--resolve "httpslab.test:8443:$ip" --resolve "httpslab.test:8080:$ip" --cacert "$work/cert.pem" \
			--protocols http,h1,h2 -n "$n" --seed 3 --max-time 300 --json >"$work/nginx-$name-$p.json" 2>>"$work/errors.txt" ||
			echo "nginx $name $p: $(tail -1 "$work/errors.txt")" >&2
	done
	kill "$lab_pid" 2>/dev/null || true
	wait "$lab_pid" 2>/dev/null || true
	lab_pid=""
}

start=$(date +%s)
echo "seed 003 with httpslab page: load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; $(nginx -v 2>&1)"
for l in $links; do
	for x in $servers; do
		case $l-$x in
		40ms-embedded) embedded 40ms "$n40" --rtt 40ms ;;
		40ms-nginx) nginx_run 40ms "$n40" --rtt 40ms ;;
		3g-embedded) embedded 3g "$n3g" --profile 3g ;;
		3g-nginx) nginx_run 3g "$n3g" --profile 3g ;;
		esac
	done
done
echo "took $(($(date +%s) - start)) s; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$work"/*.json "$KEEP"/; fi

python3 - "$work" "$full3g" "$servers" "$links" "$pages" <<'EOF'
import json, os, sys
work, full3g = sys.argv[1], sys.argv[2]
servers, links, chosen = sys.argv[3].split(), sys.argv[4].split(), sys.argv[5].split()
pages = {"images": "360 × 18.3 kB images", "scripts": "360 × 33.1 kB scripts", "mixed": "129 mixed images",
         "images-3g": "36 × 18.3 kB images", "scripts-3g": "18 × 33.1 kB scripts", "mixed-3g": "13 mixed images"}
def fmt(x):
    return "%.0f" % x if abs(x) >= 100 else "%.1f" % x
for server in servers:
    for link, title in (("40ms", "behind 40 ms"), ("3g", "on 3G (1.6 Mbit/s, 300 ms)")):
        if link not in links:
            continue
        print("\n%s, %s: median load time in ms [95%% interval, or the range below 6 loads], n loads each" % (server, title))
        rows = []
        for p in chosen:
            f = os.path.join(work, "%s-%s-%s.json" % (server, link, p))
            try:
                res = json.load(open(f))["result"]
            except Exception as e:
                print("  %s: no result (%s)" % (p, e))
                continue
            label = pages[p + ("-3g" if link == "3g" and not full3g else "")]
            cells, failed = [], []
            for pr in res["protocols"]:
                s = pr["load_ms"]
                if s.get("n", 0) == 0:
                    cells.append("%s -" % pr["protocol"])
                    continue
                if s.get("ci_level"):
                    ci = "[%s, %s]" % (fmt(s["ci_lo"]), fmt(s["ci_hi"]))
                else:
                    # Below 6 loads no pair of order statistics covers the
                    # median with 95%: the range does with 1 - 2^(1-n).
                    ci = "[%s, %s] (range, %.1f%%)" % (fmt(s["min"]), fmt(s["max"]), 100 * (1 - 2 ** (1 - s["n"])))
                cells.append("%s %s %s n=%d" % (pr["protocol"], fmt(s["median"]), ci, s["n"]))
                if pr.get("failed"):
                    # A load time with failed resources is not the page's:
                    # said next to the number, never left out.
                    failed.append("%s: %d of %d requests of the median load FAILED" % (pr["protocol"], pr["failed"], pr["requests"]))
            diffs = []
            for d in res["differences"]:
                x = d["diff"]
                mark = "" if x["significant"] else "~"
                iv = " [%+.0f, %+.0f]" % (x["ci_lo_ms"], x["ci_hi_ms"]) if x.get("ci_level") else ""
                diffs.append("%s (%s→%s) %s%+.0f%s p=%.3f" % (d["name"], d["from"], d["to"], mark, x["ms"], iv, x["p"]))
            print("  %s\n    %s\n    %s" % (label, " | ".join(cells), "; ".join(diffs)))
            if failed:
                print("    " + "; ".join(failed) + " (their load times are not the page's)")
EOF
