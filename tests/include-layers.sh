#!/bin/sh
# include-layers.sh LIBDIR: the layering of lib/ (docs/architecture.md).
# Each folder of LIBDIR is a layer, in this order from the bottom:
#
#   util < wire < pcap < rdma < rdma/client < gss < svc < clnt
#
# A file may include headers of its own folder and of the folders below
# it, never of a folder above (a quoted include names the folder:
# "wire/xdr.h"; an unqualified one is the file's own folder).  Fails, with
# the file, on each include that runs back up, on an include of another
# folder's header that is not one of the headers that folder offers (its
# internal header, below), on a folder not in the order, and when it finds
# fewer than 50 includes (the pattern no longer matches the code).
# include-layers.sh --self-test: the check catches an include of svc from
# rdma and from gss, and of a header util keeps to itself.
set -eu

# rank FOLDER: the folder's place in the order, or nothing.
rank() {
	case $1 in
	util) echo 0 ;; wire) echo 1 ;; pcap) echo 2 ;; rdma) echo 3 ;;
	rdma/client) echo 4 ;; gss) echo 5 ;; svc) echo 6 ;; clnt) echo 7 ;;
	esac
}

# offers FOLDER: the headers other folders may include (each one says so at
# its top).
offers() {
	case $1 in
	util) echo "util.h bcache.h byteorder.h diag_int.h list.h rescg_ledger.h trace.h" ;;
	wire) echo "wire.h" ;;
	pcap) echo "pcap_int.h" ;;
	rdma) echo "rdma_internal.h rdma_backward.h" ;;
	rdma/client) echo "rdma_client_int.h" ;;
	gss) echo "gss_int.h" ;;
	svc) echo "svc_local.h" ;;
	clnt) echo "" ;;
	esac
}

# Known exceptions, each to be removed by the change that fixes it:
# "file include" pairs (paths relative to LIBDIR).  None today.
KNOWN=""

check() {
	lib=$1 bad=0 n=0
	cd "$lib"
	for f in $(find . -name '*.[ch]' | sed 's|^\./||' | sort); do
		dir=$(dirname "$f")
		rf=$(rank "$dir")
		if [ -z "$rf" ]; then
			echo "$f: folder $dir is not in the layer order"
			bad=1
			continue
		fi
		for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			n=$((n + 1))
			if [ -e "$dir/$h" ]; then
				continue        # its own folder
			fi
			[ -e "$h" ] || continue # config.h and the like
			hd=$(dirname "$h")
			rh=$(rank "$hd")
			if [ -z "$rh" ]; then
				echo "$f: includes $h, of folder $hd not in the layer order"
				bad=1
			elif [ "$rh" -gt "$rf" ]; then
				case " $KNOWN " in *" $f $h "*) continue ;; esac
				echo "$f: includes $h: $hd is above $dir"
				bad=1
			else
				case " $(offers "$hd") " in
				*" $(basename "$h") "*) ;;
				*)
					echo "$f: includes $h, which $hd keeps to itself (it offers: $(offers "$hd"))"
					bad=1 ;;
				esac
			fi
		done
	done
	if [ "$n" -lt "${MIN_INCLUDES:-50}" ]; then
		echo "include-layers: only $n includes found: the pattern no longer matches"
		bad=1
	fi
	[ $bad = 0 ] && echo "include-layers: $n includes, none runs back up the layers or reaches past a folder's offered headers"
	return $bad
}

if [ "${1:-}" = --self-test ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/rdma" "$tmp/svc" "$tmp/util" "$tmp/gss"
	echo '#include "util/list.h"' > "$tmp/rdma/ok.c"
	echo '#include "svc/svc_int.h"' > "$tmp/rdma/bad.c"
	echo '#include "util/idr_internal.h"' > "$tmp/rdma/private.c"
	echo '#include "svc/svc_int.h"' > "$tmp/gss/up.c"
	echo '#include "gss/gss_int.h"' > "$tmp/svc/down.c"
	: > "$tmp/gss/gss_int.h"
	: > "$tmp/svc/svc_int.h"
	: > "$tmp/util/list.h"
	: > "$tmp/util/idr_internal.h"
	if (MIN_INCLUDES=1 check "$tmp") > "$tmp/out"; then
		cat "$tmp/out"; echo "include-layers: rdma including svc passed"; exit 1
	fi
	grep -q 'rdma/bad.c: includes svc/svc_int.h: svc is above rdma' "$tmp/out" ||
		{ cat "$tmp/out"; exit 1; }
	grep -q 'rdma/private.c: includes util/idr_internal.h, which util keeps' "$tmp/out" ||
		{ cat "$tmp/out"; exit 1; }
	grep -q 'gss/up.c: includes svc/svc_int.h: svc is above gss' "$tmp/out" ||
		{ cat "$tmp/out"; exit 1; }
	if grep -q 'ok.c\|down.c' "$tmp/out"; then cat "$tmp/out"; exit 1; fi
	echo "include-layers: self-test caught rdma and gss including svc and a header util keeps"
	exit 0
fi
[ $# = 1 ] || { echo "usage: include-layers.sh LIBDIR | --self-test"; exit 2; }
check "$1"
