#!/bin/sh
# pcap-check.sh OUT RUN [ARGS...]: runs RUN ARGS (tests/vm/run ... --out OUT
# rdma-pcap), then reads every capture it brought back (OUT/pcap-*.pcap)
# with tshark on the host (the guest has none), two-pass (-2: Wireshark's
# RPC-over-RDMA reassembly of write chunks completes in the second pass, as
# in the GUI).  Each file must have frames, all InfiniBand; every message
# (a Send's only or last packet) RPC-over-RDMA; RPC inside; NFS in the NFS
# capture; no malformed frame; no expert error (warnings are printed: NFS
# ones are about the NFS content); every ICRC right (recomputed here, in
# python3, per RoCEv2).  Wireshark's `eth_over_ib` heuristic is off: it takes
# some RDMA data (a 1-byte last packet 0x08 and its zero pad) for an
# Ethernet frame (docs/pcap.md); the malformed count with it on is printed.
# Prints tshark's protocol hierarchy and expert summary of each.
set -u
out=$1
shift
"$@" || exit $?
command -v tshark >/dev/null || { echo "pcap-check: no tshark on the host: skipped"; exit 77; }
fail=0
bad() { echo "pcap-check: FAIL: $*"; fail=1; }
ts() { tshark -2 -n --disable-heuristic eth_over_ib "$@" 2>/dev/null; }
count() { ts -r "$1" ${2:+-Y "$2"} | wc -l; }
icrc() {
	python3 - "$1" <<'PY'
import struct, sys, zlib
b = open(sys.argv[1], 'rb').read()
off, n, bad = 24, 0, 0
while off + 16 <= len(b):
    incl = struct.unpack('<I', b[off + 8:off + 12])[0]
    ip = b[off + 30:off + 16 + incl]
    off += 16 + incl
    l = 20 if ip[0] >> 4 == 4 else 40
    h = bytearray(ip[:l + 20])
    if l == 20:
        h[1] = h[8] = h[10] = h[11] = 0xff
    else:
        h[0] |= 0x0f; h[1:4] = b'\xff\xff\xff'; h[7] = 0xff
    h[l + 6] = h[l + 7] = h[l + 12] = 0xff
    n += 1
    bad += zlib.crc32(b'\xff' * 8 + bytes(h) + ip[l + 20:-4]) != struct.unpack('<I', ip[-4:])[0]
print(n, bad)
PY
}
n_files=0
for f in "$out"/pcap-*.pcap; do
	[ -f "$f" ] || continue
	n_files=$((n_files + 1))
	name=$(basename "$f")
	frames=$(count "$f")
	malformed=$(count "$f" _ws.malformed)
	heur=$(tshark -2 -n -r "$f" -Y _ws.malformed 2>/dev/null | wc -l)
	errors=$(count "$f" "_ws.expert.severity >= 8388608")
	warnings=$(count "$f" "_ws.expert.severity == 6291456")
	msgs=$(count "$f" "infiniband.bth.opcode in {2, 4, 22, 23}")
	notrpcrdma=$(count "$f" "infiniband.bth.opcode in {2, 4, 22, 23} && !rpcordma")
	notib=$(count "$f" "!infiniband")
	rpc=$(count "$f" rpc)
	nfs=$(count "$f" nfs)
	rdma=$(count "$f" "infiniband.bth.opcode in {6, 7, 8, 10, 12, 13, 14, 15, 16}")
	set -- $(icrc "$f")
	echo "pcap-check: $name: frames $frames, messages $msgs (not RPC-over-RDMA: $notrpcrdma)," \
		"RDMA Read/Write frames $rdma, rpc $rpc, nfs $nfs, malformed $malformed" \
		"(with the eth_over_ib heuristic on: $heur), expert errors $errors," \
		"frames with expert warnings $warnings, bad ICRC $2 of $1"
	ts -r "$f" -q -z io,phs | sed -n '/^eth/,/^=/p'
	ts -r "$f" -q -z expert | sed -n '/[A-Za-z]/p'
	[ "$frames" -gt 0 ] || bad "$name: no frames"
	[ "$notib" = 0 ] || bad "$name: $notib frames are not InfiniBand"
	[ "$msgs" -gt 0 ] || bad "$name: no messages"
	[ "$notrpcrdma" = 0 ] || bad "$name: $notrpcrdma messages not dissected as RPC-over-RDMA"
	[ "$rpc" -gt 0 ] || bad "$name: no RPC"
	[ "$malformed" = 0 ] || bad "$name: $malformed malformed frames"
	[ "$errors" = 0 ] || bad "$name: $errors frames with expert errors"
	[ "$2" = 0 ] || bad "$name: $2 frames with a wrong ICRC"
	case $name in *nfs*) [ "$nfs" -gt 0 ] || bad "$name: no NFS" ;; esac
	case $name in *server*|*nfs*) [ "$rdma" -gt 0 ] || bad "$name: no RDMA Read or Write" ;; esac
done
[ "$n_files" = 3 ] || bad "$n_files captures, expected 3"
[ $fail = 0 ] && echo "pcap-check: ok"
exit $fail
