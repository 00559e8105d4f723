# Kerberos helpers for payloads (POSIX sh; busybox sh in the VM).  Source
# after lib.sh:   . "$RPCRDMA_LIB"; . "${RPCRDMA_LIB%/*}/krb5.sh"
#
# A throw-away realm in the guest: a KDC on loopback port 88 whose database,
# master password and logs live in $RR_KRB5_DIR (a tmpfs, gone at power
# off), the service keys in /etc/krb5.keytab, user tickets in
# /tmp/krb5cc_UID (where rpc.gssd looks for them).
#   rr_krb5_setup                realm, KDC, host name, nfs/ and host/ keys
#   rr_krb5_hosts_add ADDR       ADDR names the host too (/etc/hosts)
#   rr_krb5_add_user NAME UID    a user principal with a password (and a
#                                passwd entry); the password is in
#                                $RR_KRB5_DIR/NAME.pw
#   rr_krb5_kinit NAME UID       a ticket for NAME in /tmp/krb5cc_UID
#   rr_krb5_kdestroy UID         throws it away
#   rr_krb5_as UID CMD...        runs CMD as UID (gid UID), no other groups
#   rr_krb5_server_start         gssproxy for the kernel nfsd (default), or
#                                rpc.svcgssd with RR_KRB5_SVCGSS=svcgssd
#   rr_krb5_client_start         rpc.gssd for the kernel NFS client
#   rr_krb5_idmapd_start         rpc.idmapd (user@domain names, both sides)
#   rr_krb5_logs                 copies the logs to $RPCRDMA_OUT/krb5-logs/
# Processes are started with rr_bg (rr_cleanup ends them).
# shellcheck shell=sh disable=SC3043

: "${RR_KRB5_REALM:=RPCRDMA.TEST}"
: "${RR_KRB5_DOMAIN:=rpcrdma.test}"
# The NFS server's host name: the service principal is nfs/$RR_KRB5_HOST.
# /etc/hosts maps it to 127.0.0.1 and to the rxe link-local address, first
# on both lines, so that a reverse lookup of either address (rpc.gssd does
# one for a mount by address) gives this name.
: "${RR_KRB5_HOST:=nfs.$RR_KRB5_DOMAIN}"
: "${RR_KRB5_DIR:=/run/krb5test}"
: "${RR_KRB5_SVCGSS:=gssproxy}"
# The KDC listens on 127.0.0.1 and ::1; clients use [::1]:88.  glibc's
# getaddrinfo with AI_ADDRCONFIG (as libkrb5 calls it) counts the rxe
# link-local address as IPv6 but no IPv4 address (loopback is not counted),
# so it resolves "127.0.0.1" to nothing here: kinit said "Cannot contact
# any KDC", its KRB5_TRACE ending at "Resolving hostname 127.0.0.1".
# The 6.1 kernel's krb5 mechanism knows the AES-SHA1 enctypes (AES-SHA2
# came in 6.3); keys of other kinds would be of no use to nfsd or the client.
RR_KRB5_ENCTYPES="aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96"

# A random string of hex digits (32 by default).
rr_krb5_random() {
	od -An -tx1 -N"${1:-16}" /dev/urandom | tr -d ' \n'
}

rr_krb5_conf() {
	cat >/etc/krb5.conf <<-EOF
	[libdefaults]
	  default_realm = $RR_KRB5_REALM
	  dns_lookup_kdc = false
	  dns_lookup_realm = false
	  dns_canonicalize_hostname = false
	  rdns = false
	  udp_preference_limit = 1
	  default_ccache_name = FILE:/tmp/krb5cc_%{uid}
	  permitted_enctypes = $RR_KRB5_ENCTYPES
	  default_tkt_enctypes = $RR_KRB5_ENCTYPES
	  default_tgs_enctypes = $RR_KRB5_ENCTYPES
	[realms]
	  $RR_KRB5_REALM = {
	    kdc = [::1]:88
	    admin_server = 127.0.0.1
	  }
	[domain_realm]
	  .$RR_KRB5_DOMAIN = $RR_KRB5_REALM
	  $RR_KRB5_DOMAIN = $RR_KRB5_REALM
	EOF
	mkdir -p "$RR_KRB5_DIR"
	KRB5_KDC_PROFILE=$RR_KRB5_DIR/kdc.conf
	export KRB5_KDC_PROFILE
	cat >"$RR_KRB5_DIR/kdc.conf" <<-EOF
	[kdcdefaults]
	  kdc_listen = 127.0.0.1:88 [::1]:88
	  kdc_tcp_listen = 127.0.0.1:88 [::1]:88
	[realms]
	  $RR_KRB5_REALM = {
	    database_name = $RR_KRB5_DIR/principal
	    key_stash_file = $RR_KRB5_DIR/stash
	    acl_file = $RR_KRB5_DIR/kadm5.acl
	    max_life = 2h
	    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
	  }
	[logging]
	  kdc = FILE:$RR_KRB5_DIR/krb5kdc.log
	  admin_server = FILE:$RR_KRB5_DIR/kadmin.log
	  default = FILE:$RR_KRB5_DIR/krb5lib.log
	EOF
	: >"$RR_KRB5_DIR/kadm5.acl"
}

# /etc/hosts and the host name: the guest is both NFS server and client.
rr_krb5_hosts() {
	cat >/etc/hosts <<-EOF
	127.0.0.1 $RR_KRB5_HOST localhost
	fe80::ff:fe00:1 $RR_KRB5_HOST
	::1 localhost
	EOF
	hostname "$RR_KRB5_HOST"
	cat >/etc/idmapd.conf <<-EOF
	[General]
	Domain = $RR_KRB5_DOMAIN
	[Mapping]
	Nobody-User = nobody
	Nobody-Group = nogroup
	EOF
}

# rr_krb5_hosts_add ADDR: one more address of the server's host name in
# /etc/hosts (after rr_krb5_setup), e.g. an IPv4 link-local address given
# to the rxe device, so that rpc.gssd's reverse lookup of ADDR names
# $RR_KRB5_HOST.
rr_krb5_hosts_add() {
	grep -q "^$1 " /etc/hosts || echo "$1 $RR_KRB5_HOST" >>/etc/hosts
}

# rr_krb5_kadmin QUERY: one kadmin.local command against the test realm.
rr_krb5_kadmin() {
	/usr/sbin/kadmin.local -r "$RR_KRB5_REALM" -q "$1" \
		>>"$RR_KRB5_DIR/kadmin.local.log" 2>&1 || {
		cat "$RR_KRB5_DIR/kadmin.local.log"
		rr_fail "kadmin.local -q '$1'"
	}
}

# rr_krb5_setup: the realm, its KDC, and the keys of nfs/HOST (nfsd's
# service principal, and the client's machine credential: rpc.gssd takes
# nfs/HOST from the keytab for root and for NFSv4 lease management) and
# host/HOST, in /etc/krb5.keytab.
rr_krb5_setup() {
	local _pid
	rr_krb5_hosts
	rr_krb5_conf
	rm -f /etc/krb5.keytab
	# The acceptors' replay cache (MIT's default: /var/tmp/krb5_UID.rcache2).
	mkdir -p /var/tmp
	chmod 1777 /var/tmp
	/usr/sbin/kdb5_util create -s \
		-r "$RR_KRB5_REALM" -P "$(rr_krb5_random)" >"$RR_KRB5_DIR/kdb5_util.log" 2>&1 || {
		cat "$RR_KRB5_DIR/kdb5_util.log"
		rr_fail "kdb5_util create"
	}
	rr_bg /usr/sbin/krb5kdc -n -r "$RR_KRB5_REALM" \
		>"$RR_KRB5_DIR/krb5kdc.out" 2>&1
	_pid=$!
	rr_wait_listen 88 30 "$_pid" || {
		cat "$RR_KRB5_DIR/krb5kdc.out" "$RR_KRB5_DIR/krb5kdc.log" 2>/dev/null
		rr_fail "krb5kdc does not listen on 127.0.0.1:88"
	}
	rr_krb5_kadmin "addprinc -randkey nfs/$RR_KRB5_HOST"
	rr_krb5_kadmin "addprinc -randkey host/$RR_KRB5_HOST"
	rr_krb5_kadmin "ktadd -k /etc/krb5.keytab nfs/$RR_KRB5_HOST host/$RR_KRB5_HOST"
	chmod 600 /etc/krb5.keytab
	rr_say "KDC for $RR_KRB5_REALM on 127.0.0.1:88 and [::1]:88; keytab: $(/usr/bin/klist -k /etc/krb5.keytab |
		awk 'NR > 3 { print $2 }' | sort -u | tr '\n' ' ')"
}

# rr_krb5_add_user NAME UID: principal NAME@REALM with a random password,
# and NAME in /etc/passwd and /etc/group (gid UID).
rr_krb5_add_user() {
	local _pw
	_pw=$(rr_krb5_random 12)
	printf '%s\n' "$_pw" >"$RR_KRB5_DIR/$1.pw"
	rr_krb5_kadmin "addprinc -pw $_pw $1"
	grep -q "^$1:" /etc/passwd || echo "$1:x:$2:$2::/tmp:/bin/sh" >>/etc/passwd
	grep -q "^$1:" /etc/group || echo "$1:x:$2:" >>/etc/group
}

# rr_krb5_kinit NAME UID: kinit with NAME's password; the ticket goes to
# /tmp/krb5cc_UID, owned by UID (rpc.gssd checks the owner).
rr_krb5_kinit() {
	KRB5_TRACE=$RR_KRB5_DIR/kinit-$1.trace.log KRB5CCNAME=FILE:/tmp/krb5cc_$2 \
		/usr/bin/kinit "$1" <"$RR_KRB5_DIR/$1.pw" >"$RR_KRB5_DIR/kinit-$1.log" 2>&1 || {
		cat "$RR_KRB5_DIR/kinit-$1.log" "$RR_KRB5_DIR/kinit-$1.trace.log"
		ps; cat /proc/net/tcp /proc/net/udp
		rr_fail "kinit $1"
	}
	chown "$2:$2" "/tmp/krb5cc_$2"
	chmod 600 "/tmp/krb5cc_$2"
}

rr_krb5_kdestroy() {
	KRB5CCNAME=FILE:/tmp/krb5cc_$1 /usr/bin/kdestroy -q 2>/dev/null
	rm -f "/tmp/krb5cc_$1"
}

# rr_krb5_as UID CMD...: CMD as user and group UID, no supplementary groups.
rr_krb5_as() {
	local _u=$1
	shift
	/usr/bin/setpriv --reuid="$_u" --regid="$_u" --clear-groups "$@"
}

# gssproxy as Debian runs it for nfsd: kernel_nfsd = yes makes it write 1 to
# /proc/net/rpc/use-gss-proxy, and nfsd then sends RPCSEC_GSS context
# creation to /var/run/gssproxy.sock.  Start it before nfsd.
rr_krb5_gssproxy_start() {
	local _pid _i
	cat >/etc/gssproxy/gssproxy.conf <<-EOF
	[gssproxy]
	  debug_level = ${RR_KRB5_GSSPROXY_DEBUG:-3}
	[service/nfs-server]
	  mechs = krb5
	  socket = /run/gssproxy.sock
	  cred_store = keytab:/etc/krb5.keytab
	  trusted = yes
	  kernel_nfsd = yes
	  euid = 0
	EOF
	rr_bg /usr/sbin/gssproxy -i -c /etc/gssproxy/gssproxy.conf \
		>"$RR_KRB5_DIR/gssproxy.log" 2>&1
	_pid=$!
	_i=0
	until [ "$(cat /proc/net/rpc/use-gss-proxy 2>/dev/null)" = 1 ]; do
		_i=$((_i + 1))
		if [ $_i -gt 100 ] || ! kill -0 "$_pid" 2>/dev/null; then
			cat "$RR_KRB5_DIR/gssproxy.log"
			rr_fail "gssproxy did not turn on /proc/net/rpc/use-gss-proxy"
		fi
		sleep 0.1
	done
	rr_say "gssproxy serves nfsd (use-gss-proxy = 1)"
}

# rpc.svcgssd: the older upcall (/proc/net/rpc/auth.rpcsec.init), when
# gssproxy is not wanted.
rr_krb5_svcgssd_start() {
	rr_bg /usr/sbin/rpc.svcgssd -f -vvv -rrr >"$RR_KRB5_DIR/svcgssd.log" 2>&1
	sleep 1
	rr_say "rpc.svcgssd serves nfsd"
}

rr_krb5_server_start() {
	case $RR_KRB5_SVCGSS in
	gssproxy) rr_krb5_gssproxy_start ;;
	svcgssd) rr_krb5_svcgssd_start ;;
	*) rr_fail "RR_KRB5_SVCGSS=$RR_KRB5_SVCGSS: gssproxy or svcgssd" ;;
	esac
}

# rpc.gssd for the kernel client: needs rpc_pipefs (rr_nfsd_start mounts
# it; done here too).  -vvv -rrr: its log names the principals it uses.
rr_krb5_client_start() {
	mkdir -p /var/lib/nfs/rpc_pipefs
	grep -q ' /var/lib/nfs/rpc_pipefs ' /proc/mounts ||
		mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs || rr_fail "mount rpc_pipefs"
	rr_bg /usr/sbin/rpc.gssd -f -vvv -rrr -p /var/lib/nfs/rpc_pipefs \
		>"$RR_KRB5_DIR/gssd.log" 2>&1
	sleep 1
	kill -0 $! 2>/dev/null || { cat "$RR_KRB5_DIR/gssd.log"; rr_fail "rpc.gssd exited"; }
	rr_say "rpc.gssd runs"
}

rr_krb5_idmapd_start() {
	rr_bg /usr/sbin/rpc.idmapd -f -vvv -p /var/lib/nfs/rpc_pipefs -c /etc/idmapd.conf \
		>"$RR_KRB5_DIR/idmapd.log" 2>&1
}

rr_krb5_logs() {
	mkdir -p "$RPCRDMA_OUT/krb5-logs"
	cp "$RR_KRB5_DIR"/*.log "$RR_KRB5_DIR"/*.out "$RPCRDMA_OUT/krb5-logs/" 2>/dev/null
	return 0
}
