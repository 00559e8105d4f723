#!/bin/sh
# The USDT probes (lib/util/trace.h) the built library carries, read from its ELF
# notes with `readelf -n`, against the list below and docs/tracing.md.
# Usage: trace-probes.sh LIBRARY TRACE RDMA DOC
#   TRACE 1: built with -Dtrace (else skip, 77); RDMA 1: with the RDMA
#   transport (its probes expected too); DOC: docs/tracing.md.
# Fails when a probe of the list is missing, when the library has one the
# list lacks, or when the guide does not describe one.
set -eu
lib=$1 trace=$2 rdma=$3 doc=$4
if [ "$trace" != 1 ]; then
	echo "trace-probes: tracing disabled (-Dtrace=disabled or no <sys/sdt.h>)"
	exit 77
fi
command -v readelf >/dev/null || { echo "trace-probes: no readelf"; exit 77; }

# the checkers (always built)
want="call_check_fail reply_check_fail"
if [ "$rdma" = 1 ]; then
	# connections
	want="$want conn_accept conn_refuse conn_established conn_cm_event conn_close conn_gone conn_free"
	want="$want credit_grant dev_remove wc_error"
	# receive path
	want="$want call_recv call_reject call_reject_reads recv_no_conn credit_overrun send_ctx_wait"
	want="$want call_pull_fail"
	# RDMA Reads, reply path, send queue
	want="$want read_start read_done reply_sent reply_no_ctx reply_bad_args reply_bad_bulk"
	want="$want reply_too_large reply_bulk_fail error_sent send_done write_done"
	want="$want sq_wait sq_resume"
fi

# "Provider: rpcrdma" then "Name: x", one pair per probe site.
have=$(readelf -n "$lib" | awk '$1 == "Provider:" { p = $2 } $1 == "Name:" && p == "rpcrdma" { print $2 }' |
	sort -u)
fail=0
n=0
for w in $want; do
	n=$((n + 1))
	if ! printf '%s\n' "$have" | grep -qx "$w"; then
		echo "missing probe: rpcrdma:$w"
		fail=1
	fi
	if ! grep -q "^| \`$w\`" "$doc"; then
		echo "not in $(basename "$doc"): rpcrdma:$w"
		fail=1
	fi
done
for h in $have; do
	case " $want " in
	*" $h "*) ;;
	*) echo "unlisted probe: rpcrdma:$h (add it to tests/trace-probes.sh and docs/tracing.md)"; fail=1 ;;
	esac
done
sites=$(readelf -n "$lib" | grep -c 'Provider: rpcrdma' || true)
echo "trace-probes: $n probes expected, $(printf '%s\n' "$have" | grep -c .) found at $sites sites in $(basename "$lib")"
exit $fail
