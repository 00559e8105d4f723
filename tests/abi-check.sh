#!/bin/sh
# Compare the dynamic symbols a shared library defines with the names its
# linker map exports.
# Usage: abi-check.sh librpcrdma.so librpcrdma.map [rdma-only.sym]
# With rdma-only.sym (a library built without RDMA), the names it lists are
# expected absent: the library must export the map minus those.
set -eu
lib=$1
map=$2
rdma_only=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TtDdBbRrVvWwi]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u > "$tmp/exported"
sed -e 's,/\*.*\*/,,g' "$map" | tr -d ' \t' | grep -E '^[A-Za-z_][A-Za-z0-9_]*;$' | tr -d ';' | sort -u > "$tmp/listed"
what=$map
if [ -n "$rdma_only" ]; then
	sed -e 's/#.*//' "$rdma_only" | tr -d ' \t' | grep -v '^$' | sort -u > "$tmp/rdma"
	comm -23 "$tmp/listed" "$tmp/rdma" > "$tmp/listed.nordma"
	mv "$tmp/listed.nordma" "$tmp/listed"
	what="$map minus $rdma_only (a build without RDMA)"
fi
bad=0
if ! cmp -s "$tmp/exported" "$tmp/listed"; then
	echo "abi-check: exported symbols differ from $what (< exported only, > listed only):"
	diff "$tmp/exported" "$tmp/listed" || true
	[ -n "$rdma_only" ] && echo "abi-check: a symbol only the RDMA transport defines belongs in $rdma_only"
	bad=1
fi
if grep -v '^rpcrdma_' "$tmp/exported"; then
	echo "abi-check: the symbols above lack the rpcrdma_ prefix"
	bad=1
fi
n=$(wc -l < "$tmp/exported")
[ "$bad" = 0 ] && echo "abi-check: $n symbols, all in $what, all prefixed rpcrdma_"
exit $bad
