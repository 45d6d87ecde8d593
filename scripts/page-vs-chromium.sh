#!/usr/bin/env bash
# page-vs-chromium.sh: how well httpslab page's own engine agrees with a
# real browser. Seed 003's three pages (/page/images?n=360&size=18300,
# /page/scripts?n=360&size=33100, /page/mixed) are loaded from the
# embedded server behind an emulated link, over HTTP/1.1 and HTTP/2,
# N times each by headless Chromium (--engine chromium), by httpslab's
# engine, and by httpslab's engine with the browser modelled (its tight
# mode at the start, --tight-limit 2 --tight-until --tight-burst-cost;
# its processing, --response-cost, --response-cost-per-mb,
# --response-delay), on two links: 40 ms alone, and 40 ms at 20 Mbit/s.
#
# The model's five durations are measured from Chromium on other pages,
# where the browser's time is its own work: how long its tight mode and
# the burst of requests released at its end hold the requests, over
# HTTP/2 on 360 images of 1 kB (358 held) and on 24 images of 300 kB (22
# held), on each as the median over a load's images of the time from the
# document's end to the end of the image's send (when Chromium wrote
# its request), the median over the rounds: the
# cost per held request (--tight-burst-cost) as their difference per
# held request, the rest (--tight-until) as the small page's less that
# cost per held request; the processing time per response
# (--response-cost) over HTTP/2 on the 360 images of 1 kB (the network
# takes a few round trips), as (Chromium's median - the median of
# httpslab with that tight mode) / requests; the processing time per MB of body
# (--response-cost-per-mb) over HTTP/2 on 24 images of 300 kB (7.2 MB in
# few responses), as (Chromium's median - the median of httpslab with
# the tight mode and that cost) / MB; and the delay of each response's
# hand-offs (--response-delay) over HTTP/1.1 on the 360 images of 1 kB,
# as (Chromium's median - the median of httpslab with the tight mode and
# both costs) / rounds of six requests, each then fitted on the model
# (see fit below): the model does a response's work as its headers and
# bytes arrive, beside the network, so the margin per unit falls short.
# Chromium's own network events show why one queue models both costs:
# its load event comes a few ms after the last response completed in
# its network service (Network.loadingFinished), and that completion,
# not the scripts' execution in the renderer (under 3 ms each, in
# document order as they come), lags the network: the network service
# reads, decrypts and hands on every response and its bytes on one
# thread, on cores it shares with the renderer, and takes in a
# response's headers only once it has done with what came before
# (over HTTP/2 at 40 ms the headers of the 360 images of 1 kB reached it
# 1.3 to 1.9 ms apart, the middle 80% of them, where the model's wire
# brought them 0.44 ms apart).
#
# That work follows the machine's other load, which can change within
# minutes (on two shared cores the cost per MB has halved within one
# run). So each page has its own calibration, measured beside its loads:
# for each of N rounds, Chromium loads the calibration pages (1 kB images
# over HTTP/1.1 and HTTP/2, 300 kB images over HTTP/2) and the page
# (HTTP/1.1 and HTTP/2), and httpslab's engine the page (HTTP/1.1 and
# HTTP/2), one load of each, in a shuffled order; Chromium's medians for
# the calibration and for the page thus come from the same minutes. Then
# httpslab's engine with the durations measured so far loads the
# calibration pages N times (for the cost per response, per MB, then for
# the delay, each until it fits), and the page N times per protocol with
# all four. The report gives each page's durations with their inputs,
# each round's value (from that round's Chromium load), the steps of
# each fit, and how they drifted from page to page. Every load is its own run (-n 1 --warmup 0, each
# round's protocols in another order); one unmeasured load per engine
# warms the server and the link up first.
#
# For each page and protocol it prints the medians of the three, the
# ratio Chromium / httpslab without and with the model (the target:
# within 15%, 0.85 to 1.15), the CPU the browser's processes took per
# load and how many cores that kept busy over its load time, and its
# DOMContentLoaded. While the pages load, a prober opens a TCP
# connection to the server every 200 ms and prints the connect times it
# saw: the round trip the link delivered during the runs (the link's
# forwarder shares the machine with the browser). N=5 takes about
# 30 minutes on two cores, N=3 about 20.
#
# Needs root (the link), Debian's chromium and python3. With KEEP=DIR the
# JSON results and the probes' round trips are copied to DIR; LINKS
# chooses the links (default "rtt40 rtt40-20mbit"); SEED fixes the
# shuffled orders (default 3).
# Usage: scripts/page-vs-chromium.sh [N]   (N loads per protocol, default 3)
set -euo pipefail
n=${1:-3}
case $n in '' | *[!0-9]* | 0) echo "usage: $0 [N]" >&2; exit 2 ;; esac
seed=${SEED:-3}
case $seed in '' | *[!0-9]*) echo "SEED: want a number" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
start=$(date +%s)
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

# The results' arithmetic, shared by the calibration and the report. A
# run is the JSON of one httpslab page; a pattern's runs (its files,
# e.g. the rounds' single loads) are merged per protocol: every load
# time, their median, and the details (requests, the browser's CPU,
# bytes, DOMContentLoaded) of the run whose median load is the middle
# one.
cat >"$work/results.py" <<'EOF'
import glob, json, re, statistics

calibration_pages = ("/page/images?n=360&size=1000", "/page/images?n=24&size=300000")

def _round(f):
    m = re.search(r"-r(\d+)\.json$", f)
    return int(m.group(1)) if m else 0

def runs(pattern):
    out = []
    for f in sorted(glob.glob(pattern), key=_round):
        try:
            out.append({p["protocol"]: p for p in json.load(open(f))["result"]["protocols"]})
        except Exception:
            pass
    return out

def merged(pattern, proto):
    """The loads of proto in the runs of pattern, or None."""
    ps = [r[proto] for r in runs(pattern) if proto in r and r[proto].get("loads_ms")]
    if not ps:
        return None
    loads = [x for p in ps for x in p["loads_ms"]]
    mid = sorted(ps, key=lambda p: p["load_ms"]["median"])[(len(ps) - 1) // 2]
    body = sum(r["body_bytes"] for r in mid["median_load"]["requests"]) if mid.get("median_load") else 0
    return {"median": statistics.median(loads), "n": len(loads), "loads": [p["loads_ms"] for p in ps],
            "requests": statistics.median(p["requests"] for p in ps), "mb": body / 1e6,
            "cpu": statistics.median(p.get("browser_cpu_ns", 0) for p in ps) / 1e6,
            "dcl": (mid.get("median_load") or {}).get("dom_content_loaded_ns", 0) / 1e6}

def model(pattern):
    """The model's durations of the first run of pattern, in ms."""
    for f in sorted(glob.glob(pattern)):
        try:
            r = json.load(open(f))["result"]
            return [r.get(k, 0) / 1e6 for k in ("tight_until_ns", "tight_burst_cost_ns", "response_cost_ns", "response_cost_per_mb_ns", "response_delay_ns")]
        except Exception:
            pass
    return None

def held(pattern, proto):
    """Per run of pattern, the median over its median load's
    low-priority requests (images and the like) of the time from the
    document's end to the end of the request's send, in ms: how long the
    browser's tight mode and the burst of requests it releases held them;
    and the number of requests it held (all but the two it let through).
    The end, not the start: Chromium's send starts as its network service
    takes the request, and ends when the request is written, which for
    the requests of a burst is once it has taken most of them; the
    model's send, a write, takes no time."""
    out = []
    for r in runs(pattern):
        ld = (r.get(proto) or {}).get("median_load")
        if not ld or not ld.get("requests"):
            continue
        doc = ld["requests"][0]["end_ns"]
        sends = [(ph["start_ns"] + ph["duration_ns"] - doc) / 1e6 for q in ld["requests"][1:] if q["kind"] in ("image", "other")
                 for ph in q["phases"] if ph["name"] == "send"]
        if sends:
            out.append((statistics.median(sends), len(sends) - 2))
    return out

def tight(work, tag):
    """The tight mode's durations of page tag in ms, from Chromium's
    hold on the two calibration pages over HTTP/2, which hold 358 and 22
    requests: the cost per held request S from the difference of their
    medians, and the time T the hold takes besides. None when a page's
    loads failed."""
    f = lambda what: "%s/%s-%s.json" % (work, tag, what)
    big, small = held(f("chromium-cal-r*"), "h2"), held(f("chromium-calmb-r*"), "h2")
    if not big or not small:
        return None, None, big, small
    tb, nb = statistics.median(x for x, _ in big), statistics.median(n for _, n in big)
    ts, ns = statistics.median(x for x, _ in small), statistics.median(n for _, n in small)
    per = max((tb - ts) / (nb - ns), 0) if nb > ns else 0
    return max(ts - per * ns, 0), per, big, small

def calibration(work, tag):
    """The durations of page tag's calibration in ms, as lines of
    (name, value, unit, inputs, per-round values); a value is None when
    its loads failed."""
    f = lambda what: "%s/%s-%s.json" % (work, tag, what)
    b1, b2, o = merged(f("chromium-cal-r*"), "h1"), merged(f("chromium-cal-r*"), "h2"), merged(f("model-calt"), "h2")
    bb, ob, m = merged(f("chromium-calmb-r*"), "h2"), merged(f("model-calmb"), "h2"), merged(f("model-cal"), "h1")
    out = []
    t, per, big, small = tight(work, tag)
    rounds = lambda xs: ["%.0f (%d)" % x for x in xs]
    out.append(("T", t, "ms after the document", "h2 Chromium, the median end of the held images' sends after the document's end, less S per held one", rounds(small)))
    out.append(("S", per, "ms per held request", "h2 Chromium, the difference of those medians on %s and %s per held request" % (calibration_pages[0], calibration_pages[1]), rounds(big)))
    if b2 and o:
        per = lambda x: (x - o["median"]) / o["requests"]
        out.append(("C", per(b2["median"]), "ms per response", "h2 Chromium %.0f ms, httpslab with T %.0f ms, %d requests; the browser's CPU %.0f ms (%.1f cores)"
                    % (b2["median"], o["median"], o["requests"], b2["cpu"], b2["cpu"] / b2["median"]), [per(x) for l in b2["loads"] for x in l]))
    else:
        out.append(("C", None, "ms per response", "no loads", []))
    if bb and ob and ob["mb"]:
        per = lambda x: (x - ob["median"]) / ob["mb"]
        out.append(("B", per(bb["median"]), "ms per MB", "h2 Chromium %.0f ms, httpslab with T and C %.0f ms, %.1f MB; the browser's CPU %.0f ms"
                    % (bb["median"], ob["median"], ob["mb"], bb["cpu"]), [per(x) for l in bb["loads"] for x in l]))
    else:
        out.append(("B", None, "ms per MB", "no loads", []))
    if b1 and m:
        per = lambda x: (x - m["median"]) / (m["requests"] / 6)
        out.append(("D", per(b1["median"]), "ms per round of six requests", "h1 Chromium %.0f ms, httpslab with T, C and B %.0f ms"
                    % (b1["median"], m["median"]), [per(x) for l in b1["loads"] for x in l]))
    else:
        out.append(("D", None, "ms per round of six requests", "no loads", []))
    return out
EOF

# fit.py WORK CHROMIUM PROTO MODEL VALUE PER NAME STEPS: one step of fit
# (below): prints the next value ("NNNus"), "done", or "stop NNNus" (the
# value to keep), and the step (name, value in ms, the model's median,
# Chromium's) on stderr. STEPS is the file of the steps so far.
cat >"$work/fit.py" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
from results import merged
chromium, proto, model, value, per, name, steps = sys.argv[2:]
v = float(value[:-2]) / 1000 if value.endswith("us") else 0.0
b, m = merged(chromium, proto), merged(model, proto)
if not b or not m:
    sys.stderr.write("%s %.3f - -\n" % (name, v))
    print("done")
    sys.exit()
before = [x for x in (l.split() for l in open(steps)) if len(x) == 4 and x[0] == name and x[2] != "-"] if os.path.exists(steps) else []
sys.stderr.write("%s %.3f %.0f %.0f\n" % (name, v, m["median"], b["median"]))
div = {"requests": m["requests"], "mb": m["mb"], "rounds": m["requests"] / 6}[per]
gap = b["median"] - m["median"]
if not div or abs(gap) <= 0.02 * b["median"]:
    print("done")
elif before and float(before[-1][1]) != v and (m["median"] - float(before[-1][2])) / (v - float(before[-1][1])) < 0.25 * div:
    # The step moved the model by less than a quarter of what it asked:
    # the network, not the modelled browser, paces this page (at 20
    # Mbit/s the link brings the bytes slower than any B here handles
    # them), so the value cannot be fitted; the first one is kept.
    print("stop %dus" % round(float(before[0][1]) * 1000))
else:
    print("%dus" % round(max(v + gap / div, 0) * 1000))
EOF

# duration WORK TAG NAME: the calibration's duration NAME (C, B or D) of
# page TAG as its flag takes it ("0s" where Chromium was not slower or a
# load failed).
duration() {
	python3 - "$@" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from results import calibration
v = {c[0]: c[1] for c in calibration(*sys.argv[1:3])}.get(sys.argv[3])
print("%dus" % max(round(v * 1000), 0) if v is not None else "0s")
EOF
}

# load FILE URL FLAGS...: one run of httpslab page, its JSON in FILE.
load() {
	local f=$1 u=$2
	shift 2
	"$work/httpslab" page "$https$u" --cacert "$ca" --seed "$run_seed" "$@" --json >"$f" 2>>"$work/errors.txt" ||
		echo "httpslab page $u $* failed: $(tail -1 "$work/errors.txt")" >&2
}

# run_page LINK PAGE: the page's rounds with the calibration's Chromium
# loads, then the model's loads with the durations they gave.
run_page() {
	local tag="$1-$(slug "$2")" p=$2 r job cost permb delay
	local one=(-n 1 --warmup 0)
	for r in $(seq "$n"); do
		run_seed=$((seed * 1000 + r))
		for job in $(python3 -c 'import random, sys; a = sys.argv[2:]; random.Random(sys.argv[1]).shuffle(a); print(*a)' \
			"$run_seed-$tag" chromium-cal chromium-calmb chromium-page httpslab-page); do
			case $job in
			chromium-cal) load "$work/$tag-$job-r$r.json" "$calibration" --engine chromium --protocols h1,h2 "${one[@]}" ;;
			chromium-calmb) load "$work/$tag-$job-r$r.json" "$calibration_mb" --engine chromium --http2 "${one[@]}" ;;
			chromium-page) load "$work/$tag-$job-r$r.json" "$p" --engine chromium --protocols h1,h2 "${one[@]}" ;;
			httpslab-page) load "$work/$tag-$job-r$r.json" "$p" --protocols h1,h2 "${one[@]}" ;;
			esac
		done
	done
	run_seed=$seed
	local tight=(--tight-limit 2 --tight-until "$(duration "$work" "$tag" T)" --tight-burst-cost "$(duration "$work" "$tag" S)")
	load "$work/$tag-model-calt.json" "$calibration" --http2 "${tight[@]}" -n "$n" --warmup 0
	cost=$(duration "$work" "$tag" C)
	fit cost "$tag" C "$calibration" --http2 "chromium-cal-r*" h2 requests --response-cost "${tight[@]}"
	load "$work/$tag-model-calmb.json" "$calibration_mb" --http2 "${tight[@]}" --response-cost "$cost" -n "$n" --warmup 0
	permb=$(duration "$work" "$tag" B)
	fit permb "$tag" B "$calibration_mb" --http2 "chromium-calmb-r*" h2 mb --response-cost-per-mb "${tight[@]}" --response-cost "$cost"
	load "$work/$tag-model-cal.json" "$calibration" --http1.1 "${tight[@]}" --response-cost "$cost" --response-cost-per-mb "$permb" -n "$n" --warmup 0
	delay=$(duration "$work" "$tag" D)
	fit delay "$tag" D "$calibration" --http1.1 "chromium-cal-r*" h1 rounds --response-delay "${tight[@]}" --response-cost "$cost" --response-cost-per-mb "$permb"
	echo "$1 $p: the modelled browser, measured beside it: ${tight[*]} --response-cost $cost --response-cost-per-mb $permb --response-delay $delay" >&2
	load "$work/$tag-model-page.json" "$p" --protocols h1,h2 "${tight[@]}" --response-cost "$cost" --response-cost-per-mb "$permb" --response-delay "$delay" -n "$n" --warmup 0
}

# fit VAR TAG NAME PAGE PROTOFLAG CHROMIUM PROTO PER FLAG FLAGS...: fits
# the duration in VAR (NAME: C, B or D; its flag FLAG) so that the
# model, with FLAGS, loads PAGE over PROTOFLAG as fast as Chromium did
# (its loads TAG-CHROMIUM.json, protocol PROTO). The first value,
# Chromium's median less the model's without the duration, per request,
# MB or round of six requests (PER), counts the duration as work done
# after the last byte; but the model does a response's work as its
# headers and bytes arrive, and what it does while the network still
# brings bytes does not lengthen the load. So the model loads the page
# with the value, and the value grows by what is still missing, per
# request, MB or round, up to four times, until the model's median is
# within 2% of Chromium's; where a step moves the model by less than a
# quarter of what it asked, the network paces the page, not the
# browser, and the first value is kept. Each step goes to TAG-fit.txt
# for the report.
fit() {
	local var=$1 tag=$2 name=$3 page=$4 pf=$5 chromium=$6 proto=$7 per=$8 flag=$9 i next
	shift 9
	for i in 1 2 3 4; do
		load "$work/$tag-model-fit$name$i.json" "$page" "$pf" "$@" "$flag" "${!var}" -n "$n" --warmup 0
		next=$(python3 "$work/fit.py" "$work" "$work/$tag-$chromium.json" "$proto" "$work/$tag-model-fit$name$i.json" "${!var}" "$per" "$name" "$work/$tag-fit.txt" 2>>"$work/$tag-fit.txt")
		case $next in
		done) break ;;
		stop\ *) printf -v "$var" %s "${next#stop }"; echo "$name stop" >>"$work/$tag-fit.txt"; break ;;
		esac
		printf -v "$var" %s "$next"
	done
}

run_link() { # name, link flags...
	local name=$1 p
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
	run_seed=$seed
	load "$work/warmup.json" "$calibration" --engine chromium --http2 -n 1 --warmup 0
	load "$work/warmup.json" "$calibration" --http2 -n 1 --warmup 0
	for p in "${pages[@]}"; do run_page "$name" "$p"; done
	kill "$probe_pid" 2>/dev/null || true
	probe_pid=""
	kill "$serve_pid" && wait "$serve_pid" 2>/dev/null || true
	serve_pid=""
}

https="" ca="" run_seed=$seed
echo "page-vs-chromium: $n loads per protocol and engine; load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; $(chromium --version 2>/dev/null | head -1)"
for l in $links; do
	case $l in
	rtt40) run_link rtt40 --rtt 40ms ;;
	rtt40-20mbit) run_link rtt40-20mbit --rtt 40ms --bandwidth 20mbit ;;
	*) echo "LINKS: unknown link $l (want rtt40, rtt40-20mbit)" >&2; exit 2 ;;
	esac
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); the loads took $(( ($(date +%s) - start + 30) / 60 )) min"
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$work"/*.json "$work"/rtt-*.txt "$KEEP"/; fi

python3 - "$work" "$calibration" "$calibration_mb" "$links" "${pages[@]}" <<'EOF'
import os, sys
work, calibration, calibration_mb, links, pages = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), sys.argv[5:]
sys.path.insert(0, work)
from results import calibration as durations, merged, model
slug = lambda p: "".join(c if c in "abcdefghijklmnopqrstuvwxyz0123456789" else "_" for c in p)
cell = lambda m: "%5.0f (%d)" % (m["median"], m["n"]) if m else "%10s" % "-"
fmt = lambda name, v: "-" if v is None else ("%.1f" if name in "BT" else "%.2f") % v
titles = {"rtt40": "40 ms", "rtt40-20mbit": "40 ms, 20 Mbit/s"}
for name in links:
    print("\nlink %s: median load time in ms (n per cell); Chromium / httpslab without and with the model; the browser's CPU per load (cores busy)" % titles[name])
    print("  the model per page, measured beside it (T and S on both, C on %s, B on %s, D on %s; per round: from that round's Chromium load):" % (calibration, calibration_mb, calibration))
    drift = {"T": [], "S": [], "C": [], "B": [], "D": []}
    for page in pages:
        tag = "%s-%s" % (name, slug(page))
        used = model("%s/%s-model-page.json" % (work, tag))
        print("  %s: --tight-limit 2 --tight-until %s --tight-burst-cost %s --response-cost %s --response-cost-per-mb %s --response-delay %s" % ((page,) + (tuple("%.2f ms" % x for x in used) if used else ("-",) * 5)))
        for c, v, unit, inputs, rounds in durations(work, tag):
            drift[c].append(v)
            print("    %s %6s %-28s %s; per round %s" % (c, fmt(c, v), unit, inputs, " ".join(x if isinstance(x, str) else fmt(c, x) for x in rounds) or "-"))
            steps = [l.split() for l in open("%s/%s-fit.txt" % (work, tag)) if l.startswith(c + " ")] if os.path.exists("%s/%s-fit.txt" % (work, tag)) else []
            stopped = [x for x in steps if x[1:] == ["stop"]]
            steps = [x for x in steps if len(x) == 4]
            if steps:
                print("      %s fitted on the model: %s, Chromium %s ms%s" % (c, " -> ".join("%.2f (model %s ms)" % (float(x[1]), x[2]) for x in steps), steps[-1][3],
                      "; the model barely moved with it (the network paces the page): %.2f kept" % float(steps[0][1]) if stopped else ""))
    print("  drift from page to page: " + "; ".join("%s %s" % (c, " -> ".join(fmt(c, v) for v in vs)) for c, vs in drift.items()) + "\n")
    print("%-32s %-5s %10s %10s %10s %6s %6s %6s %14s %6s" % ("page", "proto", "httpslab", "model", "chromium", "ratio", "model", "<=15%", "browser CPU", "DCL"))
    for page in pages:
        f = lambda what: "%s/%s-%s-%s" % (work, name, slug(page), what)
        for proto in ("h1", "h2"):
            o, m, b = merged(f("httpslab-page-r*.json"), proto), merged(f("model-page.json"), proto), merged(f("chromium-page-r*.json"), proto)
            r = "%6.2f" % (b["median"] / o["median"]) if b and o else "%6s" % "-"
            rm = "%6.2f" % (b["median"] / m["median"]) if b and m else "%6s" % "-"
            ok = ("yes" if 0.85 <= b["median"] / m["median"] <= 1.15 else "no") if b and m else "-"
            cores = "%5.0f (%.1f)" % (b["cpu"], b["cpu"] / b["median"]) if b and b["cpu"] else "-"
            print("%-32s %-5s %s %s %s %s %s %6s %14s %6.0f" % (page, proto, cell(o), cell(m), cell(b), r, rm, ok, cores, b["dcl"] if b else 0))
    try:
        rtts = sorted(float(l) for l in open(os.path.join(work, "rtt-%s.txt" % name)) if l.strip())
        q = lambda p: rtts[min(int(p * len(rtts)), len(rtts) - 1)]
        print("round trip the link delivered during these loads (TCP connect every 200 ms, %d connects): median %.1f ms, p90 %.1f, max %.1f; %d above 60 ms"
              % (len(rtts), q(0.5), q(0.9), rtts[-1], sum(r > 60 for r in rtts)))
    except Exception as e:
        print("no round-trip probes:", e)
EOF
