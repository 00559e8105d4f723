#!/bin/sh
# check-man-symbols.sh MAP... -- MAN-LINKS.PY PAGE.scd...: every function
# the linker maps export has its man page: it is the name of a page, or a
# page's SYNOPSIS declares it, so that docs/meson.build gives it a link
# page and `man FUNCTION` works.  Prints the ones that have none.
set -eu
maps=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	maps="$maps $1"
	shift
done
[ $# -gt 1 ] || { echo "usage: check-man-symbols.sh MAP... -- MAN-LINKS.PY PAGE.scd..."; exit 2; }
shift
links_py=$1
shift
# shellcheck disable=SC2086 # the maps' paths have no spaces
names=$(sed -n 's/^[[:space:]]*\(rpcrdma_[A-Za-z0-9_]*\);.*/\1/p' $maps)
[ -n "$names" ] || { echo "no symbols found in$maps"; exit 1; }
documented=$(python3 "$links_py" "$@" | awk '{ print $1; print $2 }' | sort -u)
missing=0 total=0
for n in $names; do
	total=$((total + 1))
	if ! printf '%s\n' "$documented" | grep -qx -- "$n"; then
		echo "no man page declares $n in its SYNOPSIS"
		missing=$((missing + 1))
	fi
done
echo "$total exported functions, $missing without a man page"
[ "$missing" -eq 0 ]
