#!/bin/sh
# rtt-plot.sh OUTDIR: draws OUTDIR/rdma-null-rtt.txt (the NULL-call round
# trips the rdma-bench payload saves: call number, microseconds) into
# OUTDIR/rdma-null-rtt.png with gnuplot (tests/deps.sh installs
# gnuplot-nox).  Says why when it draws nothing; exits 0 either way, as
# the figures are the table's.
set -eu
out=$1
if ! command -v gnuplot >/dev/null; then
	echo "plot: no gnuplot (apt-get install gnuplot-nox)"
	exit 0
fi
if [ ! -s "$out/rdma-null-rtt.txt" ]; then
	echo "plot: no round trips in $out/rdma-null-rtt.txt"
	exit 0
fi
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
