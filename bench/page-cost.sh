#!/usr/bin/env bash
# page-cost.sh measures what httpslab page itself costs: client CPU per
# resource and peak memory for loads of a 360-resource page over HTTP/2
# on loopback (the targets: under 0.3 ms of CPU per resource, under
# 64 MiB).
#
# The server is 'httpslab serve' in a process of its own, so that the
# client's numbers are the client's alone. The client loads
# /page/images?n=360&size=18300 (361 requests: the document and 360
# images of 18.3 kB) LOADS times after one warm-up load, each on a new
# connection. Two CPU figures:
#   - per load: the median process CPU time of one load, as page reports
#     it (user + system, from getrusage around each load), over the
#     load's requests;
#   - whole process: user + system time from /usr/bin/time for the whole
#     client run (start-up, TLS setup and the warm-up load included) over
#     all requests made.
# Peak memory is the client's maximum resident set size (/usr/bin/time).
#
# Usage: bench/page-cost.sh [LOADS]   (default 20)
set -euo pipefail
loads=${1:-20}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'kill "$srv" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/httpslab" ./cmd/httpslab
"$work/httpslab" serve --ca-out "$work/ca.pem" --no-http3 >"$work/urls" 2>"$work/serve.err" &
srv=$!
for _ in $(seq 100); do
	[ -s "$work/urls" ] && grep -q '^https://' "$work/urls" && break
	sleep 0.1
done
https=$(grep '^https://' "$work/urls" | head -1)
[ -n "$https" ] || { echo "page-cost: the server did not start" >&2; cat "$work/serve.err" >&2; exit 1; }
url="$https/page/images?n=360&size=18300"

/usr/bin/time -v -o "$work/time" "$work/httpslab" page "$url" --http2 --cacert "$work/ca.pem" -n "$loads" --json >"$work/page.json"

python3 - "$work/page.json" "$work/time" "$loads" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))["result"]["protocols"][0]
t = open(sys.argv[2]).read()
loads = int(sys.argv[3])
user = float(re.search(r"User time \(seconds\): ([\d.]+)", t).group(1))
sys_ = float(re.search(r"System time \(seconds\): ([\d.]+)", t).group(1))
rss_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
reqs = doc["requests"]
per_load_ms = doc["cpu_ns"] / 1e6
whole_ms = (user + sys_) * 1000 / ((loads + 1) * reqs)
print(f"page: {doc['protocol']}, {reqs:.0f} requests per load, {doc['connections']:.0f} connection, {loads} loads + 1 warm-up")
print(f"load time: median {doc['load_ms']['median']:.1f} ms")
print(f"client CPU per resource, per load (median):  {per_load_ms / reqs:.3f} ms  (target < 0.3)")
print(f"client CPU per resource, whole process:      {whole_ms:.3f} ms  ({user + sys_:.2f} s user+system)")
print(f"client peak RSS: {rss_kib / 1024:.1f} MiB  (target < 64)")
PY
