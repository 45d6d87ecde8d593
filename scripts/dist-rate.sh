#!/usr/bin/env bash
# dist-rate.sh: the request rate three bench workers deliver together in
# the open model, as the server sees it. It runs the distributed run's
# test (cmd/httpslab, TestDistributedWorkers/open): three workers, each a
# process in a network namespace of its own with its own address, at a
# total --rate 3000 on kept-alive connections (-c 30) for 5 s from a
# shared --start-at, against nginx; nginx's log gives each request's start
# at the server ($msec less $request_time), counted per second from the
# start. It prints each repetition's seconds and, over the inner seconds
# (the first and last left out), the largest deviation from 3000/s.
#
# Usage: sudo scripts/dist-rate.sh [R]   (R repetitions, 5 by default)
# Needs: go, nginx, iproute2, root.
set -euo pipefail

reps=${1:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
worst=0
for r in $(seq 1 "$reps"); do
	out=$(cd "$repo" && go test ./cmd/httpslab -count=1 -run 'TestDistributedWorkers/open' -v 2>&1) || {
		echo "$out" | tail -20
		exit 1
	}
	secs=$(echo "$out" | sed -n 's/.*requests per second at the server, from --start-at: \[\(.*\)\]/\1/p')
	dev=$(echo "$secs" | awk '{ m = 0; for (i = 2; i <= 4; i++) { d = ($i - 3000) / 30; if (d < 0) d = -d; if (d > m) m = d }; printf "%.1f", m }')
	echo "repetition $r: requests in seconds 0-4: $secs; inner seconds within ±$dev% of 3000/s"
	worst=$(awk -v a="$worst" -v b="$dev" 'BEGIN { print (b > a) ? b : a }')
done
echo "largest deviation of an inner second over $reps repetitions: $worst%"
