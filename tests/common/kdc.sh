# kdc.sh: a throw-away Kerberos realm on loopback for the host tests
# (tests/gss/gss-krb5-test.sh, gss-tirpc-svc-test.sh,
# examples/tinynfs/tests/tinynfs-krb5-test.sh).
# Sourced, POSIX sh.
#
# kdc_need: exits 77 (skipped) without the krb5 programs (Debian: krb5-kdc,
# krb5-admin-server, krb5-user).
# kdc_workdir NAME: a temporary directory /tmp/NAME.XXXXXX in T, and the
# traps that, on every exit, kill the KDC (kdc_pid) and the test's
# service (svc_pid: the caller sets it once it runs, and empties it once
# it has waited for it) and remove T.
# kdc_start DIR SERVICE KEYTAB: realm GSS.TEST with its database,
# configuration and credential cache in DIR, krb5kdc on 127.0.0.1 at a
# free port; SERVICE's random key into KEYTAB; the user gssuser with its
# ticket.  Exports the KRB5_* variables the GSS-API reads; sets kdc_pid
# (the caller kills it on every path) and kdc_port.  Exits 1 if the KDC
# does not start.
# kdc_wait_port OUT PID NAME [LOG...]: waits (5 s at most) for the test
# service PID to print "port N" into OUT and prints N; if PID exits or the
# time runs out, prints "NAME did not start:" and the LOGs on stderr and
# returns 1.  Use: sport=$(kdc_wait_port ...) || exit 1.

kdc_need() {
	PATH=$PATH:/usr/sbin:/sbin
	for p in kdb5_util krb5kdc kadmin.local kinit; do
		command -v "$p" >/dev/null 2>&1 || { echo "skip: no $p"; exit 77; }
	done
}

kdc_workdir() { # NAME
	T=$(mktemp -d "/tmp/$1.XXXXXX")
	kdc_pid="" svc_pid=""
	trap kdc_cleanup EXIT
	trap 'exit 1' INT TERM HUP
}

kdc_cleanup() {
	[ -n "$kdc_pid" ] && kill "$kdc_pid" 2>/dev/null && wait "$kdc_pid" 2>/dev/null
	[ -n "$svc_pid" ] && kill "$svc_pid" 2>/dev/null && wait "$svc_pid" 2>/dev/null
	rm -rf "$T"
}

kdc_config() { # DIR PORT
	cat >"$1/krb5.conf" <<EOT
[libdefaults]
	default_realm = GSS.TEST
	dns_lookup_realm = false
	dns_lookup_kdc = false
	dns_canonicalize_hostname = false
	rdns = false
[realms]
	GSS.TEST = {
		kdc = 127.0.0.1:$2
	}
[domain_realm]
	localhost = GSS.TEST
EOT
	cat >"$1/kdc.conf" <<EOT
[kdcdefaults]
	kdc_listen = 127.0.0.1:$2
	kdc_tcp_listen = 127.0.0.1:$2
[realms]
	GSS.TEST = {
		database_name = $1/principal
		key_stash_file = $1/stash
		acl_file = $1/kadm5.acl
	}
[logging]
	kdc = FILE:$1/kdc.log
EOT
	: >"$1/kadm5.acl"
}

kdc_start() { # DIR SERVICE KEYTAB
	_d=$1
	kdc_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	kdc_config "$_d" "$kdc_port"
	export KRB5_CONFIG="$_d/krb5.conf" KRB5_KDC_PROFILE="$_d/kdc.conf"
	export KRB5CCNAME="FILE:$_d/ccache" KRB5RCACHEDIR="$_d" KRB5_TRACE=/dev/null
	unset KRB5_KTNAME KRB5_CLIENT_KTNAME

	kdb5_util create -s -r GSS.TEST -P master-password >"$_d/setup.log" 2>&1
	kadmin.local -r GSS.TEST -q "addprinc -randkey $2" >>"$_d/setup.log" 2>&1
	kadmin.local -r GSS.TEST -q "addprinc -pw user-password gssuser" >>"$_d/setup.log" 2>&1
	kadmin.local -r GSS.TEST -q "ktadd -k $3 $2" >>"$_d/setup.log" 2>&1
	# kinit reads the password from a terminal; a keytab of the same key
	# stands in for typing it
	kadmin.local -r GSS.TEST -q "ktadd -norandkey -k $_d/user.keytab gssuser" >>"$_d/setup.log" 2>&1

	krb5kdc -n -r GSS.TEST >"$_d/kdc.out" 2>&1 &
	kdc_pid=$!
	_i=0
	until kinit -k -t "$_d/user.keytab" gssuser >"$_d/kinit.log" 2>&1; do
		_i=$((_i + 1))
		if [ $_i -ge 50 ] || ! kill -0 "$kdc_pid" 2>/dev/null; then
			echo "the KDC did not start:"
			cat "$_d/kdc.out" "$_d/kinit.log" "$_d/kdc.log" 2>/dev/null
			exit 1
		fi
		sleep 0.1
	done
	echo "KDC on 127.0.0.1:$kdc_port, ticket for gssuser@GSS.TEST"
}

kdc_wait_port() { # OUT PID NAME [LOG...]
	_out=$1 _pid=$2 _name=$3
	shift 3
	_i=0
	until grep -q '^port ' "$_out" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -ge 50 ] || ! kill -0 "$_pid" 2>/dev/null; then
			{ echo "$_name did not start:"; cat "$@"; } >&2
			return 1
		fi
		sleep 0.1
	done
	sed -n 's/^port //p' "$_out"
}
