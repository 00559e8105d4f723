#!/bin/sh
# rdma-bench.sh RUN OUTDIR SERVER BENCH LIB [payload options as NAME=VALUE]
# Boots the soft-RoCE VM once (tests/vm/run), runs perftest and rpcrdma-bench
# side by side (tests/vm/payloads/rdma-bench), prints the table and, when
# gnuplot is installed, draws the NULL-call round trips into
# OUTDIR/rdma-null-rtt.png.
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
if command -v gnuplot >/dev/null && [ -s "$out/rdma-null-rtt.txt" ]; then
	gnuplot <<GP
set terminal png size 900,500
set output "$out/rdma-null-rtt.png"
set title "librpcrdma NULL call round trip over soft-RoCE (qemu TCG)"
set xlabel "call"
set ylabel "round trip (us)"
set logscale y
plot "$out/rdma-null-rtt.txt" using 1:2 with points pt 7 ps 0.3 title "NULL call RTT"
GP
	echo "plot: $out/rdma-null-rtt.png"
fi
