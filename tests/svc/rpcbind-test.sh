#!/bin/sh
# Real-peer test of the service core: Debian's rpcbind and rpcinfo against
# tests/svc/rpc_testsvc.  Usage: rpcbind-test.sh path/to/rpc_testsvc
#
# It runs in its own network and mount namespaces (unshare, as root): a
# private loopback, so rpcbind's port 111 clashes with nothing on the host,
# and a private /run for /run/rpcbind.sock.  Every process it starts is
# killed at the end.  Any failure -- including not being able to start
# rpcbind -- fails the test; nothing is skipped.
set -eu
PROG=536871065 # 0x20000099
svc_bin=$1

fail() { echo "FAIL: $*"; exit 1; }

if [ "${RPCBIND_TEST_NS:-}" != 1 ]; then
	[ "$(id -u)" = 0 ] || fail "needs root (unshare, rpcbind on port 111)"
	command -v rpcbind >/dev/null || fail "rpcbind not installed (apt-get install rpcbind)"
	command -v unshare >/dev/null || fail "unshare not found"
	RPCBIND_TEST_NS=1 exec unshare --mount --net --fork "$0" "$@"
fi

ip link set lo up || fail "cannot bring up loopback in the namespace"
mount -t tmpfs tmpfs /run || fail "cannot mount a private /run"
mkdir -p /run/rpcbind
work=$(mktemp -d)
rpcb_pid= svc_pid=
cleanup() {
	[ -n "$svc_pid" ] && kill "$svc_pid" 2>/dev/null
	[ -n "$rpcb_pid" ] && kill "$rpcb_pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

rpcbind -f &
rpcb_pid=$!
i=0
until [ -S /run/rpcbind.sock ] && rpcinfo -p 127.0.0.1 >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "rpcbind did not start"
	kill -0 $rpcb_pid 2>/dev/null || fail "rpcbind exited"
	sleep 0.1
done
echo "rpcbind running (pid $rpcb_pid)"

"$svc_bin" >"$work/svc.out" 2>&1 &
svc_pid=$!
i=0
until grep -q '^ready' "$work/svc.out"; do
	i=$((i + 1))
	kill -0 $svc_pid 2>/dev/null || { cat "$work/svc.out"; fail "rpc_testsvc exited"; }
	[ $i -lt 100 ] || fail "rpc_testsvc not ready"
	sleep 0.1
done
cat "$work/svc.out"
udp_port=$(sed -n 's/^ready tcp=[0-9]* udp=\([0-9]*\) .*$/\1/p' "$work/svc.out")
v6=$(sed -n 's/^ready .* v6=\([01]\)$/\1/p' "$work/svc.out")
[ -n "$udp_port" ] && [ -n "$v6" ] || fail "cannot parse rpc_testsvc's ready line"

echo "--- rpcinfo -p 127.0.0.1"
rpcinfo -p 127.0.0.1 | tee "$work/p"
has() { awk -v p=$PROG -v v="$1" -v t="$2" '$1 == p && $2 == v && $3 == t { f = 1 } END { exit !f }' "$work/p"; }
has 1 tcp || fail "version 1 not registered for tcp"
has 1 udp || fail "version 1 not registered for udp"
has 2 tcp || fail "version 2 not registered for tcp"
has 2 udp && fail "version 2 (needs congestion control) registered for udp"

echo "--- rpcinfo 127.0.0.1 (rpcbind v3/v4 dump: netid, universal address, owner)"
rpcinfo 127.0.0.1 | awk -v p=$PROG 'NR == 1 || $1 == p' | tee "$work/d"
awk -v p=$PROG '$1 == p && $2 == 2 && $3 == "udp" { f = 1 } END { exit f }' "$work/d" ||
	fail "rpcbind dump lists version 2 on udp"
awk -v p=$PROG '$1 == p && $2 == 1 && $3 == "udp" && $4 ~ /^127\.0\.0\.1\./ { f = 1 } END { exit !f }' "$work/d" ||
	fail "rpcbind dump lacks version 1 on udp with a 127.0.0.1 universal address"

if [ "$v6" = 1 ]; then
	nd() { awk -v p=$PROG -v v="$1" -v n="$2" '$1 == p && $2 == v && $3 == n { f = 1 } END { exit !f }' "$work/d"; }
	nd 1 tcp6 || fail "version 1 not registered for tcp6"
	nd 2 tcp6 || fail "version 2 not registered for tcp6"
	nd 1 udp6 || fail "version 1 not registered for udp6"
	nd 2 udp6 && fail "version 2 (needs congestion control) registered for udp6"
	echo "tcp6/udp6 registrations as expected"
else
	echo "no ::1 here: tcp6/udp6 not checked"
fi

echo "--- rpcinfo -t / -u (NULL calls)"
rpcinfo -t 127.0.0.1 $PROG 1 | tee "$work/t1"
grep -q "version 1 ready and waiting" "$work/t1" || fail "tcp v1 not ready"
rpcinfo -u 127.0.0.1 $PROG 1 | tee "$work/u1"
grep -q "version 1 ready and waiting" "$work/u1" || fail "udp v1 not ready"
rpcinfo -t 127.0.0.1 $PROG 2 | tee "$work/t2"
grep -q "version 2 ready and waiting" "$work/t2" || fail "tcp v2 not ready"
if rpcinfo -u 127.0.0.1 $PROG 2 >"$work/u2" 2>&1; then
	cat "$work/u2"; fail "udp v2 answered through rpcbind"
fi
cat "$work/u2"
# Straight to the UDP port, bypassing rpcbind: the server itself refuses v2
# with PROG_MISMATCH 1..1.
if rpcinfo -n "$udp_port" -u 127.0.0.1 $PROG 2 >"$work/u2d" 2>&1; then
	cat "$work/u2d"; fail "udp v2 answered on the port"
fi
cat "$work/u2d"
grep -qi "low version = 1, high version = 1" "$work/u2d" || fail "udp v2: no PROG_MISMATCH 1..1"

echo "--- shutdown unregisters"
kill -TERM $svc_pid
wait $svc_pid || { cat "$work/svc.out"; fail "rpc_testsvc exited with an error"; }
svc_pid=
rpcinfo -p 127.0.0.1 >"$work/p2"
grep -q "^ *$PROG " "$work/p2" && { cat "$work/p2"; fail "entries left after shutdown"; }
echo "PASS"
