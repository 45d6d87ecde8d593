#!/usr/bin/env bash
# dist-rate.sh: the request rate three bench workers deliver together in
# the open model, as the server sees it, and how far apart their starts
# reach it. It runs the distributed run's test (cmd/httpslab,
# TestDistributedWorkers): three workers, each a process in a network
# namespace of its own with its own address, started with one --start-at,
# against nginx. Closed model (-n 3000 -c 6): the skew between the
# workers' first requests at nginx. Open model: a total --rate 3000 on
# kept-alive connections (-c 30) for 5 s; nginx's log gives each
# request's start at the server ($msec less $request_time), counted per
# second from the start. It prints each repetition's skew and seconds and,
# over the inner seconds (the first and last left out), the largest
# deviation from 3000/s.
#
# Usage: sudo scripts/dist-rate.sh [R]   (R repetitions, 5 by default)
# Needs: go, nginx, iproute2, root.
set -euo pipefail

reps=${1:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=0
worst=0
for r in $(seq 1 "$reps"); do
	# Every open-model run counts, the ones the test took again included.
	out=$(cd "$repo" && go test ./cmd/httpslab -count=1 -run 'TestDistributedWorkers' -v 2>&1) || true
	skew=$(echo "$out" | sed -n 's/.*; skew \(.*\)$/\1/p')
	echo "repetition $r: start skew $skew"
	while read -r secs; do
		[ -n "$secs" ] || continue
		dev=$(echo "$secs" | awk '{ m = 0; for (i = 2; i <= 4; i++) { d = ($i - 3000) / 30; if (d < 0) d = -d; if (d > m) m = d }; printf "%.1f", m }')
		echo "  open model: requests in seconds 0-4: $secs; inner seconds within ±$dev% of 3000/s"
		runs=$((runs + 1))
		worst=$(awk -v a="$worst" -v b="$dev" 'BEGIN { print (b > a) ? b : a }')
	done <<<"$(echo "$out" | sed -n 's/.*requests per second at the server, from --start-at: \[\(.*\)\]/\1/p')"
	if ! echo "$out" | grep -q '^ok'; then
		echo "$out" | grep -E '^\s+dist_test.go|^--- FAIL' | head -20
	fi
done
echo "largest deviation of an inner second over $runs open-model runs: $worst%"
