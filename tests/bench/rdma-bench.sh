#!/bin/sh
# rdma-bench.sh RUN OUTDIR SERVER BENCH LIB [payload options as NAME=VALUE]
# Boots the soft-RoCE VM once (tests/vm/run), runs perftest and rpcrdma-bench
# side by side (tests/vm/payloads/rdma-bench), prints the table and draws
# the round-trip CDFs (ours beside perftest's) into OUTDIR/rdma-null-rtt.png
# (rtt-plot.sh; a missing plot is reported, not a failure).
set -eu
run=$1 out=$2 server=$3 bench=$4 lib=$5
shift 5
envs=""
for e in "$@"; do envs="$envs --env $e"; done
# shellcheck disable=SC2086
"$run" --out "$out" --bin "$server" --bin "$bench" --file "$lib:/opt/rpcrdma/rdma-lib.sh" \
	$envs rdma-bench
echo
cat "$out/rdma-bench.txt"
"$(dirname "$0")/rtt-plot.sh" "$out" || echo "(no plot)"
