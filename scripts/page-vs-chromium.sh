#!/usr/bin/env bash
# page-vs-chromium.sh: how well httpslab page's own engine agrees with a
# real browser. Seed 003's three pages (/page/images?n=360&size=18300,
# /page/scripts?n=360&size=33100, /page/mixed) are loaded from the
# embedded server behind an emulated link, over HTTP/1.1 and HTTP/2,
# N times each (interleaved) by headless Chromium (--engine chromium),
# by httpslab's engine, and by httpslab's engine with the browser's
# processing modelled (--response-cost, --response-cost-per-mb,
# --response-delay), on two links: 40 ms alone, and 40 ms at 20 Mbit/s.
#
# The model's three durations are measured on other pages first, where
# the browser's time is its own work: the processing time per response
# (--response-cost) over HTTP/2 on 360 images of 1 kB (the network takes
# a few round trips), as (Chromium's median - httpslab's median) /
# requests; the processing time per MB of body (--response-cost-per-mb)
# over HTTP/2 on 24 images of 300 kB (7.2 MB in few responses), as
# (Chromium's median - the median of httpslab with that cost) / MB; and
# the delay of each response's hand-offs (--response-delay) over HTTP/1.1
# on the 360 images of 1 kB, as (Chromium's median - the median of
# httpslab with both costs) / rounds of six requests. Chromium's own
# network events show why one queue models both costs: its load event
# comes a few ms after the last response completed in its network
# service (Network.loadingFinished), and that completion, not the
# scripts' execution in the renderer (under 3 ms each, in document
# order as they come), lags the network: the network service reads,
# decrypts and hands on every response and its bytes on one thread, on
# cores it shares with the renderer. They are measured again after the
# pages, to show how much they drifted while the pages loaded (the
# machine's other load changes them).
#
# For each page and protocol it prints the medians of the three, the
# ratio Chromium / httpslab without and with the model (the target:
# within 15%, 0.85 to 1.15), the CPU the browser's processes took per
# load and how many cores that kept busy over its load time, and its
# DOMContentLoaded. While the pages load, a prober opens a TCP
# connection to the server every 200 ms and prints the connect times it
# saw: the round trip the link delivered during the runs (the link's
# forwarder shares the machine with the browser).
#
# Needs root (the link), Debian's chromium and python3. With KEEP=DIR the
# JSON results and the probes' round trips are copied to DIR; LINKS
# chooses the links (default "rtt40 rtt40-20mbit").
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
calibration="/page/images?n=360&size=1000"
calibration_mb="/page/images?n=24&size=300000"
links=${LINKS:-rtt40 rtt40-20mbit}

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

# slug PATH: a page's part of a result file's name.
slug() { printf %s "$1" | tr -c 'a-z0-9' '_'; }

# calibrate NAME WHEN: measures the modelled browser's three durations
# on the calibration pages and prints them as "COST PERMB DELAY", as
# --response-cost, --response-cost-per-mb and --response-delay take them
# (0s where Chromium was not slower). The cost: Chromium's median over
# HTTP/2 minus httpslab's, per request. The cost per MB: on the page of
# large images, Chromium's median over HTTP/2 minus that of httpslab with
# the cost modelled, per MB of the bodies. The delay: Chromium's median
# over HTTP/1.1 minus that of httpslab with both costs modelled, per
# round of requests on its six connections (a request's hand-offs lie on
# its connection's path).
calibrate() {
	local b="$work/$1-chromium-cal$2.json" o="$work/$1-httpslab-cal$2.json" m="$work/$1-model-cal$2.json" cost permb
	local bb="$work/$1-chromium-calmb$2.json" ob="$work/$1-model-calmb$2.json"
	"$work/httpslab" page "$https$calibration" --cacert "$ca" --engine chromium --protocols h1,h2 -n "$n" --seed 3 --json \
		>"$b" 2>>"$work/errors.txt" || echo "httpslab page chromium $calibration failed: $(tail -1 "$work/errors.txt")" >&2
	"$work/httpslab" page "$https$calibration" --cacert "$ca" --http2 -n "$n" --seed 3 --json \
		>"$o" 2>>"$work/errors.txt" || echo "httpslab page $calibration failed: $(tail -1 "$work/errors.txt")" >&2
	cost=$(python3 - "$b" "$o" <<'EOF'
import json, sys
try:
    b, o = ({p["protocol"]: p for p in json.load(open(f))["result"]["protocols"]}["h2"] for f in sys.argv[1:])
    print("%dus" % max(round((b["load_ms"]["median"] - o["load_ms"]["median"]) / o["requests"] * 1000), 0))
except Exception:
    print("0s")
EOF
)
	"$work/httpslab" page "$https$calibration_mb" --cacert "$ca" --engine chromium --http2 -n "$n" --seed 3 --json \
		>"$bb" 2>>"$work/errors.txt" || echo "httpslab page chromium $calibration_mb failed: $(tail -1 "$work/errors.txt")" >&2
	"$work/httpslab" page "$https$calibration_mb" --cacert "$ca" --http2 --response-cost "$cost" -n "$n" --seed 3 --json \
		>"$ob" 2>>"$work/errors.txt" || echo "httpslab page --response-cost $calibration_mb failed: $(tail -1 "$work/errors.txt")" >&2
	permb=$(python3 - "$bb" "$ob" <<'EOF'
import json, sys
try:
    b, o = (json.load(open(f))["result"]["protocols"][0] for f in sys.argv[1:])
    mb = sum(r["body_bytes"] for r in o["median_load"]["requests"]) / 1e6
    print("%dus" % max(round((b["load_ms"]["median"] - o["load_ms"]["median"]) / mb * 1000), 0))
except Exception:
    print("0s")
EOF
)
	"$work/httpslab" page "$https$calibration" --cacert "$ca" --http1.1 --response-cost "$cost" --response-cost-per-mb "$permb" -n "$n" --seed 3 --json \
		>"$m" 2>>"$work/errors.txt" || echo "httpslab page --response-cost $calibration failed: $(tail -1 "$work/errors.txt")" >&2
	python3 - "$b" "$m" "$cost" "$permb" <<'EOF'
import json, sys
try:
    b, m = ({p["protocol"]: p for p in json.load(open(f))["result"]["protocols"]}["h1"] for f in sys.argv[1:3])
    rounds = m["requests"] / 6
    print("%s %s %dus" % (sys.argv[3], sys.argv[4], max(round((b["load_ms"]["median"] - m["load_ms"]["median"]) / rounds * 1000), 0)))
except Exception:
    print("%s %s 0s" % (sys.argv[3], sys.argv[4]))
EOF
}

run_link() { # name, link flags...
	local name=$1 model
	shift
	"$work/httpslab" serve "$@" >"$work/serve.out" 2>&1 &
	serve_pid=$!
	for _ in $(seq 100); do grep -q "CA certificate" "$work/serve.out" && break; sleep 0.1; done
	local http
	https=$(grep -m1 '^https://' "$work/serve.out")
	http=$(grep -m1 '^http://' "$work/serve.out")
	ca=$(sed -n 's/.*CA certificate: \([^;)]*\).*/\1/p' "$work/serve.out")
	hostport=${http#http://}
	probe "${hostport%:*}" "${hostport##*:}" "$work/rtt-$name.txt"
	read -r -a model <<<"$(calibrate "$name" 1)"
	echo "$name: the modelled browser, measured on $calibration and $calibration_mb: --response-cost ${model[0]} --response-cost-per-mb ${model[1]} --response-delay ${model[2]}" >&2
	for p in "${pages[@]}"; do
		for engine in chromium httpslab model; do
			local flags=(--engine "$engine")
			[ "$engine" = model ] && flags=(--response-cost "${model[0]}" --response-cost-per-mb "${model[1]}" --response-delay "${model[2]}")
			"$work/httpslab" page "$https$p" --cacert "$ca" "${flags[@]}" --protocols h1,h2 -n "$n" --seed 3 --json \
				>"$work/$name-$engine-$(slug "$p").json" 2>>"$work/errors.txt" || echo "httpslab page $engine $p failed: $(tail -1 "$work/errors.txt")" >&2
		done
	done
	calibrate "$name" 2 >/dev/null
	kill "$probe_pid" 2>/dev/null || true
	probe_pid=""
	kill "$serve_pid" && wait "$serve_pid" 2>/dev/null || true
	serve_pid=""
}

https="" ca=""
echo "page-vs-chromium: $n loads per protocol and engine; load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; $(chromium --version 2>/dev/null | head -1)"
for l in $links; do
	case $l in
	rtt40) run_link rtt40 --rtt 40ms ;;
	rtt40-20mbit) run_link rtt40-20mbit --rtt 40ms --bandwidth 20mbit ;;
	*) echo "LINKS: unknown link $l (want rtt40, rtt40-20mbit)" >&2; exit 2 ;;
	esac
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$work"/*.json "$work"/rtt-*.txt "$KEEP"/; fi

python3 - "$work" "$calibration" "$calibration_mb" "$links" "${pages[@]}" <<'EOF'
import json, os, sys
work, calibration, calibration_mb, links, pages = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), sys.argv[5:]
slug = lambda p: "".join(c if c in "abcdefghijklmnopqrstuvwxyz0123456789" else "_" for c in p)
def load(f):
    try:
        res = json.load(open(os.path.join(work, f)))["result"]
        return res, {p["protocol"]: p for p in res["protocols"]}
    except Exception:
        return {}, {}
def med(p):
    return p.get("load_ms", {}).get("median") if p else None
def cell(x, p):
    return "%5.0f (%d)" % (x, p["load_ms"]["n"]) if x else "%10s" % "-"
titles = {"rtt40": "40 ms", "rtt40-20mbit": "40 ms, 20 Mbit/s"}
for name in links:
    print("\nlink %s: median load time in ms (n per cell); Chromium / httpslab without and with the model; the browser's CPU per load (cores busy)" % titles[name])
    for when in ("1", "2"):
        b = load("%s-chromium-cal%s.json" % (name, when))[1]
        o = load("%s-httpslab-cal%s.json" % (name, when))[1].get("h2")
        m = load("%s-model-cal%s.json" % (name, when))[1].get("h1")
        b1, b2 = b.get("h1"), b.get("h2")
        if med(b2) and med(o):
            cpu = b2.get("browser_cpu_ns", 0) / 1e6
            cost = (med(b2) - med(o)) / o["requests"]
            print("  %s %s: h2 Chromium %.0f ms, httpslab %.0f ms, %d requests: cost %.2f ms per response; the browser's CPU %.0f ms (%.1f cores)"
                  % ("calibration " if when == "1" else "again after", calibration, med(b2), med(o), o["requests"], cost, cpu, cpu / med(b2)))
        bb = load("%s-chromium-calmb%s.json" % (name, when))[1].get("h2")
        ob = load("%s-model-calmb%s.json" % (name, when))[1].get("h2")
        if med(bb) and med(ob):
            mb = sum(r["body_bytes"] for r in ob["median_load"]["requests"]) / 1e6
            print("  %s h2 Chromium %.0f ms, httpslab with that cost %.0f ms, %.1f MB: %.1f ms per MB; the browser's CPU %.0f ms"
                  % (calibration_mb.rjust(len("calibration ") + len(calibration)), med(bb), med(ob), mb, (med(bb) - med(ob)) / mb, bb.get("browser_cpu_ns", 0) / 1e6))
        if med(b1) and med(m):
            print("  %s h1 Chromium %.0f ms, httpslab with both costs %.0f ms: delay %.2f ms per round of six requests"
                  % (" " * (len("calibration ") + len(calibration)), med(b1), med(m), (med(b1) - med(m)) / (m["requests"] / 6)))
    res = load("%s-model-%s.json" % (name, slug(pages[0])))[0]
    print("  model: --response-cost %.2f ms --response-cost-per-mb %.1f ms --response-delay %.2f ms\n" % (res.get("response_cost_ns", 0) / 1e6, res.get("response_cost_per_mb_ns", 0) / 1e6, res.get("response_delay_ns", 0) / 1e6))
    print("%-32s %-5s %10s %10s %10s %6s %6s %6s %14s %6s" % ("page", "proto", "httpslab", "model", "chromium", "ratio", "model", "<=15%", "browser CPU", "DCL"))
    for page in pages:
        own = load("%s-httpslab-%s.json" % (name, slug(page)))[1]
        mod = load("%s-model-%s.json" % (name, slug(page)))[1]
        br = load("%s-chromium-%s.json" % (name, slug(page)))[1]
        for proto in ("h1", "h2"):
            o, m, b = own.get(proto), mod.get(proto), br.get(proto)
            om, mm, bm = med(o), med(m), med(b)
            r = "%6.2f" % (bm / om) if bm and om else "%6s" % "-"
            rm = "%6.2f" % (bm / mm) if bm and mm else "%6s" % "-"
            ok = ("yes" if 0.85 <= bm / mm <= 1.15 else "no") if bm and mm else "-"
            cpu = b.get("browser_cpu_ns", 0) / 1e6 if b else 0
            cores = "%5.0f (%.1f)" % (cpu, cpu / bm) if cpu and bm else "-"
            dcl = b["median_load"].get("dom_content_loaded_ns", 0) / 1e6 if b and b.get("median_load") else 0
            print("%-32s %-5s %s %s %s %s %s %6s %14s %6.0f" % (page, proto, cell(om, o), cell(mm, m), cell(bm, b), r, rm, ok, cores, dcl))
    try:
        rtts = sorted(float(l) for l in open(os.path.join(work, "rtt-%s.txt" % name)) if l.strip())
        q = lambda p: rtts[min(int(p * len(rtts)), len(rtts) - 1)]
        print("round trip the link delivered during these loads (TCP connect every 200 ms, %d connects): median %.1f ms, p90 %.1f, max %.1f; %d above 60 ms"
              % (len(rtts), q(0.5), q(0.9), rtts[-1], sum(r > 60 for r in rtts)))
    except Exception as e:
        print("no round-trip probes:", e)
EOF
