#!/bin/sh
# rtt-plot.sh OUTDIR: draws the round-trip latency CDFs that the rdma-bench
# payload saves into OUTDIR/rdma-null-rtt.png with gnuplot (tests/deps.sh
# installs gnuplot-nox): our NULL call (rdma-null-rtt.txt) beside perftest's
# ib_send_lat in the same boot, busy polling (perftest-send-lat-rtt.txt) and
# sleeping on its completion channel (-e, perftest-send-lat-e-rtt.txt).
# Each file: "N microseconds" a line; perftest's are already round trips
# (twice the one-way figure ib_send_lat reports), which the plot says.
# Prints the medians, and "plot: FILE" when it drew; exits 0 when it drew,
# 1 when it could not (no gnuplot, no samples, gnuplot failed) and says why.
set -eu
out=$1
png=$out/rdma-null-rtt.png
rm -f "$png"
if ! command -v gnuplot >/dev/null; then
	echo "plot: no gnuplot (apt-get install gnuplot-nox)"
	exit 1
fi
ours=$out/rdma-null-rtt.txt
if [ ! -s "$ours" ]; then
	echo "plot: no round trips in $ours"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cdf IN OUT: the sorted round trips with the fraction of samples at or
# below each; prints "count median p99".
cdf() {
	awk '{ print $2 }' "$1" | sort -g >"$tmp/sorted"
	awk '{ v[NR] = $1 } END {
		for (i = 1; i <= NR; i++) printf "%s %.6f\n", v[i], i / NR
		printf "%d %s %s\n", NR, v[int((NR + 1) / 2)], v[int((NR * 99 + 99) / 100)] >"/dev/stderr"
	}' "$tmp/sorted" 2>"$tmp/stats" >"$2"
	cat "$tmp/stats"
}

# One curve per series that has samples: file, title, style.
plots=""
add() { # samples-file name title-prefix style
	[ -s "$1" ] || { echo "plot: no samples in $1 (curve left out)"; return 0; }
	set -- "$1" "$2" "$3" "$4" "$(cdf "$1" "$tmp/$2.cdf")"
	# shellcheck disable=SC2086
	set -- "$@" $5
	printf '  %-48s %6s samples, median %9.1f us, p99 %9.1f us\n' "$3" "$6" "$7" "$8"
	plots="$plots${plots:+, }\"$tmp/$2.cdf\" using 1:2 with steps $4 title \"$3 (median $(printf %.0f "$7") us)\""
}
# The poller mode of our samples (the first mode of rdma-bench.tsv).
mode=$(awk -F '\t' 'NR == 2 { print $1; exit }' "$out/rdma-bench.tsv" 2>/dev/null || true)
echo "round trips, 64 B / NULL call (CDF in $png):"
add "$ours" ours "librpcrdma NULL call${mode:+, $mode pollers}" "lw 3 lc rgb '#c00000'"
add "$out/perftest-send-lat-rtt.txt" lat "perftest 2 x ib_send_lat 64 B, busy polling" "lw 2 lc rgb '#0050c0'"
add "$out/perftest-send-lat-e-rtt.txt" late "perftest 2 x ib_send_lat -e 64 B, sleeping" "lw 2 dt 2 lc rgb '#008040'"

gnuplot <<GP || { echo "plot: gnuplot failed"; exit 1; }
set terminal pngcairo size 1000,680 noenhanced font ",11"
set output "$png"
set title "Round-trip latency CDF, same boot: librpcrdma NULL call vs perftest raw verbs\n(soft-RoCE under qemu TCG: ratios matter, not absolute times)\nperftest: ib_send_lat reports half of each ping-pong (one-way latency); its samples are doubled here"
set xlabel "round trip (microseconds, log scale)"
set rmargin 6
set ylabel "fraction of round trips <= x"
set logscale x
set yrange [0:1]
set ytics 0.1
set grid xtics mxtics ytics
set bmargin 8
set key at screen 0.5, screen 0.015 center bottom vertical Left reverse box
plot $plots
GP
echo "plot: $png"
