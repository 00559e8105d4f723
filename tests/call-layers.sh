#!/bin/sh
# call-layers.sh LIBDIR ARCHIVE: the layering of lib/ as the linker sees
# it (docs/architecture.md).  ARCHIVE holds the library's objects (the
# white-box archive, librpcrdma-whitebox.a); each object is named after its
# source, its path's "/" as "_" (rdma/client/rdma_client.c:
# rdma_client_rdma_client.c.o).  For each function or variable an object
# uses, the folder of the object that defines it must be the user's own or
# one below it, in the order of include-layers.sh:
#
#   util < wire < pcap < rdma < rdma/client < gss < svc < clnt
#
# so no folder calls up, and no two folders call each other.  Fails on
# each call that runs back up, naming the caller's object and the symbol,
# and when it resolves fewer than MIN_USES (20; a build without RDMA has
# about 30) cross-folder uses (the naming no longer matches).
# call-layers.sh --self-test CC...: an rdma object calling a svc function is
# caught, and so are two files of one folder calling each other.  A call up
# through a pointer (a completion's done, a handler, a class's hook) is not
# a use: that is how a layer is told.
#
# Inside a folder, too, the files form layers: the functions a file uses
# from its folder's other files (text symbols; a table of a folder's
# classes is data, and how a layer is told) must not lead back to it.
# Fails on each such circle, naming its files (tsort's loop).  Known
# circles, each to be removed by the change that undoes it, are in
# KNOWN_CIRCLES below: their files count as one, so a file that joins one,
# or a new circle, still fails.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "${1:-}" = --self-test ]; then
	shift
	cc=${*:-cc} # the compiler's command, maybe several words
	mkdir -p "$tmp/t/lib/rdma" "$tmp/t/lib/svc" "$tmp/t/lib/gss"
	echo 'int svc_fn(void); int rdma_fn(void) { return svc_fn(); }' > "$tmp/t/lib/rdma/up.c"
	echo 'int svc_fn(void); int gss_fn(void) { return svc_fn(); }' > "$tmp/t/lib/gss/up.c"
	echo 'int svc_fn(void) { return 1; }' > "$tmp/t/lib/svc/down.c"
	$cc -c -o "$tmp/t/rdma_up.c.o" "$tmp/t/lib/rdma/up.c"
	$cc -c -o "$tmp/t/svc_down.c.o" "$tmp/t/lib/svc/down.c"
	$cc -c -o "$tmp/t/gss_up.c.o" "$tmp/t/lib/gss/up.c"
	ar rc "$tmp/t/t.a" "$tmp/t/rdma_up.c.o" "$tmp/t/svc_down.c.o" "$tmp/t/gss_up.c.o"
	if MIN_USES=1 "$0" "$tmp/t/lib" "$tmp/t/t.a" > "$tmp/out"; then
		cat "$tmp/out"; echo "call-layers: rdma calling svc passed"; exit 1
	fi
	grep -q 'rdma_up.c.o (rdma) calls svc_fn, defined in svc above it' "$tmp/out" ||
		{ cat "$tmp/out"; exit 1; }
	grep -q 'gss_up.c.o (gss) calls svc_fn, defined in svc above it' "$tmp/out" ||
		{ cat "$tmp/out"; exit 1; }
	# two files of a folder calling each other; a third only calling down
	mkdir -p "$tmp/c/lib/wire"
	echo 'int b_fn(void); int a_fn(void) { return b_fn(); }' > "$tmp/c/lib/wire/a.c"
	echo 'int a_fn(void); int b_fn(void) { return a_fn() + 1; }' > "$tmp/c/lib/wire/b.c"
	echo 'int a_fn(void); int c_fn(void) { return a_fn(); }' > "$tmp/c/lib/wire/c.c"
	for f in a b c; do $cc -c -o "$tmp/c/wire_$f.c.o" "$tmp/c/lib/wire/$f.c"; done
	ar rc "$tmp/c/t.a" "$tmp/c/wire_a.c.o" "$tmp/c/wire_b.c.o" "$tmp/c/wire_c.c.o"
	if MIN_USES=0 "$0" "$tmp/c/lib" "$tmp/c/t.a" > "$tmp/out"; then
		cat "$tmp/out"; echo "call-layers: wire/a.c and wire/b.c calling each other passed"; exit 1
	fi
	grep -q 'files of wire call each other in a circle: wire_a.c.o wire_b.c.o' "$tmp/out" ||
		{ cat "$tmp/out"; exit 1; }
	if grep -q 'wire_c' "$tmp/out"; then cat "$tmp/out"; exit 1; fi
	echo "call-layers: self-test caught rdma and gss calling svc, and a circle of files"
	exit 0
fi
[ $# = 2 ] || { echo "usage: call-layers.sh LIBDIR ARCHIVE | --self-test CC"; exit 2; }
lib=$1 archive=$2

# object name -> folder, longest folder first (rdma/client before rdma)
for d in rdma/client util wire pcap rdma gss svc clnt; do
	[ -d "$lib/$d" ] || continue
	for c in $(find "$lib/$d" -maxdepth 1 -name '*.c' | sort); do
		rel=${c#"$lib"/}
		echo "$(echo "$rel" | tr / _).o $d"
	done
done > "$tmp/objs"

# "symbol member" for each global definition and each use
nm -A -P --defined-only "$archive" | awk '$3 ~ /^[TDBRVW]$/ {
	split($1, a, "[][]"); m = a[2]; sub(/.*\//, "", m); print $2, m, $3 }' > "$tmp/defs"
nm -A -P -u "$archive" | awk '{ split($1, a, "[][]"); m = a[2]; sub(/.*\//, "", m); print $2, m }' > "$tmp/uses"

set +e
awk -v min="${MIN_USES:-20}" '
function rank(d) {
	if (d == "util") return 0
	if (d == "wire") return 1
	if (d == "pcap") return 2
	if (d == "rdma") return 3
	if (d == "rdma/client") return 4
	if (d == "gss") return 5
	if (d == "svc") return 6
	if (d == "clnt") return 7
	return -1
}
FILENAME == ARGV[1] { folder[$1] = $2; next }
FILENAME == ARGV[2] { if ($2 in folder) def[$1] = folder[$2]; next }
{
	if (!($2 in folder) || !($1 in def)) next
	from = folder[$2]; to = def[$1]
	if (from == to) next
	n++
	if (rank(from) < 0 || rank(to) < 0) {
		printf "%s: %s: folder not in the layer order\n", $2, $1; bad = 1
	} else if (rank(to) > rank(from)) {
		printf "%s (%s) calls %s, defined in %s above it\n", $2, from, $1, to; bad = 1
	}
}
END {
	if (n < min) { printf "call-layers: only %d cross-folder uses resolved: the naming no longer matches\n", n; bad = 1 }
	if (!bad) printf "call-layers: %d cross-folder uses, none runs back up the layers\n", n
	exit bad
}' "$tmp/objs" "$tmp/defs" "$tmp/uses"
bad=$?
set -e

# Circles of files inside a folder.  KNOWN_CIRCLES: "folder:obj,obj,..."
# words, each such circle as it stands today (its files count as one).
KNOWN_CIRCLES="rdma:rdma_rdma_backward.c.o,rdma_rdma_budget.c.o,rdma_rdma_conn.c.o,rdma_rdma_recv.c.o,rdma_rdma_rw.c.o,rdma_rdma_send.c.o"
awk -v known="$KNOWN_CIRCLES" '
BEGIN {
	nk = split(known, ks, " ")
	for (i = 1; i <= nk; i++) {
		split(ks[i], fk, ":"); no = split(fk[2], os, ",")
		for (j = 1; j <= no; j++) node[os[j]] = "known-circle-" i
	}
}
FILENAME == ARGV[1] { folder[$1] = $2; next }
FILENAME == ARGV[2] { if ($2 in folder && $3 == "T") def[$1] = $2; next }
{
	if (!($2 in folder) || !($1 in def)) next
	from = $2; to = def[$1]
	if (from == to || folder[from] != folder[to]) next
	a = from in node ? node[from] : from
	b = to in node ? node[to] : to
	if (a != b) print folder[from], a, b
}' "$tmp/objs" "$tmp/defs" "$tmp/uses" | sort -u > "$tmp/inner"
nin=$(wc -l < "$tmp/inner")
for d in $(cut -d' ' -f1 "$tmp/inner" | sort -u); do
	if ! awk -v d="$d" '$1 == d { print $2, $3 }' "$tmp/inner" | tsort > /dev/null 2> "$tmp/loop"; then
		echo "call-layers: files of $d call each other in a circle:" \
			$(sed -n 's/^tsort: \([^-].*\)/\1/p' "$tmp/loop" | sort -u)
		bad=1
	fi
done
if [ "$nin" -lt "${MIN_USES:-20}" ]; then
	echo "call-layers: only $nin uses between files of one folder: the naming no longer matches"
	bad=1
fi
[ $bad = 0 ] && echo "call-layers: $nin uses between files of one folder, no circle but the known"
exit $bad
