#!/usr/bin/env bash
# Counts the near-copies in httpslab's non-test Go code: the clone groups
# of at least 50 tokens that github.com/mibk/dupl finds (pinned below, so
# that counts taken at different times compare). It prints the count; -v
# lists the groups first. The tool is run with `go run`, which builds it
# from the module proxy's pinned version without touching go.mod.
set -euo pipefail
cd "$(dirname "$0")/.."

DUPL=github.com/mibk/dupl@v1.1.0
THRESHOLD=50

out=$(find cmd internal -name '*.go' ! -name '*_test.go' | sort | go run "$DUPL" -files -t "$THRESHOLD")
if [[ ${1:-} == -v ]]; then
	printf '%s\n' "$out"
fi
count=$(printf '%s\n' "$out" | sed -n 's/^Found total \([0-9]*\) clone groups\.$/\1/p')
if [[ -z $count ]]; then
	echo "dupl.sh: error: no 'Found total N clone groups.' line in dupl's output" >&2
	exit 1
fi
echo "$count"
