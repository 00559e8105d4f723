#!/bin/sh
# gss-krb5-test.sh SVC TIRPC_CLIENT RAW_CLIENT [OUR_CLIENT [FORGE_SVC]]: RPCSEC_GSS
# against a real KDC, on loopback only.  Starts a throw-away KDC (realm
# GSS.TEST, its database, configuration, keytabs and credential cache in
# a temporary directory; krb5kdc on 127.0.0.1 at a free port), makes the
# service principal host/localhost (random key, into the service's keytab)
# and the user gssuser (a password), gets gssuser's ticket, starts SVC
# (gss_testsvc) with the keytab, runs libtirpc's RPCSEC_GSS client
# (krb5, krb5i, krb5p, and calls without credentials refused) and the
# hostile raw client (forged, replayed, out-of-window calls) and the
# library's own client (gss_clnt_test: krb5, krb5i, krb5p; then against
# FORGE_SVC, gss_forgesvc, which forges the INIT and data reply
# verifiers: the client must refuse them), and checks
# that the service answered throughout and stops cleanly.  The KDC is
# killed on every path.  Exit 77 (skipped) without the krb5 programs
# (Debian: krb5-kdc, krb5-admin-server, krb5-user).
set -eu
svc=$1 client=$2 raw=$3 ours=${4:-} forge=${5:-}
. "$(dirname "$0")/../common/kdc.sh"
kdc_need

kdc_workdir gss-krb5-test

kdc_start "$T" host/localhost "$T/svc.keytab"

mkfifo "$T/svc.in"
"$svc" "$T/svc.keytab" <"$T/svc.in" >"$T/svc.out" 2>"$T/svc.err" &
svc_pid=$!
exec 3>"$T/svc.in"
sport=$(kdc_wait_port "$T/svc.out" "$svc_pid" "the service" "$T/svc.err") || exit 1

rc=0
echo "--- libtirpc's RPCSEC_GSS client"
timeout 30 "$client" "$sport" || rc=1
echo "--- hostile raw client"
timeout 30 "$raw" "$sport" || rc=1
echo "--- libtirpc again: the service still serves"
timeout 30 "$client" "$sport" || rc=1
if [ -n "$ours" ]; then
	echo "--- the library's own client"
	timeout 30 "$ours" "$sport" || rc=1
	echo "--- the library's own client, with a client keytab and no ticket"
	KRB5CCNAME="FILE:$T/no-such-ccache" GSS_CLNT_TEST_KEYTAB="$T/user.keytab" \
		timeout 30 "$ours" "$sport" || rc=1
	[ ! -e "$T/no-such-ccache" ] || { echo "the keytab's ticket went to KRB5CCNAME"; rc=1; }
fi

if [ -n "$ours" ] && [ -n "$forge" ]; then
	echo "--- the library's client against forged reply verifiers"
	for mode in good init none call; do
		"$forge" "$T/svc.keytab" "$mode" >"$T/forge.out" 2>&1 &
		fpid=$!
		fport=$(kdc_wait_port "$T/forge.out" "$fpid" "gss_forgesvc $mode" "$T/forge.out") || rc=1
		[ -n "$fport" ] && { timeout 30 "$ours" "$fport" forged "$mode" || rc=1; }
		kill "$fpid" 2>/dev/null || true
		wait "$fpid" 2>/dev/null || true
	done
fi

exec 3>&-
wait "$svc_pid" || rc=1
svc_pid=""
if [ $rc -ne 0 ]; then cat "$T/svc.out"; else sed -n '/^calls/p; /^gss /p' "$T/svc.out"; fi
# The hostile raw client made every kind of event the counters name
# (20 contexts from one address: 4 evicted; DESTROY; a replay; forged
# headers; MAXSEQ; bad krb5i / krb5p arguments).
gssline=$(sed -n 's/^gss //p' "$T/svc.out")
for k in contexts_created contexts_destroyed contexts_evicted credproblem_sent ctxproblem_sent \
	replays_dropped garbage_args; do
	v=$(echo "$gssline" | tr ' ' '\n' | sed -n "/^$k\$/{n;p}")
	[ "${v:-0}" -gt 0 ] || { echo "rpcrdma_svc_gss_stats: $k is '${v:-none}', not > 0"; rc=1; }
done
if [ -s "$T/svc.err" ]; then echo "service stderr:"; cat "$T/svc.err"; rc=1; fi
exit $rc
