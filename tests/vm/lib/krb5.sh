# Kerberos in the guest (host side): MIT krb5's KDC, kadmin.local, the
# user tools and gssproxy, downloaded with apt-get download and unpacked
# with dpkg -x into a cache folder of their own (so that checkouts with
# another NFS userland list do not fetch each other's), then copied with
# their libraries into the base initramfs.  rpc.gssd and rpc.svcgssd come
# from the NFS userland (nfs-common, nfs-kernel-server).
# shellcheck shell=bash

VM_KRB5_PKGS="krb5-kdc krb5-admin-server krb5-user gssproxy libkadm5srv-mit12
 libkadm5clnt-mit12 libkdb5-10 libgssrpc4 libverto1 libverto-libev1 libev4
 libini-config5 libref-array1 libbasicobjects0 libcollection4
 libpath-utils1 libpopt0 libss2 libcom-err2 libkrb5-3 libgssapi-krb5-2
 libk5crypto3 libkrb5support0 libkeyutils1"

# Programs: source path in $K5ROOT (or $UROOT for nfs-utils) -> guest path.
VM_KRB5_TOOLS="usr/sbin/krb5kdc usr/sbin/kdb5_util usr/sbin/kadmin.local
 usr/bin/kinit usr/bin/klist usr/bin/kdestroy usr/bin/kvno usr/sbin/gssproxy"
VM_KRB5_NFS_TOOLS="usr/sbin/rpc.gssd usr/sbin/rpc.svcgssd usr/sbin/rpc.idmapd"
# Loaded with dlopen, so ldd does not list them: the KDC's database
# back end and libverto's event loop module; libnfsidmap's name service
# plugin (rpc.idmapd: "requested translation method, 'nsswitch', is not
# available" without it).
VM_KRB5_PLUGINS="usr/lib/x86_64-linux-gnu/krb5/plugins/kdb/db2.so
 usr/lib/x86_64-linux-gnu/libverto-libev.so.1"
VM_KRB5_NFS_PLUGINS="usr/lib/x86_64-linux-gnu/libnfsidmap/nsswitch.so"

# Sets K5ROOT (unpacked Kerberos packages).  Downloads only when missing.
vm_fetch_krb5() {
	local cache stamp want d
	cache=$(vm_cache_dir)/krb5
	K5ROOT="$cache/root"
	stamp="$cache/packages"
	# shellcheck disable=SC2086
	want=$(printf '%s\n' $VM_KRB5_PKGS | sort | tr '\n' ' ')
	if [ "${REFRESH:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		return 0
	fi
	vm_msg "fetching the guest's Kerberos: $want"
	rm -rf "$cache"
	mkdir -p "$cache/debs" "$K5ROOT"
	# shellcheck disable=SC2086
	(cd "$cache/debs" && vm_apt_download $VM_KRB5_PKGS) || exit 2
	for d in "$cache/debs"/*.deb; do
		dpkg-deb -x "$d" "$K5ROOT"
	done
	printf '%s\n' "$want" >"$stamp"
}

# vm_krb5_stage STAGE: copies the Kerberos programs, plugins and an empty
# /etc/krb5kdc, /var/lib/gssproxy into the base's staging folder.
vm_krb5_stage() {
	local stage=$1 t
	for t in $VM_KRB5_TOOLS; do
		[ -e "$K5ROOT/$t" ] || vm_die "$t missing in the unpacked Kerberos packages $K5ROOT"
		vm_copy_prog "$stage" "$K5ROOT/$t" "/$t" "$K5ROOT"
	done
	for t in $VM_KRB5_NFS_TOOLS; do
		[ -e "$UROOT/$t" ] || vm_die "$t missing in the unpacked NFS userland $UROOT"
		vm_copy_prog "$stage" "$UROOT/$t" "/$t" "$UROOT"
	done
	for t in $VM_KRB5_PLUGINS; do
		[ -e "$K5ROOT/$t" ] || vm_die "$t missing in $K5ROOT"
		vm_copy_prog "$stage" "$K5ROOT/$t" "/$t" "$K5ROOT"
	done
	for t in $VM_KRB5_NFS_PLUGINS; do
		[ -e "$UROOT/$t" ] || vm_die "$t missing in $UROOT"
		vm_copy_prog "$stage" "$UROOT/$t" "/$t" "$UROOT"
	done
	mkdir -p "$stage/etc/krb5kdc" "$stage/var/lib/krb5kdc" "$stage/var/lib/gssproxy" \
		"$stage/etc/gssproxy"
}
