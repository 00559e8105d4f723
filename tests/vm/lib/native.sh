# Running payloads natively, on the host's own RDMA devices (host side).
# shellcheck shell=bash

# True when the host has an RDMA device (real hardware, or rxe/siw links).
vm_native_available() {
	[ -d /sys/class/infiniband ] && [ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ]
}

# Prints the netdev of an RDMA device (from sysfs), or nothing.
vm_native_netdev() {
	local d=$1 n
	for n in /sys/class/infiniband/"$d"/ports/1/gid_attrs/ndevs/*; do
		[ -r "$n" ] || continue
		cat "$n" 2>/dev/null && return 0
	done
	command -v rdma >/dev/null 2>&1 &&
		rdma link show "$d/1" 2>/dev/null | sed -n 's/.* netdev \([^ ]*\).*/\1/p'
}

# Creates the same soft-RoCE devices as the VM (rxelo on lo, rxe0 on the
# dummy rxed0) on the host, for --native-setup.  Needs root and a kernel
# with the rdma_rxe module.  Undo with --native-teardown.
vm_native_setup() {
	[ "$(id -u)" = 0 ] || vm_die "--native-setup needs root"
	modprobe rdma_rxe 2>/dev/null || vm_die "the host kernel has no rdma_rxe module; run in the VM instead (drop --native)"
	modprobe dummy || vm_die "modprobe dummy failed"
	modprobe rdma_ucm 2>/dev/null || true
	[ -e /sys/class/infiniband/rxelo ] || rdma link add rxelo type rxe netdev lo ||
		vm_die "rdma link add rxelo type rxe netdev lo failed"
	if ! ip link show rxed0 >/dev/null 2>&1; then
		ip link add rxed0 address 02:00:00:00:00:01 type dummy || vm_die "ip link add rxed0 failed"
		sysctl -q -w net.ipv6.conf.rxed0.accept_dad=0
		ip link set rxed0 up
	fi
	[ -e /sys/class/infiniband/rxe0 ] || rdma link add rxe0 type rxe netdev rxed0 ||
		vm_die "rdma link add rxe0 type rxe netdev rxed0 failed"
	local i=0
	until ip -6 addr show dev rxed0 | grep 'fe80::ff:fe00:1/64' | grep -vq tentative; do
		i=$((i + 1))
		[ $i -gt 50 ] && vm_die "rxed0 got no link-local address fe80::ff:fe00:1"
		sleep 0.1
	done
	vm_msg "native soft-RoCE devices: rxelo (lo), rxe0 (rxed0, fe80::ff:fe00:1%rxed0)"
}

vm_native_teardown() {
	[ "$(id -u)" = 0 ] || vm_die "--native-teardown needs root"
	rdma link delete rxe0 2>/dev/null || true
	rdma link delete rxelo 2>/dev/null || true
	ip link delete rxed0 2>/dev/null || true
	vm_msg "removed rxe0, rxelo and rxed0"
}

# vm_native_run PAYLOAD...: runs the payloads with the host's devices.  The
# devices and addresses come from the environment when set
# (RPCRDMA_RAW_DEV, RPCRDMA_CM_DEV, RPCRDMA_CM_ADDR, ...), else from what
# the host has: rxelo/rxe0 when --native-setup made them, else the first
# RDMA device for both, with its netdev's first IPv4 (else IPv6 link-local)
# address for rdma_cm.
vm_native_run() {
	vm_native_available ||
		vm_die "no RDMA device on this host (/sys/class/infiniband is empty or missing): run in the VM (drop --native), or on a kernel with rdma_rxe use --native-setup"
	local devs first nd addr bindir b here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	devs=$(ls /sys/class/infiniband)
	first=$(printf '%s\n' "$devs" | head -n1)
	if [ -e /sys/class/infiniband/rxelo ] && [ -e /sys/class/infiniband/rxe0 ]; then
		: "${RPCRDMA_RAW_DEV:=rxelo}" "${RPCRDMA_CM_DEV:=rxe0}" "${RPCRDMA_CM_IF:=rxed0}"
		: "${RPCRDMA_CM_ADDR:=fe80::ff:fe00:1%rxed0}"
	fi
	: "${RPCRDMA_RAW_DEV:=$first}" "${RPCRDMA_CM_DEV:=$first}"
	if [ -z "${RPCRDMA_CM_ADDR:-}" ]; then
		nd=$(vm_native_netdev "$RPCRDMA_CM_DEV")
		[ -n "$nd" ] || vm_die "cannot find the netdev of $RPCRDMA_CM_DEV; set RPCRDMA_CM_ADDR (an address on it)"
		addr=$(ip -4 -o addr show dev "$nd" scope global | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
		if [ -z "$addr" ]; then
			addr=$(ip -6 -o addr show dev "$nd" scope link | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
			[ -n "$addr" ] && addr="$addr%$nd"
		fi
		[ -n "$addr" ] || vm_die "$nd (netdev of $RPCRDMA_CM_DEV) has no address; set RPCRDMA_CM_ADDR"
		RPCRDMA_CM_ADDR=$addr
		: "${RPCRDMA_CM_IF:=$nd}"
	fi
	: "${RPCRDMA_CM_IF:=}" "${RPCRDMA_RAW_ADDR:=127.0.0.1}"
	bindir=$(mktemp -d "${TMPDIR:-/tmp}/rpcrdma-bin.XXXXXX")
	for b in "${BINS[@]}"; do
		ln -s "$(readlink -f "$b")" "$bindir/$(basename "$b")"
	done
	vm_msg "native run: raw verbs on $RPCRDMA_RAW_DEV ($RPCRDMA_RAW_ADDR), rdma_cm on $RPCRDMA_CM_DEV ($RPCRDMA_CM_ADDR); devices: $(printf '%s ' $devs)"
	local rc=0
	env "${ENVS[@]}" RPCRDMA_VM=0 RPCRDMA_OUT="$OUTDIR" RPCRDMA_BIN="$bindir" \
		RPCRDMA_RAW_DEV="$RPCRDMA_RAW_DEV" RPCRDMA_RAW_ADDR="$RPCRDMA_RAW_ADDR" \
		RPCRDMA_CM_DEV="$RPCRDMA_CM_DEV" RPCRDMA_CM_IF="$RPCRDMA_CM_IF" \
		RPCRDMA_CM_ADDR="$RPCRDMA_CM_ADDR" RPCRDMA_PAYLOAD_DIR="$NATIVE_PAYLOAD_DIR" \
		RPCRDMA_PAYLOAD_TIMEOUT="$PAYLOAD_TIMEOUT" PATH="$bindir:$PATH" \
		sh "$here/guest/runner" "${PAYLOADS[@]}" || rc=$?
	rm -rf "$bindir"
	return "$rc"
}
