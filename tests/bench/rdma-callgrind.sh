#!/bin/sh
# rdma-callgrind.sh RUN OUTDIR SERVER BENCH LIB: boots the soft-RoCE VM with
# valgrind's callgrind copied in (the launcher, the tool, its preload
# library and the default suppressions) and runs tests/vm/payloads/
# rdma-callgrind: instructions per NULL call, client and server.
set -eu
run=$1 out=$2 server=$3 bench=$4 lib=$5
vglib=${VALGRIND_LIB:-/usr/libexec/valgrind}
missing() { echo "rdma-callgrind: $1 missing (apt-get install valgrind)" >&2; exit 1; }
[ -e /usr/bin/valgrind.bin ] || missing /usr/bin/valgrind.bin
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for f in callgrind-amd64-linux vgpreload_core-amd64-linux.so default.supp; do
	cp "$vglib/$f" "$stage/" 2>/dev/null || missing "$vglib/$f"
done
"$run" --out "$out" --bin "$server" --bin "$bench" --bin /usr/bin/valgrind.bin \
	--file "$stage:/usr/libexec/valgrind" --file "$lib:/opt/rpcrdma/rdma-lib.sh" \
	rdma-callgrind
echo
cat "$out/rdma-callgrind.txt"
