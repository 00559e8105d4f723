#!/bin/sh
# gen-sizes.sh XDRGEN BUILDDIR FILE.x...: the size of what rpcrdma-xdrgen
# writes for each .x: lines of the header and of the XDR, service and
# client files, and their .text bytes compiled with cc -O2 (docs/xdrgen.md).
# A figure for the docs, not a test.
set -eu
xdrgen=$1 build=$2 src=$(cd "$(dirname "$0")/../.." && pwd)
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-16s %7s %7s %9s %9s\n' file 'h lines' 'c lines' 'xdr .text' 'all .text'
for x in "$@"; do
	b=$(basename "$x" .x)
	imp=
	[ "$b" = nis_callback ] && imp="--import /usr/include/rpcsvc/nis.x:nis.h" &&
		"$xdrgen" /usr/include/rpcsvc/nis.x --header "$tmp/nis.h" --xdr "$tmp/nis_xdr.c"
	# shellcheck disable=SC2086
	"$xdrgen" "$x" $imp --header "$tmp/$b.h" --xdr "$tmp/${b}_xdr.c" \
		--svc "$tmp/${b}_svc.c" --clnt "$tmp/${b}_clnt.c"
	hl=$(wc -l <"$tmp/$b.h")
	cl=$(cat "$tmp/${b}_xdr.c" "$tmp/${b}_svc.c" "$tmp/${b}_clnt.c" | wc -l)
	xt=0 all=0
	for f in xdr svc clnt; do
		cc -std=c11 -O2 -D_GNU_SOURCE -w -I"$tmp" -I"$src/include" -I"$build/include" \
			-c "$tmp/${b}_$f.c" -o "$tmp/$f.o"
		t=$(size -A "$tmp/$f.o" | awk '$1 ~ /^\.text/ { s += $2 } END { print s + 0 }')
		all=$((all + t))
		[ $f = xdr ] && xt=$t
	done
	printf '%-16s %7d %7d %9d %9d\n' "$b" "$hl" "$cl" "$xt" "$all"
done
