#!/bin/sh
# nfs-callgrind.sh RUN OUTDIR TINYNFS: boots the soft-RoCE VM with
# valgrind's callgrind copied in (as rdma-callgrind.sh does) and runs
# tests/vm/payloads/nfs-callgrind: tinynfs's user-space instructions per
# file created and removed by the kernel's NFS client over RDMA.
set -eu
run=$1 out=$2 tinynfs=$3
name=nfs-callgrind
. "$(dirname "$0")/callgrind-stage.sh"
"$run" --clean-out --out "$out" --bin "$tinynfs" --bin /usr/bin/valgrind.bin \
	--file "$stage:/usr/libexec/valgrind" nfs-callgrind
echo
cat "$out/nfs-callgrind.txt"
