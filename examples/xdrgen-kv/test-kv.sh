#!/bin/sh
# test-kv.sh SERVER CLIENT: starts kv-server on free loopback ports and runs
# kv-client against it over TCP and UDP.
set -eu
server=$1 client=$2
out=$(mktemp)
trap 'kill "$pid" 2>/dev/null || true; rm -f "$out"' EXIT
"$server" >"$out" &
pid=$!
i=0
until grep -q '^ready' "$out"; do
	i=$((i + 1))
	[ "$i" -le 200 ] || { echo "kv-server did not start"; exit 1; }
	kill -0 "$pid" || { echo "kv-server exited"; exit 1; }
	sleep 0.1
done
tcp=$(sed -n 's/^ready tcp=\([0-9]*\) .*/\1/p' "$out")
udp=$(sed -n 's/^ready .*udp=\([0-9]*\).*/\1/p' "$out")
"$client" tcp "127.0.0.1:$tcp"
"$client" udp "127.0.0.1:$udp"
kill -TERM "$pid"
wait "$pid"
echo "ok: tcp port $tcp, udp port $udp"
