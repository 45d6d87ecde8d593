#!/usr/bin/env bash
# The whole httpslab test suite: the gate (gofmt, go vet, staticcheck,
# go mod tidy) and go test -race. It installs what the tests need (nginx,
# curl, openssl, iproute2, sslscan, testssl.sh, chromium from Debian's packages and
# a pinned staticcheck) when missing, and fails loudly when it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."

STATICCHECK_VERSION=v0.8.2 # staticcheck 2026.2.2

# command → Debian package
declare -A packages=(
	[nginx]=nginx [curl]=curl [openssl]=openssl [ip]=iproute2
	[sslscan]=sslscan [testssl]=testssl.sh [python3]=python3
	[chromium]=chromium # opens the HTML reports in the report package's browser test
)
missing=()
for cmd in "${!packages[@]}"; do
	command -v "$cmd" >/dev/null 2>&1 || missing+=("${packages[$cmd]}")
done
if ((${#missing[@]})); then
	echo "test.sh: installing ${missing[*]}" >&2
	if [[ $(id -u) -ne 0 ]]; then
		echo "test.sh: error: need root to install ${missing[*]} (or install them yourself)" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || { echo "test.sh: error: apt-get update failed" >&2; exit 1; }
	apt-get install -y -qq "${missing[@]}" >/dev/null ||
		{ echo "test.sh: error: apt-get install ${missing[*]} failed" >&2; exit 1; }
fi

GOBIN=$(go env GOPATH)/bin
if ! "$GOBIN/staticcheck" -version 2>/dev/null | grep -q "(${STATICCHECK_VERSION#v})"; then
	echo "test.sh: installing staticcheck ${STATICCHECK_VERSION}" >&2
	go install "honnef.co/go/tools/cmd/staticcheck@${STATICCHECK_VERSION}"
fi

echo "== gofmt"
unformatted=$(gofmt -l .)
if [[ -n $unformatted ]]; then
	echo "gofmt: these files need formatting:" >&2
	echo "$unformatted" >&2
	exit 1
fi
echo "== go vet"
go vet ./...
echo "== staticcheck ${STATICCHECK_VERSION}"
"$GOBIN/staticcheck" ./...
echo "== go mod tidy"
go mod tidy -diff
# -p 1: one package at a time. The network lab's forwarder and the
# round-trip tests run in the test process; another package's tests on
# the same 2 cores would starve them and make the link slower than set.
echo "== go test -race"
go test -race -p 1 -count=1 -timeout 14m ./...
# quic-go races with itself on 0-RTT connections (quic-go issue #4303), so
# the tests that make 0-RTT requests are built only without -race
# (//go:build !race); this second pass runs them, and everything else again.
echo "== go test (without -race: the 0-RTT tests)"
go test -p 1 -count=1 -timeout 10m ./...
echo "== probe against curl (scripts/probe-vs-curl.sh)"
./scripts/probe-vs-curl.sh 30
