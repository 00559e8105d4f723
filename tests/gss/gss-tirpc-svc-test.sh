#!/bin/sh
# gss-tirpc-svc-test.sh SVC CLIENT [OUR_CLIENT]: libtirpc's own server-side RPCSEC_GSS
# (svc_auth_gss) in SVC (gss_tirpc_svc, a libtirpc program also served
# over RDMA through the TI-RPC bridge in the VM's gss-peers) against
# libtirpc's authgss client CLIENT (gss_tirpc_client), over TCP on
# loopback, with the throw-away KDC of tests/common/kdc.sh: krb5, krb5i,
# krb5p with ECHO and a BIGECHO of 65000 bytes (libtirpc's clnt_vc cannot
# send a krb5i or krb5p body beyond its 64 KiB record buffer: authgss's
# XDR_INLINE of the body fails; the bridge's RDMA client has no such limit
# and sends 1 MiB in the VM), calls without credentials refused, and the
# server's count of calls; then the library's own client (OUR_CLIENT,
# gss_clnt_test: krb5, krb5i, krb5p, AUTH_NONE refused), which must ask
# for no per-message sequencing (RFC 2203 5.2.2: libtirpc's acceptor
# refuses a GSS_S_GAP_TOKEN).  Exit 77 (skipped) without the krb5
# programs.
set -eu
svc=$1 client=$2 ours=${3:-}
. "$(dirname "$0")/../common/kdc.sh"
kdc_need

kdc_workdir gss-tirpc-svc-test

kdc_start "$T" host/localhost "$T/svc.keytab"

mkfifo "$T/svc.in"
# libtirpc's svc_auth_gss acquires its acceptor credential at every
# RPCSEC_GSS_INIT into one global, dropping the last one unreleased
# (svcauth_gss_acquire_cred): LeakSanitizer, in a sanitizer build, reports
# what MIT allocated for them.  Only the server's, only in MIT's libraries.
printf 'leak:libgssapi_krb5.so\nleak:libkrb5.so\n' >"$T/lsan.supp"
LSAN_OPTIONS=suppressions=$T/lsan.supp \
	"$svc" "$T/svc.keytab" host@localhost <"$T/svc.in" >"$T/svc.out" 2>"$T/svc.err" &
svc_pid=$!
exec 3>"$T/svc.in"
sport=$(kdc_wait_port "$T/svc.out" "$svc_pid" gss_tirpc_svc "$T/svc.err") || exit 1

rc=0
echo "--- libtirpc's authgss client against libtirpc's svc_auth_gss over TCP"
timeout 60 "$client" -b 65000 "$sport" host@localhost || rc=1
if [ -n "$ours" ]; then
	echo "--- the library's own client against libtirpc's svc_auth_gss over TCP"
	timeout 60 "$ours" "$sport" || rc=1
fi
exec 3>&-
wait "$svc_pid" || { echo "gss_tirpc_svc exited badly"; rc=1; }
svc_pid=""
cat "$T/svc.out" "$T/svc.err"
# libtirpc's client: 4 flavour runs of 6 calls (WHOAMI, ECHO 1, ECHO
# 40000, BIGECHO, NULL, and the NULL of RPCSEC_GSS_DESTROY) and 2 refused
# calls reach the dispatch routine; the library's client adds 13
calls=$(sed -n 's/^calls //p' "$T/svc.out")
want=26
[ -n "$ours" ] && want=39
[ "${calls:-0}" = $want ] || { echo "the dispatch routine saw ${calls:-no} calls, not $want"; rc=1; }
exit $rc
