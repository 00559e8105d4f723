#!/bin/sh
# nfs4-probe over loopback TCP against tinynfs serving a fresh temporary
# directory: the whole run must pass, print its counters, and leave the
# export as it found it; a missing PATH and a closed port must fail with
# messages that name the step, the operation and the status.
# Usage: test-probe.sh NFS4_PROBE TINYNFS
set -eu
probe=$1
tinynfs=$2
tmp=$(mktemp -d)
srv=
cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "test-probe: FAIL: $*"; exit 1; }

mkdir "$tmp/export"
echo keep >"$tmp/export/already-there"
: >"$tmp/server.log"
"$tinynfs" --export "$tmp/export rw,no_root_squash" -p 0 -l 127.0.0.1 --no-udp \
	>"$tmp/server.log" 2>&1 &
srv=$!
i=0
until grep -q 'tinynfs: ready' "$tmp/server.log"; do
	i=$((i + 1))
	[ $i -le 300 ] || { cat "$tmp/server.log"; fail "tinynfs did not start"; }
	kill -0 "$srv" 2>/dev/null || { cat "$tmp/server.log"; fail "tinynfs exited"; }
	sleep 0.1
done
port=$(sed -n 's/^tinynfs: listening tcp 127.0.0.1 \([0-9]*\)$/\1/p' "$tmp/server.log")
[ -n "$port" ] || fail "no TCP port in tinynfs's output"

# The whole run.
if ! "$probe" -t tcp "127.0.0.1:$port" / >"$tmp/out" 2>"$tmp/err"; then
	cat "$tmp/out" "$tmp/err"
	fail "nfs4-probe over TCP failed"
fi
cat "$tmp/out"
[ ! -s "$tmp/err" ] || { cat "$tmp/err"; fail "nfs4-probe wrote to stderr"; }
grep -qx 'nfs4-probe: read 1048576 bytes back in [0-9]* READs: identical' "$tmp/out" ||
	fail "no READ line"
grep -qx 'nfs4-probe: created 300 names, READDIR listed all 300 in [0-9]* calls' "$tmp/out" ||
	fail "no READDIR line"
grep -qx 'nfs4-probe: PASS' "$tmp/out" || fail "no PASS line"
# The counters: a name and a number per line, the calls among them.
calls=$(sed -n 's/^calls \([0-9]*\)$/\1/p' "$tmp/out")
replies=$(sed -n 's/^replies \([0-9]*\)$/\1/p' "$tmp/out")
[ "${calls:-0}" -ge 600 ] || fail "counter 'calls' is '${calls:-}', expected >= 600"
[ "$replies" = "$calls" ] || fail "$calls calls but '${replies:-}' replies"
for c in calls_read_chunk replies_write_chunk replies_reply_chunk; do
	grep -q "^$c [0-9]*\$" "$tmp/out" || fail "no $c counter"
done
# Nothing left behind, nothing else touched.
left=$(ls -A "$tmp/export")
[ "$left" = already-there ] || fail "the export holds '$left' after the run"
[ "$(cat "$tmp/export/already-there")" = keep ] || fail "already-there changed"

# --bench: its two lines, and still PASS with nothing left behind.
"$probe" -t tcp --bench 2 "127.0.0.1:$port" / >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/out" "$tmp/err"; fail "nfs4-probe --bench 2 failed"; }
grep -Eq '^bench null calls 200 us_per_call [0-9.]+ rw_syscalls_per_call [0-9.]+ ctx_switches_per_call [0-9.]+$' \
	"$tmp/out" || fail "no 'bench null' line: $(grep '^bench' "$tmp/out")"
grep -Eq '^bench io bytes 2097152 write_MBps [0-9.]+ read_MBps [0-9.]+$' "$tmp/out" ||
	fail "no 'bench io' line: $(grep '^bench' "$tmp/out")"
grep '^bench' "$tmp/out"
[ "$(ls -A "$tmp/export")" = already-there ] || fail "--bench left files behind"

# PATH that does not exist: the step, the operation and the status.
if "$probe" "127.0.0.1:$port" /no/such/dir >"$tmp/out" 2>"$tmp/err"; then
	fail "nfs4-probe passed with a missing PATH"
fi
grep -q 'nfs4-probe: LOOKUP of PATH: LOOKUP failed: NFS4ERR_NOENT (2)' "$tmp/err" ||
	{ cat "$tmp/err"; fail "no clear message for a missing PATH"; }
grep -qx 'nfs4-probe: FAIL' "$tmp/out" || fail "no FAIL line"
# PATH that is a file.
if "$probe" "127.0.0.1:$port" /already-there >"$tmp/out" 2>"$tmp/err"; then
	fail "nfs4-probe passed with a file as PATH"
fi
grep -q 'nfs4-probe: OPEN (create) of the scratch file: OPEN failed: NFS4ERR_NOTDIR' \
	"$tmp/err" || { cat "$tmp/err"; fail "no clear message for a file as PATH"; }
left=$(ls -A "$tmp/export")
[ "$left" = already-there ] || fail "the export holds '$left' after the failed runs"

# A port nobody listens on (the server's, once it is gone).
kill "$srv"
wait "$srv" 2>/dev/null || true
srv=
if "$probe" "127.0.0.1:$port" / >"$tmp/out" 2>"$tmp/err"; then
	fail "nfs4-probe passed with no server"
fi
grep -q "nfs4-probe: cannot reach 127.0.0.1:$port over tcp" "$tmp/err" ||
	{ cat "$tmp/err"; fail "no clear message for a closed port"; }
# A grace period (a client record naming a client that never comes back,
# --grace 3): OPEN is answered NFS4ERR_GRACE until it ends; the probe
# waits and retries, then passes.
mkdir -m 0700 "$tmp/state"
printf 'tinynfs-clients 1\n6f6c64\n' >"$tmp/state/clients"
: >"$tmp/server.log"
"$tinynfs" --export "$tmp/export rw,no_root_squash" -p 0 -l 127.0.0.1 --no-udp \
	--state-dir "$tmp/state" --grace 3 >"$tmp/server.log" 2>&1 &
srv=$!
i=0
until grep -q 'tinynfs: ready' "$tmp/server.log"; do
	i=$((i + 1))
	[ $i -le 300 ] || { cat "$tmp/server.log"; fail "tinynfs (grace) did not start"; }
	sleep 0.1
done
grep -q 'grace period of 3 s' "$tmp/server.log" || { cat "$tmp/server.log"; fail "no grace period"; }
port=$(sed -n 's/^tinynfs: listening tcp 127.0.0.1 \([0-9]*\)$/\1/p' "$tmp/server.log")
if ! "$probe" "127.0.0.1:$port" / >"$tmp/out" 2>"$tmp/err"; then
	cat "$tmp/out" "$tmp/err"
	fail "nfs4-probe failed in the grace period"
fi
grep 'NFS4ERR_GRACE' "$tmp/out" ||
	fail "no NFS4ERR_GRACE retried: the grace period was not exercised"
grep -qx 'nfs4-probe: PASS' "$tmp/out" || fail "no PASS after the grace period"
kill "$srv"
wait "$srv" 2>/dev/null || true
srv=

# Usage errors, and the command-line convention every tool follows
# (issue #37): help to stdout with 0, a version, a bad argument named with 2.
if "$probe" -t udp "127.0.0.1:$port" / 2>/dev/null; then
	fail "nfs4-probe accepted -t udp"
fi
for h in -h --help; do
	"$probe" $h >"$tmp/out" 2>"$tmp/err" || fail "nfs4-probe $h: exit $?"
	grep -q '^usage: nfs4-probe' "$tmp/out" && [ ! -s "$tmp/err" ] ||
		fail "nfs4-probe $h: no usage on stdout"
done
for v in -V --version; do
	"$probe" $v | grep -q 'librpcrdma' || fail "nfs4-probe $v: no version"
done
for bad in "--sec krb6" "--bench 0" "--bench x"; do
	st=0; "$probe" $bad "127.0.0.1:$port" / 2>"$tmp/err" || st=$?
	[ $st = 2 ] && grep -q "'${bad#* }'" "$tmp/err" || fail "nfs4-probe $bad: exit $st, $(cat "$tmp/err")"
done
st=0; "$probe" --bogus 2>"$tmp/err" || st=$?
[ $st = 2 ] && grep -q "unknown option: '--bogus'" "$tmp/err" ||
	fail "nfs4-probe --bogus: exit $st, $(cat "$tmp/err")"
"$tinynfs" --version | grep -q '^tinynfs (librpcrdma' || fail "tinynfs --version"
"$tinynfs" --help | grep -q -- '--version' || fail "tinynfs --help names no --version"
echo "test-probe: ok"
