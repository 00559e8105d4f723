#!/bin/sh
# test-hello.sh SERVER CLIENT: starts hello-server on free loopback ports and
# checks that hello-client gets its greeting over TCP and over UDP.
set -eu
server=$1 client=$2
out=$(mktemp)
trap 'kill "$pid" 2>/dev/null || true; rm -f "$out"' EXIT
"$server" -p 0 >"$out" &
pid=$!
i=0
until grep -q '^ready' "$out"; do
	i=$((i + 1))
	[ "$i" -le 200 ] || { echo "hello-server did not start"; exit 1; }
	kill -0 "$pid" || { echo "hello-server exited"; exit 1; }
	sleep 0.1
done
tcp=$(sed -n 's/^ready tcp=\([0-9]*\) .*/\1/p' "$out")
udp=$(sed -n 's/^ready .*udp=\([0-9]*\) .*/\1/p' "$out")
got=$("$client" tcp 127.0.0.1 "$tcp" reader)
[ "$got" = "hello, reader" ] || { echo "tcp: got '$got'"; exit 1; }
got=$("$client" udp 127.0.0.1 "$udp")
[ "$got" = "hello, world" ] || { echo "udp: got '$got'"; exit 1; }
# A name longer than hello.x's string<64>: the generated stub refuses to send it.
long=$(printf '%070d' 0)
if "$client" tcp 127.0.0.1 "$tcp" "$long" 2>/dev/null; then echo "tcp: long name accepted"; exit 1; fi
kill -TERM "$pid"
wait "$pid"
echo "ok: tcp port $tcp, udp port $udp"
