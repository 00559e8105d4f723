#!/bin/sh
# rdma-callgrind.sh RUN OUTDIR SERVER BENCH LIB: boots the soft-RoCE VM with
# valgrind's callgrind copied in (the launcher, the tool, its preload
# library and the default suppressions) and runs tests/vm/payloads/
# rdma-callgrind: instructions per NULL call, client and server.
set -eu
run=$1 out=$2 server=$3 bench=$4 lib=$5
name=rdma-callgrind
. "$(dirname "$0")/callgrind-stage.sh"
"$run" --out "$out" --bin "$server" --bin "$bench" --bin /usr/bin/valgrind.bin \
	--file "$stage:/usr/libexec/valgrind" --file "$lib:/opt/rpcrdma/rdma-lib.sh" \
	rdma-callgrind
echo
cat "$out/rdma-callgrind.txt"
