#!/usr/bin/env bash
# report-size.sh [ROUNDS]: the size of the HTML report of three overlaid
# bench results of 10 million requests each, and the time it takes
# httpslab to write it and headless Chromium to open it.
#
# The results are made by internal/report's TestHTMLTenMillion from
# synthetic HdrHistogram interval logs (600 one-second intervals with
# every phase), not by a 10-minute load. httpslab report writes the
# report from them; Chromium's time to open it is the median over ROUNDS
# (default 5) of chromium --headless --dump-dom on the report less the
# median on an empty page, the two interleaved, so that Chromium's own
# start-up is left out.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
command -v chromium >/dev/null || { echo "report-size.sh: error: chromium is not installed (apt-get install chromium)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

HTTPSLAB_REPORT_DIR=$dir go test -count=1 -run '^TestHTMLTenMillion$' ./internal/report >/dev/null
go build -o "$dir/httpslab" ./cmd/httpslab
now() { date +%s%N; }
t0=$(now)
"$dir/httpslab" report "$dir"/run1.json "$dir"/run2.json "$dir"/run3.json -o "$dir/report.html"
t1=$(now)
printf '<!DOCTYPE html><html><head><title>empty</title></head><body></body></html>' >"$dir/empty.html"

open_ms() { # the milliseconds chromium takes to load and dump a file
	local start end
	start=$(now)
	chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--user-data-dir="$dir/profile" --dump-dom "file://$1" >/dev/null 2>&1
	end=$(now)
	echo $(((end - start) / 1000000))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
empty=() report=()
for ((i = 0; i < rounds; i++)); do
	empty+=("$(open_ms "$dir/empty.html")")
	report+=("$(open_ms "$dir/report.html")")
done
me=$(printf '%s\n' "${empty[@]}" | median)
mr=$(printf '%s\n' "${report[@]}" | median)

for f in run1.json run2.json run3.json report.html; do
	printf '%-12s %10d bytes\n' "$f" "$(stat -c %s "$dir/$f")"
done
printf 'httpslab report (three results): %d ms\n' $(((t1 - t0) / 1000000))
printf 'chromium --dump-dom, median of %d: empty page %s ms, report %s ms; the report costs %s ms\n' \
	"$rounds" "$me" "$mr" "$(awk -v a="$mr" -v b="$me" 'BEGIN {print a - b}')"
