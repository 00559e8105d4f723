#!/bin/sh
# rdma-callgrind.sh RUN OUTDIR SERVER BENCH LIB [NAME]: boots the soft-RoCE VM
# with valgrind's callgrind copied in (the launcher, the tool, its preload
# library and the default suppressions) and runs tests/vm/payloads/
# rdma-callgrind: instructions per NULL call, client and server.  NAME: the
# server's program name in the guest (CG_SERVER; default the echo server).
set -eu
run=$1 out=$2 server=$3 bench=$4 lib=$5 cgserver=${6:-rpcrdma-echo-server}
name=rdma-callgrind
. "$(dirname "$0")/callgrind-stage.sh"
"$run" --out "$out" --bin "$server" --bin "$bench" --bin /usr/bin/valgrind.bin \
	--file "$stage:/usr/libexec/valgrind" --file "$lib:/opt/rpcrdma/rdma-lib.sh" \
	--env "CG_SERVER=$cgserver" rdma-callgrind
echo
cat "$out/rdma-callgrind.txt"
