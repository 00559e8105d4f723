#!/bin/sh
# check-man-symbols.sh MAP PAGE.scd...: every function the linker map
# exports is named in some man page source.  Prints the ones that are not.
set -eu
map=$1
shift
names=$(sed -n 's/^[[:space:]]*\(rpcrdma_[A-Za-z0-9_]*\);.*/\1/p' "$map")
[ -n "$names" ] || { echo "no symbols found in $map"; exit 1; }
missing=0 total=0
for n in $names; do
	total=$((total + 1))
	if ! grep -qw -- "$n" "$@"; then
		echo "not in any man page: $n"
		missing=$((missing + 1))
	fi
done
echo "$total exported functions, $missing not in a man page"
[ "$missing" -eq 0 ]
