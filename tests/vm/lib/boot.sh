# Booting the guest under qemu and following its console (host side).
# shellcheck shell=bash

# vm_boot INITRD OUTDIR LOG: boots, streams the console to stdout (and to
# LOG), and returns the status the guest reported with "@@RPCRDMA-STATUS n".
# Returns 124 when the guest ran past $TIMEOUT seconds or printed nothing
# for $IDLE_TIMEOUT seconds, 3 when qemu ended without a status; both print
# the console's last lines.
# Sets the array QEMU for INITRD and OUTDIR.
vm_qemu_cmd() {
	local initrd=$1 outdir=$2 append
	vm_need_cmd qemu-system-x86_64 qemu-system-x86
	append="console=ttyS0 panic=-1 rdinit=/init"
	[ "${VERBOSE:-0}" = 1 ] || append="$append quiet"
	# shellcheck disable=SC2054 # commas inside -accel/-virtfs values
	QEMU=(qemu-system-x86_64 -accel tcg,thread=multi -cpu max
		-smp "${CPUS:-2}" -m "${MEM:-1536}" -nic none -nographic -no-reboot
		-kernel "$VMLINUZ" -initrd "$initrd" -append "$append"
		-virtfs "local,path=$outdir,mount_tag=rpcrdma_out,security_model=none,id=rpcrdma_out")
}

# vm_boot_interactive INITRD OUTDIR: the console on this terminal (--shell).
vm_boot_interactive() {
	vm_qemu_cmd "$1" "$2"
	vm_msg "booting qemu with the console here; the shell comes after the payloads (exit it to power off)"
	"${QEMU[@]}"
}

vm_boot() {
	local initrd=$1 outdir=$2 log=$3 qfd qpid line status="" start now
	local last_out reason=""
	shopt -s extglob
	vm_qemu_cmd "$initrd" "$outdir"
	local qemu=("${QEMU[@]}")
	: >"$log"
	start=$(date +%s)
	vm_msg "booting qemu (TCG, ${CPUS:-2} vCPUs, ${MEM:-1536} MiB; timeout ${TIMEOUT}s, idle ${IDLE_TIMEOUT}s); console log: $log"
	# qemu runs under timeout(1), which kills it at the overall deadline;
	# the reader below also kills it when the console stays silent.
	exec {qfd}< <(exec timeout -k 5 "$TIMEOUT" "${qemu[@]}" </dev/null 2>&1)
	qpid=$!
	QEMU_PID=$qpid # killed by tests/vm/run's exit trap
	last_out=$start
	local rc pending=""
	while :; do
		rc=0
		line=""
		IFS= read -r -t 10 -u "$qfd" line || rc=$?
		if [ "$rc" -gt 128 ]; then
			pending+=$line # read timed out inside a line
		elif [ "$rc" = 0 ] || [ -n "$pending$line" ]; then
			line=$pending$line
			pending=""
			line=${line%$'\r'}
			# The firmware's terminal escapes (clear screen, wrap off).
			line=${line//$'\e'\[*([0-9;?])[a-zA-Z]/}
			line=${line//$'\e'c/}
			printf '%s\n' "$line" >>"$log"
			case $line in
			'@@RPCRDMA-STATUS '*) status=${line#@@RPCRDMA-STATUS }; status=${status%% *} ;;
			'@@RPCRDMA-BEGIN '*) printf '%s\n' "--- [$(( $(date +%s) - start ))s] payload ${line#@@RPCRDMA-BEGIN }" ;;
			'@@RPCRDMA-END '*) printf '%s\n' "--- [$(( $(date +%s) - start ))s] ${line#@@RPCRDMA-END }" ;;
			*) printf '%s\n' "$line" ;;
			esac
			last_out=$(date +%s)
			continue
		fi
		now=$(date +%s)
		if [ "$rc" -le 128 ]; then
			break # end of output: qemu has exited
		fi
		if [ $((now - last_out)) -ge "$IDLE_TIMEOUT" ]; then
			reason="the guest printed nothing for ${IDLE_TIMEOUT}s"
			kill "$qpid" 2>/dev/null
			break
		fi
		if [ $((now - last_out)) -ge 60 ] && [ $(((now - last_out) % 60)) -lt 10 ]; then
			vm_msg "still running ($((now - start))s; quiet for $((now - last_out))s)"
		fi
	done
	exec {qfd}<&-
	wait "$qpid" 2>/dev/null
	local qrc=$?
	QEMU_PID=""
	[ -z "$reason" ] && [ "$qrc" = 124 ] && reason="the guest ran past the ${TIMEOUT}s timeout (--timeout)"
	if [ -n "$reason" ]; then
		vm_msg "error: $reason; qemu killed.  Last console lines:"
		tail -n 30 "$log" | sed 's/^/  | /' >&2
		return 124
	fi
	if [ -z "$status" ]; then
		vm_msg "error: qemu ended (status $qrc) without the guest reporting a status.  Last console lines:"
		tail -n 30 "$log" | sed 's/^/  | /' >&2
		return 3
	fi
	vm_msg "guest finished in $(( $(date +%s) - start ))s with status $status"
	return "$status"
}
