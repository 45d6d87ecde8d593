#!/usr/bin/env bash
# experiment-null-power.sh: how often `httpslab experiment` calls a change
# significant when there is none, and how often it finds one that exists,
# on a private nginx on loopback.
#
#   null:  two variants nginx reads as one setting (keepalive_timeout 60s
#          and 1m), R repetitions with different seeds: the share of
#          repetitions with any significant verdict (the family-wise rate,
#          which Holm's correction holds at 5%) and the share of verdicts
#          that are significant, each of which must stay at or below 5%.
#   power: ssl_session_tickets off against on under bench --conn resume
#          (every connection a full handshake against a resumed one): the
#          share of repetitions that find the handshake time changed.
#
# Usage: scripts/experiment-null-power.sh [R [BLOCKS]]   (R defaults to 10
# repetitions, BLOCKS to 12; the issue's full check is R=50 BLOCKS=20)
# Needs: go, nginx, openssl, jq.
set -euo pipefail

reps=${1:-10}
blocks=${2:-12}
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/httpslab-null-power.XXXXXX)
trap 'rm -rf "$dir"' EXIT

go build -o "$dir/httpslab" "$repo/cmd/httpslab"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-keyout "$dir/key.pem" -out "$dir/cert.pem" -subj /CN=localhost \
	-addext subjectAltName=DNS:localhost 2>/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
events { worker_connections 1024; }
http {
    access_log off;
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate cert.pem;
        ssl_certificate_key key.pem;
        location / { return 200 "ok"; }
    }
}
EOF
url="https://localhost:$port/"

# run VARY SEED: one experiment's JSON on stdout.
run() {
	"$dir/httpslab" experiment --json --nginx "$dir/nginx.conf" --vary "$1" -n "$blocks" --seed "$2" \
		-- bench --conn resume -c 2 -n 300 "$url" --cacert "$dir/cert.pem"
}

null_any=0 null_sig=0 null_all=0 power_found=0
for i in $(seq 1 "$reps"); do
	doc=$(run 'keepalive_timeout=60s|1m' "$i")
	sig=$(jq '[.result.analysis.verdicts[] | select(.significant)] | length' <<<"$doc")
	all=$(jq '.result.analysis.verdicts | length' <<<"$doc")
	null_sig=$((null_sig + sig)) null_all=$((null_all + all))
	if ((sig > 0)); then null_any=$((null_any + 1)); fi
	doc=$(run 'ssl_session_tickets=off|on' "$i")
	found=$(jq '[.result.analysis.verdicts[] | select(.metric == "handshake p50" and .significant)] | length' <<<"$doc")
	if ((found > 0)); then power_found=$((power_found + 1)); fi
	echo "repetition $i/$reps: null $sig of $all verdicts significant; power: handshake change found: $found" >&2
done
echo "null:  $null_any of $reps repetitions with a significant verdict; $null_sig of $null_all verdicts significant"
echo "power: $power_found of $reps repetitions found the handshake change ($blocks blocks each)"
if ((null_sig * 20 > null_all)); then
	echo "FAIL: more than 5% of the null verdicts are significant" >&2
	exit 1
fi
