# Helpers for the rdma-* payloads (sourced after $RPCRDMA_LIB; the meson
# tests copy this file to /opt/rpcrdma/rdma-lib.sh with --file).
RDMA_PORT=${RDMA_PORT:-20049}
srvlog=/tmp/echo-server.log

# rdma_start_server [OPTIONS]: the echo server (or $RDMA_SERVER) in the background.
rdma_start_server() {
	# Remove the last server's log first: the background child truncates
	# it only once it runs, and its old "listening" line must not count.
	rm -f "$srvlog"
	${RDMA_SERVER:-rpcrdma-echo-server} "$RPCRDMA_CM_ADDR" $RDMA_PORT $ECHO_SERVER_ARGS "$@" >"$srvlog" 2>&1 &
	srv=$!
	RR_BG_PIDS="$RR_BG_PIDS $srv"
	_n=0
	until grep -q '^listening' "$srvlog"; do
		_n=$((_n + 1))
		[ $_n -gt 100 ] && { cat "$srvlog"; rr_fail "server did not start"; }
		kill -0 $srv 2>/dev/null || { cat "$srvlog"; rr_fail "server exited"; }
		sleep 0.1
	done
}

# rdma_stop_server: SIGTERM, wait, print its report (counters).
rdma_stop_server() {
	kill -TERM $srv
	wait $srv || { cat "$srvlog"; rr_fail "server failed"; }
	cat "$srvlog"
}

# rdma_client ARGS: the echo client; fails the payload unless it says PASS.
rdma_client() {
	rr_say "client $*"
	timeout -s KILL 300 rpcrdma-echo-client "$RPCRDMA_CM_ADDR" $RDMA_PORT "$@" >/tmp/cli.log 2>&1
	_rc=$?
	cat /tmp/cli.log
	[ $_rc = 0 ] || { rdma_diag; rr_fail "client $* failed (rc=$_rc)"; }
	grep -q '^PASS' /tmp/cli.log || rr_fail "client $*: no PASS"
	# With --retry a call that timed out went again on a new connection
	# and passed; say so loudly, with what the devices counted.
	if grep -q 'sending it again' /tmp/cli.log; then
		rr_say "WARNING: client $*: a call was sent again after a failure"
		rdma_counters
	fi
	rdma_client_log_clean /tmp/cli.log "client $*"
}

# rdma_wait_paused LOG PID: until the echo client writing LOG (started
# with --pause-file) says "paused"; fails if it exits or takes 30 s.
rdma_wait_paused() {
	_n=0
	until grep -q '^paused' "$1"; do
		_n=$((_n + 1))
		[ $_n -gt 300 ] && { cat "$1"; rr_fail "client did not connect"; }
		kill -0 "$2" 2>/dev/null || { cat "$1"; rdma_diag; rr_fail "client exited"; }
		sleep 0.1
	done
}

# rdma_counters: the soft-RoCE devices' non-zero hardware counters
# (retries, sequence errors, RNR) and the kernel's last messages.
rdma_counters() {
	for _d in /sys/class/infiniband/*/ports/1/hw_counters; do
		[ -d "$_d" ] || continue
		rr_say "$(echo "$_d" | cut -d/ -f5) counters: $(cd "$_d" && for _f in *; do
			_v=$(cat "$_f"); [ "$_v" != 0 ] && printf '%s=%s ' "$_f" "$_v"; done)"
	done
	dmesg | tail -n 20
}

# rdma_diag: after a failure, what tells where it stopped: rdma_counters
# and the server's counters (it is stopped for its exit report, so call
# this only on the way to rr_fail).
rdma_diag() {
	rdma_counters
	rr_say "server log:"
	if [ -n "$srv" ] && ! kill -0 "$srv" 2>/dev/null; then
		wait "$srv"
		rr_say "the server had exited (status $?)"
	elif [ -n "$srv" ]; then
		kill -TERM "$srv"
		_n=0
		while kill -0 "$srv" 2>/dev/null && [ $_n -lt 100 ]; do
			sleep 0.1
			_n=$((_n + 1))
		done
		kill -0 "$srv" 2>/dev/null && { rr_say "server still running 10 s after SIGTERM"; kill -KILL "$srv"; }
		wait "$srv"
	fi
	cat "$srvlog"
}

# rdma_client_log_clean LOG WHO: no sanitizer report, no lost context.
rdma_client_log_clean() {
	grep -q 'Sanitizer' "$1" && { cat "$1"; rr_fail "$2: sanitizer report"; }
	grep -q 'contexts_lost=' "$1" && { cat "$1"; rr_fail "$2: contexts lost"; }
	return 0
}

# rdma_lsan_check: with RPCRDMA_EXPECT_LSAN=1 (tests/vm/meson.build sets it
# in a sanitizer build) shows that LeakSanitizer works in the guest: the
# lsan-probe program leaks on purpose and must be reported, with the exit
# code ASAN_OPTIONS asks for; and the programs under test are ASan builds.
# A clean fault run then means no leak, not no leak checker.
rdma_lsan_check() {
	[ "${RPCRDMA_EXPECT_LSAN:-0}" = 1 ] || return 0
	lsan-probe >/tmp/lsan-probe.log 2>&1
	_rc=$?
	if [ $_rc != 23 ] || ! grep -q 'LeakSanitizer: detected memory leaks' /tmp/lsan-probe.log; then
		cat /tmp/lsan-probe.log
		rr_fail "LeakSanitizer does not report in the guest (lsan-probe exit $_rc)"
	fi
	for _b in ${RDMA_SERVER:-rpcrdma-echo-server} rpcrdma-echo-client; do
		grep -q AddressSanitizer "$(command -v $_b)" || rr_fail "$_b is not an ASan build"
	done
	rr_say "LeakSanitizer is live: lsan-probe's leak reported (exit $_rc); binaries are ASan builds"
}

# rdma_stat NAME: a server counter from its exit report (empty if 0).
rdma_stat() { awk -v n="server $1" 'index($0, n " ") == 1 { print $3 }' "$srvlog"; }

# rdma_expect_zero NAME...: those server counters must be 0.
rdma_expect_zero() {
	for _s in "$@"; do
		_v=$(rdma_stat $_s)
		[ "${_v:-0}" = 0 ] || rr_fail "server counted $_s = $_v"
	done
}

# A heartbeat line every 5 s, so a long step shows it is alive in the log
# (the host side's idle timeout, --idle, counts from the last console line).
( while sleep 5; do echo "[${RPCRDMA_PAYLOAD:-rdma}] ... still running"; done ) &
RR_BG_PIDS="$RR_BG_PIDS $!"
