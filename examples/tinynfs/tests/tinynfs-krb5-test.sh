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
PATH=$PATH:/usr/sbin:/sbin
for p in kdb5_util krb5kdc kadmin.local kinit; do
	command -v "$p" >/dev/null 2>&1 || { echo "skip: no $p"; exit 77; }
done

T=$(mktemp -d /tmp/tinynfs-krb5-test.XXXXXX)
kdc_pid="" srv_pid=""
cleanup() {
	[ -n "$kdc_pid" ] && kill "$kdc_pid" 2>/dev/null && wait "$kdc_pid" 2>/dev/null
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null && wait "$srv_pid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/krb5.conf" <<EOT
[libdefaults]
	default_realm = GSS.TEST
	dns_lookup_realm = false
	dns_lookup_kdc = false
	dns_canonicalize_hostname = false
	rdns = false
[realms]
	GSS.TEST = {
		kdc = 127.0.0.1:$port
	}
[domain_realm]
	localhost = GSS.TEST
EOT
cat >"$T/kdc.conf" <<EOT
[kdcdefaults]
	kdc_listen = 127.0.0.1:$port
	kdc_tcp_listen = 127.0.0.1:$port
[realms]
	GSS.TEST = {
		database_name = $T/principal
		key_stash_file = $T/stash
		acl_file = $T/kadm5.acl
	}
[logging]
	kdc = FILE:$T/kdc.log
EOT
: >"$T/kadm5.acl"
export KRB5_CONFIG="$T/krb5.conf" KRB5_KDC_PROFILE="$T/kdc.conf"
export KRB5CCNAME="FILE:$T/ccache" KRB5RCACHEDIR="$T" KRB5_TRACE=/dev/null
unset KRB5_KTNAME KRB5_CLIENT_KTNAME

kdb5_util create -s -r GSS.TEST -P master-password >"$T/setup.log" 2>&1
kadmin.local -r GSS.TEST -q "addprinc -randkey nfs/localhost" >>"$T/setup.log" 2>&1
kadmin.local -r GSS.TEST -q "addprinc -pw user-password gssuser" >>"$T/setup.log" 2>&1
kadmin.local -r GSS.TEST -q "ktadd -k $T/nfs.keytab nfs/localhost" >>"$T/setup.log" 2>&1
kadmin.local -r GSS.TEST -q "ktadd -norandkey -k $T/user.keytab gssuser" >>"$T/setup.log" 2>&1

krb5kdc -n -r GSS.TEST >"$T/kdc.out" 2>&1 &
kdc_pid=$!
i=0
until kinit -k -t "$T/user.keytab" gssuser >"$T/kinit.log" 2>&1; do
	i=$((i + 1))
	if [ $i -ge 50 ] || ! kill -0 "$kdc_pid" 2>/dev/null; then
		echo "the KDC did not start:"; cat "$T/kdc.out" "$T/kinit.log" "$T/kdc.log" 2>/dev/null
		exit 1
	fi
	sleep 0.1
done
echo "KDC on 127.0.0.1:$port, ticket for gssuser@GSS.TEST"

mkdir "$T/export"
"$tinynfs" --export "$T/export rw,sec=krb5i:krb5p" -l 127.0.0.1 -p 0 --no-udp \
	--keytab "$T/nfs.keytab" --stats >"$T/tinynfs.out" 2>"$T/tinynfs.err" &
srv_pid=$!
i=0
until grep -q '^tinynfs: ready' "$T/tinynfs.out" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -ge 100 ] || ! kill -0 "$srv_pid" 2>/dev/null; then
		echo "tinynfs did not start:"; cat "$T/tinynfs.out" "$T/tinynfs.err"; exit 1
	fi
	sleep 0.1
done
sport=$(sed -n 's/^tinynfs: listening tcp 127.0.0.1 //p' "$T/tinynfs.out")
grep '^tinynfs: RPCSEC_GSS' "$T/tinynfs.out"

rc=0
timeout 60 "$client" "$sport" || rc=1
kill -TERM "$srv_pid"
wait "$srv_pid" || rc=1
srv_pid=""
grep '^tinynfs: calls' "$T/tinynfs.out" || rc=1
grep -q 'system_err 0,' "$T/tinynfs.out" || { echo "tinynfs answered SYSTEM_ERR"; rc=1; }
if [ $rc -ne 0 ]; then cat "$T/tinynfs.out" "$T/tinynfs.err"; fi
exit $rc
