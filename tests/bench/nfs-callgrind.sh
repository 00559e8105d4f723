#!/bin/sh
# nfs-callgrind.sh RUN OUTDIR TINYNFS: boots the soft-RoCE VM with
# valgrind's callgrind copied in (as rdma-callgrind.sh does) and runs
# tests/vm/payloads/nfs-callgrind: tinynfs's user-space instructions per
# file created and removed by the kernel's NFS client over RDMA.
set -eu
run=$1 out=$2 tinynfs=$3
vglib=${VALGRIND_LIB:-/usr/libexec/valgrind}
missing() { echo "nfs-callgrind: $1 missing (apt-get install valgrind)" >&2; exit 1; }
[ -e /usr/bin/valgrind.bin ] || missing /usr/bin/valgrind.bin
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for f in callgrind-amd64-linux vgpreload_core-amd64-linux.so default.supp; do
	cp "$vglib/$f" "$stage/" 2>/dev/null || missing "$vglib/$f"
done
"$run" --clean-out --out "$out" --bin "$tinynfs" --bin /usr/bin/valgrind.bin \
	--file "$stage:/usr/libexec/valgrind" nfs-callgrind
echo
cat "$out/nfs-callgrind.txt"
