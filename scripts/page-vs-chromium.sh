#!/usr/bin/env bash
# page-vs-chromium.sh: how well httpslab page's own engine agrees with a
# real browser. Seed 003's three pages (/page/images?n=360&size=18300,
# /page/scripts?n=360&size=33100, /page/mixed) are loaded from the
# embedded server behind an emulated link, over HTTP/1.1 and HTTP/2,
# N times each (interleaved) by httpslab's engine and by headless
# Chromium (--engine chromium), on two links: 40 ms alone, and 40 ms at
# 20 Mbit/s. For each page and protocol it prints both medians, the
# ratio Chromium / httpslab (the target: within 15%, 0.85 to 1.15) and
# Chromium's DOMContentLoaded. While the pages load, a prober opens a
# TCP connection to the server every 200 ms and prints the connect times
# it saw: the round trip the link delivered during the runs (the link's
# forwarder shares the machine with the browser).
#
# Needs root (the link), Debian's chromium and python3. With KEEP=DIR the
# JSON results and the probes' round trips are copied to DIR.
# Usage: scripts/page-vs-chromium.sh [N]   (N loads per protocol, default 3)
set -euo pipefail
n=${1:-3}
case $n in '' | *[!0-9]*) echo "usage: $0 [N]" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
work=$(mktemp -d)
serve_pid=""
probe_pid=""
cleanup() {
	[ -n "$probe_pid" ] && kill "$probe_pid" 2>/dev/null || true
	[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/httpslab" ./cmd/httpslab

pages=("/page/images?n=360&size=18300" "/page/scripts?n=360&size=33100" "/page/mixed")

# probe HOST PORT OUT: a TCP connect every 200 ms until killed, each
# connect time in ms on a line of OUT.
probe() {
	python3 - "$1" "$2" "$3" <<'EOF' &
import socket, sys, time
host, port, out = sys.argv[1], int(sys.argv[2]), open(sys.argv[3], "w", buffering=1)
for _ in range(20000):
    t = time.monotonic()
    try:
        socket.create_connection((host, port), timeout=5).close()
        out.write("%.2f\n" % ((time.monotonic() - t) * 1000))
    except OSError:
        pass
    time.sleep(0.2)
EOF
	probe_pid=$!
}

run_link() { # name, link flags...
	local name=$1
	shift
	"$work/httpslab" serve "$@" >"$work/serve.out" 2>&1 &
	serve_pid=$!
	for _ in $(seq 100); do grep -q "CA certificate" "$work/serve.out" && break; sleep 0.1; done
	local https ca http
	https=$(grep -m1 '^https://' "$work/serve.out")
	http=$(grep -m1 '^http://' "$work/serve.out")
	ca=$(sed -n 's/.*CA certificate: \([^;)]*\).*/\1/p' "$work/serve.out")
	hostport=${http#http://}
	probe "${hostport%:*}" "${hostport##*:}" "$work/rtt-$name.txt"
	for p in "${pages[@]}"; do
		for engine in httpslab chromium; do
			"$work/httpslab" page "$https$p" --cacert "$ca" --engine "$engine" --protocols h1,h2 -n "$n" --seed 3 --json \
				>"$work/$name-$engine-$(printf %s "$p" | tr -c 'a-z0-9' '_').json" 2>>"$work/errors.txt" || echo "httpslab page $engine $p failed: $(tail -1 "$work/errors.txt")" >&2
		done
	done
	kill "$probe_pid" 2>/dev/null || true
	probe_pid=""
	kill "$serve_pid" && wait "$serve_pid" 2>/dev/null || true
	serve_pid=""
}

echo "page-vs-chromium: $n loads per protocol and engine; load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; $(chromium --version 2>/dev/null | head -1)"
run_link rtt40 --rtt 40ms
run_link rtt40-20mbit --rtt 40ms --bandwidth 20mbit
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$work"/*.json "$work"/rtt-*.txt "$KEEP"/; fi

python3 - "$work" "${pages[@]}" <<'EOF'
import json, os, statistics, sys
work, pages = sys.argv[1], sys.argv[2:]
def load(name, engine, page):
    f = os.path.join(work, "%s-%s-%s.json" % (name, engine, "".join(c if c in "abcdefghijklmnopqrstuvwxyz0123456789" else "_" for c in page)))
    try:
        return {p["protocol"]: p for p in json.load(open(f))["result"]["protocols"]}
    except Exception:
        return {}
for name, title in [("rtt40", "40 ms"), ("rtt40-20mbit", "40 ms, 20 Mbit/s")]:
    print("\nlink %s: median load time in ms (n per cell), Chromium / httpslab, Chromium's DOMContentLoaded" % title)
    print("%-32s %-5s %14s %14s %7s %6s %9s" % ("page", "proto", "httpslab", "chromium", "ratio", "<=15%", "DCL"))
    for page in pages:
        own, br = load(name, "httpslab", page), load(name, "chromium", page)
        for proto in ("h1", "h2"):
            o, b = own.get(proto, {}), br.get(proto, {})
            om, bm = o.get("load_ms", {}).get("median"), b.get("load_ms", {}).get("median")
            dcl = b.get("median_load", {}) and b["median_load"].get("dom_content_loaded_ns", 0) / 1e6
            if om and bm:
                r = bm / om
                print("%-32s %-5s %9.0f (%d) %9.0f (%d) %7.2f %6s %9.0f" % (page, proto, om, o["load_ms"]["n"], bm, b["load_ms"]["n"], r, "yes" if 0.85 <= r <= 1.15 else "no", dcl or 0))
            else:
                print("%-32s %-5s %14s %14s" % (page, proto, om or "-", bm or "-"))
    try:
        rtts = sorted(float(l) for l in open(os.path.join(work, "rtt-%s.txt" % name)) if l.strip())
        q = lambda p: rtts[min(int(p * len(rtts)), len(rtts) - 1)]
        print("round trip the link delivered during these loads (TCP connect every 200 ms, %d connects): median %.1f ms, p90 %.1f, max %.1f; %d above 60 ms"
              % (len(rtts), q(0.5), q(0.9), rtts[-1], sum(r > 60 for r in rtts)))
    except Exception as e:
        print("no round-trip probes:", e)
EOF
