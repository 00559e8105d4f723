#!/bin/sh
# Instructions per header, ours vs the baseline, counted by callgrind.
# Usage: callgrind-proto.sh path/to/bench-proto [iterations]
# valgrind 3.19 (Debian 12) cannot read clang 14's DWARF 5: use a gcc build.
# Prints whether the targets are met (checker under half the baseline's
# instructions, a call header without chunks under 40); with STRICT=1 a
# missed target is also the exit status.
# Each case runs N times under `valgrind --tool=callgrind` with collection
# switched on only inside the measured function (--toggle-collect, which
# counts the function and its callees); the total Ir divided by N is the
# cost of one call, call and return included.
set -eu
bench=$1
n=${2:-10000}
command -v valgrind >/dev/null || { echo "callgrind-proto: valgrind not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() { # case impl function
	out="$tmp/cg.$1.$2"
	valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="$3" \
		"$bench" --run "$1" "$2" "$n" >/dev/null 2>"$tmp/log" || { tail -n 5 "$tmp/log" >&2; exit 1; }
	ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
	[ -n "$ir" ] || ir=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out")
	echo $((ir / n))
}

printf 'wire-format instructions per header (callgrind, %s iterations each)\n' "$n"
printf '%-30s %8s %9s %7s\n' case ours baseline ratio
fail=0
for c in nochunk read write16 reply encode; do
	if [ "$c" = encode ]; then
		o=$(count "$c" ours rpcrdma_encode_reply_hdr)
		b=$(count "$c" base "base_encode_reply*")
		label="reply header encode"
	else
		o=$(count "$c" ours rpcrdma_check_call)
		b=$(count "$c" base "base_decode*")
		label="call check: $c"
	fi
	ratio=$(awk -v o="$o" -v b="$b" 'BEGIN { printf "%.2f", b / o }')
	printf '%-30s %8s %9s %6sx\n' "$label" "$o" "$b" "$ratio"
	if [ "$c" != encode ] && [ $((o * 2)) -ge "$b" ]; then
		echo "  target missed: checker not under half the baseline"
		fail=1
	elif [ "$c" != encode ]; then
		echo "  target met: under half the baseline"
	fi
	if [ "$c" = nochunk ] && [ "$o" -ge 40 ]; then
		echo "  target missed: no-chunk call header not under 40 instructions"
		fail=1
	elif [ "$c" = nochunk ]; then
		echo "  target met: under 40 instructions"
	fi
done
[ "${STRICT:-0}" = 1 ] && exit $fail
exit 0
