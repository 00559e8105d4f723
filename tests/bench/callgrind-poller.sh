#!/bin/sh
# Instructions per completion in the poller's dispatch, counted by callgrind.
# Usage: callgrind-poller.sh path/to/bench-poller [completions]
# valgrind 3.19 (Debian 12) cannot read clang 14's DWARF 5: use a gcc build.
# bench-poller runs N synthetic completions through rpcrdma_poller_poll
# (DIRECT mode, a fake CQ, a context whose done returns at once); collection
# is on only inside rpcrdma_poller_poll (--toggle-collect: it and its
# callees), so the total Ir divided by N is the cost of one completion:
# polling the fake CQ (its share printed apart), the dispatch and the done.
set -eu
bench=$1
n=${2:-100000}
command -v valgrind >/dev/null || { echo "callgrind-poller: valgrind not installed"; exit 77; }
command -v callgrind_annotate >/dev/null || { echo "callgrind-poller: no callgrind_annotate"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out="$tmp/cg"
valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=rpcrdma_poller_poll \
	"$bench" "$n" >/dev/null 2>"$tmp/log" || { tail -n 5 "$tmp/log" >&2; exit 1; }
ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
[ -n "$ir" ] || ir=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out")
printf 'poller dispatch, callgrind, %s completions\n' "$n"
printf '  %-34s %6s Ir/completion\n' "rpcrdma_poller_poll (inclusive)" $((ir / n))
# Self cost per function (callgrind_annotate, one line each).
callgrind_annotate "$out" 2>/dev/null | sed -n '/file:function/,/^$/p' | awk -v n="$n" '
	/:(poll_batches|fake_poll_cq|rpcrdma__write_quiet_done|rpcrdma_poller_poll) / {
		ir = $1; gsub(",", "", ir); f = $0; sub(/.*:/, "", f); sub(/ .*/, "", f);
		printf "  %-34s %6.1f Ir/completion\n", f " (self)", ir / n }'
