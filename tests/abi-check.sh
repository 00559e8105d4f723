#!/bin/sh
# Compare the dynamic symbols a shared library defines with the names its
# linker map exports.  Usage: abi-check.sh librpcrdma.so librpcrdma.map
set -eu
lib=$1
map=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TtDdBbRrVvWwi]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u > "$tmp/exported"
sed -e 's,/\*.*\*/,,g' "$map" | tr -d ' \t' | grep -E '^[A-Za-z_][A-Za-z0-9_]*;$' | tr -d ';' | sort -u > "$tmp/listed"
bad=0
if ! cmp -s "$tmp/exported" "$tmp/listed"; then
	echo "abi-check: exported symbols differ from $map (< exported only, > listed only):"
	diff "$tmp/exported" "$tmp/listed" || true
	bad=1
fi
if grep -v '^rpcrdma_' "$tmp/exported"; then
	echo "abi-check: the symbols above lack the rpcrdma_ prefix"
	bad=1
fi
n=$(wc -l < "$tmp/exported")
[ "$bad" = 0 ] && echo "abi-check: $n symbols, all in the map, all prefixed rpcrdma_"
exit $bad
