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
# shellcheck shell=sh disable=SC3043
# Functions use "local" (busybox sh and dash have it).

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

# rr_nfsd_start EXPORT [OPTION...]: the kernel's NFS server (NFSv4, grace
# and lease 10 s, grace ended at once) exporting the directory EXPORT to
# everyone (rw, fsid=1, no_root_squash, sync); OPTIONs go to rpc.nfsd
# (--rdma=20049 adds the RDMA listener).  Starts rpcbind if none runs.
# RR_NFSD_EXPORT_OPTS replaces the export options (e.g. to add sec=krb5).
rr_nfsd_start() {
	_exp=$1
	shift
	mkdir -p /run/rpcbind /var/lib/nfs/v4recovery /var/lib/nfs/rpc_pipefs
	mount -t nfsd nfsd /proc/fs/nfsd || rr_fail "mount nfsd"
	mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs 2>/dev/null
	[ -S /run/rpcbind.sock ] || /sbin/rpcbind || rr_fail "rpcbind did not start"
	_i=0
	until [ -S /run/rpcbind.sock ]; do
		_i=$((_i + 1)); [ $_i -gt 100 ] && rr_fail "rpcbind made no /run/rpcbind.sock"
		sleep 0.1
	done
	echo "$_exp *(${RR_NFSD_EXPORT_OPTS:-rw,fsid=1,no_root_squash,insecure,no_subtree_check,sync})" >/etc/exports
	/usr/sbin/exportfs -ra || rr_fail "exportfs -ra"
	/usr/sbin/rpc.mountd || rr_fail "rpc.mountd did not start"
	/usr/sbin/rpc.nfsd --grace-time 10 --lease-time 10 "$@" 4 || rr_fail "rpc.nfsd $*"
	echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null
	rr_say "nfsd listening on: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
}

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

# rr_wait_listen PORT [SECONDS [PID]]: waits until a TCP socket listens on
# PORT; gives up early when process PID has exited.
rr_wait_listen() {
	local _hex _n
	_hex=$(printf '%04X' "$1")
	_n=$(( ${2:-30} * 10 ))
	while [ "$_n" -gt 0 ]; do
		if cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
			awk -v p=":$_hex" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }'; then
			return 0
		fi
		if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then
			return 1
		fi
		sleep 0.1
		_n=$((_n - 1))
	done
	return 1
}

# rr_run_pair TIMEOUT "SERVER CMD" "CLIENT CMD" [PORT]: starts the server in
# the background, waits until it listens on TCP PORT (without PORT: one
# second), runs the client, then waits for the server.  Each gets TIMEOUT
# seconds.  The client's output is left in $RR_CLIENT_LOG, the server's in
# $RR_SERVER_LOG; both are printed when either fails (status 1).
RR_CLIENT_LOG=${TMPDIR:-/tmp}/rr-client.$$
RR_SERVER_LOG=${TMPDIR:-/tmp}/rr-server.$$
rr_run_pair() {
	local _t _srv _cli _port _spid _crc _src
	_t=$1 _srv=$2 _cli=$3 _port=${4:-}
	: >"$RR_CLIENT_LOG"
	sh -c "exec timeout -s KILL $_t $_srv" >"$RR_SERVER_LOG" 2>&1 &
	_spid=$!
	_crc=skipped
	if [ -n "$_port" ]; then
		rr_wait_listen "$_port" "$_t" "$_spid" || _crc="not run: server not listening on port $_port"
	else
		sleep 1
	fi
	if [ "$_crc" = skipped ]; then
		sh -c "exec timeout -s KILL $_t $_cli" >"$RR_CLIENT_LOG" 2>&1
		_crc=$?
	else
		kill "$_spid" 2>/dev/null
	fi
	wait "$_spid"
	_src=$?
	if [ "$_crc" != 0 ] || [ "$_src" != 0 ]; then
		echo "--- server: $_srv (rc=$_src)"; cat "$RR_SERVER_LOG"
		echo "--- client: $_cli (rc=$_crc)"; cat "$RR_CLIENT_LOG"
		return 1
	fi
	return 0
}

# ---- The raw-verbs baseline (perftest), measured once per boot ----------
# Later benchmarks print their figures beside it:
#   . "$RPCRDMA_LIB"
#   rr_baseline_ensure                 # measures it unless done this boot
#   rr_baseline_print                  # the table
#   rr_compare "our send 64 B" 25.1 us ib_send_lat 64 t_typical_us
# $RPCRDMA_STATE holds this boot's (this run's, natively) results; files in
# $RPCRDMA_OUT may be from earlier runs.
: "${RPCRDMA_STATE:=/run/rpcrdma}"
export RPCRDMA_STATE
mkdir -p "$RPCRDMA_STATE"
RR_BASELINE=$RPCRDMA_STATE/perftest-baseline.tsv
RR_BASELINE_COLS="test	size	inline_req	inline_eff	iters	t_typical_us	t_avg_us	t_p99_us	bw_avg_MiBps	bw_peak_MiBps	msgrate_Mpps"
RR_PERFTEST_PORT=18515

# rr_perftest TEST SIZE INLINE ITERS [FLAG]: one perftest run (server and
# client on $RPCRDMA_RAW_DEV, side channel over $RPCRDMA_RAW_ADDR); appends a
# row to $RR_BASELINE.  INLINE "-" passes no -I (read tests have no inline
# data).  FLAG, one perftest option letter, runs the test in another mode and
# names its row TEST_FLAG: e (sleep on the completion channel instead of
# busy polling: ib_send_lat_e), b (both directions at once: ib_send_bw_b).
# perftest's MB/sec are 2^20 bytes per second.
rr_perftest() {
	local _test _size _inl _iters _port _args _try _row _name
	_test=$1 _size=$2 _inl=$3 _iters=$4 _name=$1
	_args="-d $RPCRDMA_RAW_DEV -F -s $_size -n $_iters"
	[ "$_inl" != - ] && _args="$_args -I $_inl"
	if [ -n "${5:-}" ]; then
		_args="$_args -$5"
		_name="${_test}_$5"
	fi
	mkdir -p "$RPCRDMA_OUT/perftest-logs"
	# perftest derives times from the TSC; under emulation a run now and
	# then reports inf/nan: such a run is repeated (three tries).
	for _try in 1 2 3; do
		_port=$RR_PERFTEST_PORT
		RR_PERFTEST_PORT=$((RR_PERFTEST_PORT + 1))
		rr_run_pair 300 "$_test $_args -p $_port" "$_test $_args -p $_port $RPCRDMA_RAW_ADDR" "$_port" ||
			{ echo "perftest $_name $_size failed"; return 1; }
		cp "$RR_CLIENT_LOG" "$RPCRDMA_OUT/perftest-logs/$_name-$_size.txt"
		_row=$(awk -v t="$_name" -v s="$_size" -v ir="$_inl" -v n="$_iters" '
		/Max inline data/ { ie = $0; sub(/.*: */, "", ie); sub(/\[B\].*/, "", ie) }
		$1 == s && $2 == n && NF >= 5 { row = $0 }
		END {
			if (row == "") exit 1
			if (ie == "") ie = "-"
			split(row, f, " ")
			if (t ~ /_lat/) { a = f[5]; b = f[6]; c = f[8] } else { a = f[4]; b = f[3]; c = f[5] }
			if (a !~ /^[0-9.]+$/ || a + 0 <= 0) exit 2
			if (t ~ /_lat/)
				printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t-\t-\t-\n", t, s, ir, ie, n, a, b, c
			else
				printf "%s\t%s\t%s\t%s\t%s\t-\t-\t-\t%s\t%s\t%s\n", t, s, ir, ie, n, a, b, c
		}' "$RR_CLIENT_LOG")
		case $? in
		0) [ -f "$RR_BASELINE" ] || echo "$RR_BASELINE_COLS" >"$RR_BASELINE"
		   printf '%s\n' "$_row" >>"$RR_BASELINE"
		   return 0 ;;
		2) echo "perftest $_name $_size reported no usable figure (try $_try):"
		   grep -E "^ *$_size " "$RR_CLIENT_LOG" ;;
		*) cat "$RR_CLIENT_LOG"
		   echo "perftest $_name $_size: no result line in its output"
		   return 1 ;;
		esac
	done
	return 1
}

# rr_baseline_measure [quick]: the whole baseline: latency at 64 B and 4 KiB,
# bandwidth at 64 KiB and 1 MiB; quick runs fewer iterations.  Inline data
# is asked for explicitly (-I 64 for 64 B, -I 0 above); the table shows what
# perftest used (it turns inline off on devices it does not know, e.g. rxe).
rr_baseline_measure() {
	local _ln _b64 _b1m _t _i64 _i4k _inl
	_ln=2000 _b64=1000 _b1m=100
	[ "${1:-}" = quick ] && { _ln=500; _b64=200; _b1m=20; }
	rm -f "$RR_BASELINE"
	rr_say "measuring the raw-verbs baseline (perftest on $RPCRDMA_RAW_DEV via $RPCRDMA_RAW_ADDR)"
	for _t in ib_send_lat ib_write_lat ib_read_lat; do
		_i64=64 _i4k=0
		[ "$_t" = ib_read_lat ] && { _i64=-; _i4k=-; }
		rr_perftest "$_t" 64 "$_i64" "$_ln" || return 1
		rr_perftest "$_t" 4096 "$_i4k" "$_ln" || return 1
	done
	for _t in ib_send_bw ib_write_bw ib_read_bw; do
		_inl=0
		[ "$_t" = ib_read_bw ] && _inl=-
		rr_perftest "$_t" 65536 "$_inl" "$_b64" || return 1
		rr_perftest "$_t" 1048576 "$_inl" "$_b1m" || return 1
	done
	cp "$RR_BASELINE" "$RPCRDMA_OUT/perftest-baseline.tsv"
}

rr_baseline_ensure() {
	[ -s "$RR_BASELINE" ] || rr_baseline_measure "$@"
}

# rr_baseline_print: the baseline as two tables (latency, bandwidth).
rr_baseline_print() {
	[ -s "$RR_BASELINE" ] || { echo "no perftest baseline measured in this boot"; return 1; }
	awk -F '\t' -v dev="$RPCRDMA_RAW_DEV" '
	NR == 1 { next }
	$1 ~ /_lat/ { lat[++nl] = $0 }
	$1 ~ /_bw/ { bw[++nb] = $0 }
	END {
		printf "raw verbs baseline: perftest on %s (soft-RoCE), same boot\n", dev
		printf "  %-13s %8s %7s %7s %6s %11s %9s %9s\n", "latency", "size", "-I", "inline", "iters", "typical_us", "avg_us", "p99_us"
		for (i = 1; i <= nl; i++) {
			split(lat[i], f, "\t")
			printf "  %-13s %8s %7s %7s %6s %11s %9s %9s\n", f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]
		}
		printf "  %-13s %8s %7s %7s %6s %11s %9s %9s\n", "bandwidth", "size", "-I", "inline", "iters", "avg_MiB/s", "peak", "Mpps"
		for (i = 1; i <= nb; i++) {
			split(bw[i], f, "\t")
			printf "  %-13s %8s %7s %7s %6s %11s %9s %9s\n", f[1], f[2], f[3], f[4], f[5], f[9], f[10], f[11]
		}
	}' "$RR_BASELINE"
}

# rr_baseline_get TEST SIZE COLUMN: one figure (COLUMN: a header name).
rr_baseline_get() {
	awk -F '\t' -v t="$1" -v s="$2" -v c="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$1 == t && $2 == s && (c in col) { print $col[c]; found = 1; exit }
	END { exit !found }' "$RR_BASELINE"
}

# rr_compare LABEL VALUE UNIT TEST SIZE COLUMN: prints our figure beside the
# baseline's, with their ratio (ours / perftest).
rr_compare() {
	local _ref
	_ref=$(rr_baseline_get "$4" "$5" "$6") || _ref=-
	awk -v l="$1" -v v="$2" -v u="$3" -v t="$4" -v s="$5" -v r="$_ref" 'BEGIN {
		if (r == "-" || r + 0 == 0) ratio = "-"; else ratio = sprintf("%.2f", v / r)
		printf "  %-28s %10s %-6s | %s %s B: %s %s | ours/perftest %s\n", l, v, u, t, s, r, u, ratio
	}'
}
