# Helpers for payloads (POSIX sh; busybox sh in the VM).  A payload starts
# with:   . "$RPCRDMA_LIB"
# Environment a payload sees (set by /init in the VM, by tests/vm/run
# --native on the host):
#   RPCRDMA_VM         1 in the VM, 0 natively
#   RPCRDMA_OUT        directory for files to bring back (host: --out DIR)
#   RPCRDMA_BIN        directory holding the programs given with --bin (on PATH)
#   RPCRDMA_RAW_DEV    verbs device for raw verbs (VM: rxelo)
#   RPCRDMA_RAW_ADDR   address for perftest's TCP side channel (127.0.0.1)
#   RPCRDMA_CM_DEV     verbs device behind RPCRDMA_CM_ADDR (VM: rxe0)
#   RPCRDMA_CM_IF      its netdev (VM: rxed0)
#   RPCRDMA_CM_ADDR    address for rdma_cm (VM: fe80::ff:fe00:1%rxed0)
#   RPCRDMA_CM_URLADDR the same, bracketed when IPv6 ([fe80::ff:fe00:1%rxed0])
#   RPCRDMA_PAYLOAD    the payload's name
# In the VM, call the real programs by full path where busybox has an
# applet of the same name (/usr/bin/ip, /usr/bin/date, /usr/bin/dd).
# shellcheck shell=sh

: "${RPCRDMA_VM:=0}"
: "${RPCRDMA_OUT:=/out}"
: "${RPCRDMA_RAW_DEV:=rxelo}"
: "${RPCRDMA_RAW_ADDR:=127.0.0.1}"
: "${RPCRDMA_CM_DEV:=rxe0}"
: "${RPCRDMA_CM_IF:=rxed0}"
: "${RPCRDMA_CM_ADDR:=fe80::ff:fe00:1%rxed0}"
case $RPCRDMA_CM_ADDR in
*:*) RPCRDMA_CM_URLADDR="[$RPCRDMA_CM_ADDR]" ;;
*) RPCRDMA_CM_URLADDR=$RPCRDMA_CM_ADDR ;;
esac
: "${RPCRDMA_PAYLOAD:=payload}"
export RPCRDMA_VM RPCRDMA_OUT RPCRDMA_RAW_DEV RPCRDMA_RAW_ADDR RPCRDMA_CM_DEV \
	RPCRDMA_CM_IF RPCRDMA_CM_ADDR RPCRDMA_CM_URLADDR RPCRDMA_PAYLOAD
mkdir -p "$RPCRDMA_OUT"

rr_say() { echo "[$RPCRDMA_PAYLOAD] $*"; }
rr_fail() { echo "[$RPCRDMA_PAYLOAD] FAIL: $*"; exit 1; }
rr_skip() { echo "[$RPCRDMA_PAYLOAD] SKIP: $*"; exit 77; }
rr_need_vm() { [ "$RPCRDMA_VM" = 1 ] || rr_skip "${1:-this payload} runs only in the VM"; }

# Milliseconds since boot (monotonic; /proc/uptime has 10 ms resolution).
rr_now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# Nanoseconds, wall clock (coreutils date; busybox date has no %N).
rr_now_ns() { /usr/bin/date +%s%N; }

# Background processes started with rr_bg are killed by rr_cleanup, which
# runs at exit (payloads that set their own EXIT trap call it themselves).
RR_BG_PIDS=""
rr_bg() { "$@" & RR_BG_PIDS="$RR_BG_PIDS $!"; }
rr_cleanup() {
	for p in $RR_BG_PIDS; do kill "$p" 2>/dev/null; done
	for p in $RR_BG_PIDS; do wait "$p" 2>/dev/null; done
	RR_BG_PIDS=""
}
trap rr_cleanup EXIT

# rr_wait_listen PORT [SECONDS]: waits until a TCP socket listens on PORT.
rr_wait_listen() {
	_hex=$(printf '%04X' "$1")
	_n=$(( ${2:-30} * 10 ))
	while [ "$_n" -gt 0 ]; do
		if cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
			awk -v p=":$_hex" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }'; then
			return 0
		fi
		sleep 0.1
		_n=$((_n - 1))
	done
	return 1
}

# rr_run_pair TIMEOUT "SERVER CMD" "CLIENT CMD" [PORT]: starts the server in
# the background (waits for PORT to listen, else one second), runs the
# client, then waits for the server.  Output of both goes to stdout, the
# client's also to $RR_CLIENT_LOG.  Fails when either fails.
RR_CLIENT_LOG=${TMPDIR:-/tmp}/rr-client.$$
rr_run_pair() {
	_t=$1 _srv=$2 _cli=$3 _port=${4:-}
	sh -c "exec timeout -s KILL $_t $_srv" >"$RR_CLIENT_LOG.srv" 2>&1 &
	_spid=$!
	if [ -n "$_port" ]; then
		rr_wait_listen "$_port" "$_t" || { cat "$RR_CLIENT_LOG.srv"; kill "$_spid" 2>/dev/null; return 1; }
	else
		sleep 1
	fi
	sh -c "exec timeout -s KILL $_t $_cli" >"$RR_CLIENT_LOG" 2>&1
	_crc=$?
	wait "$_spid"
	_src=$?
	if [ "$_crc" != 0 ] || [ "$_src" != 0 ]; then
		echo "--- server: $_srv (rc=$_src)"; cat "$RR_CLIENT_LOG.srv"
		echo "--- client: $_cli (rc=$_crc)"; cat "$RR_CLIENT_LOG"
		return 1
	fi
	return 0
}
