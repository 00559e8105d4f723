#!/bin/sh
# tinynfs-krb5-test.sh TINYNFS CLIENT: tinynfs --keytab against a real KDC,
# on loopback only.  Starts a throw-away KDC (realm GSS.TEST, database,
# configuration, keytabs and credential cache in a temporary directory;
# krb5kdc on 127.0.0.1 at a free port), makes nfs/localhost (random key,
# into tinynfs's keytab) and the user gssuser, gets gssuser's ticket,
# starts tinynfs exporting a temporary directory with
# sec=krb5i:krb5p on 127.0.0.1 (TCP, any port), and runs CLIENT
# (gss_nfs_client: COMPOUNDs over krb5, krb5i, krb5p and AUTH_NONE, see
# there).  tinynfs must then stop cleanly on SIGTERM with no RPC
# counted as system_err.  The KDC and tinynfs are killed on every path.
# Exit 77 (skipped) without the krb5 programs (Debian: krb5-kdc,
# krb5-admin-server, krb5-user).
set -eu
tinynfs=$1 client=$2
. "$(dirname "$0")/../../../tests/common/kdc.sh"
kdc_need

kdc_workdir tinynfs-krb5-test

kdc_start "$T" nfs/localhost "$T/nfs.keytab"

mkdir "$T/export"
"$tinynfs" --export "$T/export rw,sec=krb5i:krb5p" -l 127.0.0.1 -p 0 --no-udp \
	--keytab "$T/nfs.keytab" --stats >"$T/tinynfs.out" 2>"$T/tinynfs.err" &
svc_pid=$!
i=0
until grep -q '^tinynfs: ready' "$T/tinynfs.out" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -ge 100 ] || ! kill -0 "$svc_pid" 2>/dev/null; then
		echo "tinynfs did not start:"; cat "$T/tinynfs.out" "$T/tinynfs.err"; exit 1
	fi
	sleep 0.1
done
sport=$(sed -n 's/^tinynfs: listening tcp 127.0.0.1 //p' "$T/tinynfs.out")
grep '^tinynfs: RPCSEC_GSS' "$T/tinynfs.out"

rc=0
timeout 60 "$client" "$sport" || rc=1
kill -TERM "$svc_pid"
wait "$svc_pid" || rc=1
svc_pid=""
grep '^tinynfs: calls' "$T/tinynfs.out" || rc=1
grep -q 'system_err 0,' "$T/tinynfs.out" || { echo "tinynfs answered SYSTEM_ERR"; rc=1; }
if [ $rc -ne 0 ]; then cat "$T/tinynfs.out" "$T/tinynfs.err"; fi
exit $rc
