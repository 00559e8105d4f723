# Fetching Debian's kernel and the guest userland packages into the cache.
# shellcheck shell=bash

# Sets KVER (e.g. 6.1.0-57-amd64), KROOT (unpacked kernel package: boot/,
# lib/modules/KVER with modules.dep) and VMLINUZ.  Downloads only when the
# cache holds no kernel (or with REFRESH=1).
vm_fetch_kernel() {
	local cache kc deb meta dep
	cache=$(vm_cache_dir)
	kc="$cache/kernel"
	mkdir -p "$kc"
	if [ "${REFRESH:-0}" != 1 ] && [ -f "$kc/current" ]; then
		KVER=$(cat "$kc/current")
		KROOT="$kc/$KVER"
		VMLINUZ="$KROOT/boot/vmlinuz-$KVER"
		if [ -f "$VMLINUZ" ] && [ -f "$KROOT/lib/modules/$KVER/modules.dep" ]; then
			return 0
		fi
	fi
	vm_need_cmd dpkg-deb dpkg
	vm_need_cmd depmod kmod
	vm_msg "fetching Debian's kernel (linux-image-amd64) into $kc"
	local tmp
	tmp=$(mktemp -d "$kc/dl.XXXXXX")
	(
		cd "$tmp"
		vm_apt_download linux-image-amd64
		meta=$(ls linux-image-amd64_*.deb)
		# Depends: linux-image-6.1.0-NN-amd64 (= version)
		dep=$(dpkg-deb -f "$meta" Depends | tr ',' '\n' | sed -n 's/^ *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1)
		[ -n "$dep" ] || vm_die "cannot read the kernel package name from $meta"
		vm_apt_download "$dep"
	) || exit 2
	deb=$(ls "$tmp"/linux-image-[0-9]*.deb)
	KVER=$(basename "$deb" | sed 's/^linux-image-\([^_]*\)_.*/\1/')
	KROOT="$kc/$KVER"
	rm -rf "$KROOT"
	mkdir -p "$KROOT"
	dpkg-deb -x "$deb" "$KROOT"
	mv "$deb" "$kc/"
	rm -rf "$tmp"
	depmod -b "$KROOT" "$KVER"
	VMLINUZ="$KROOT/boot/vmlinuz-$KVER"
	[ -f "$VMLINUZ" ] || vm_die "no boot/vmlinuz-$KVER in $deb"
	printf '%s\n' "$KVER" >"$kc/current"
	vm_msg "kernel $KVER cached"
}

# Packages unpacked (dpkg -x) into one root for the guest's NFS userland:
# the kernel nfsd needs rpcbind, exportfs, rpc.mountd, rpc.nfsd; the client
# needs mount.nfs.  Their libraries are found with ldd against this root.
# Essential libraries (libc, libblkid, libmount, ...) come from the host,
# which runs the same Debian release.
VM_USERLAND_PKGS="nfs-kernel-server nfs-common rpcbind libwrap0 libtirpc3
 libtirpc-common libnfsidmap1 libevent-core-2.1-7 libkeyutils1 libgssapi-krb5-2
 libkrb5-3 libk5crypto3 libkrb5support0 libnsl2"

# Sets UROOT (unpacked userland).  Downloads only when missing.
vm_fetch_userland() {
	local cache stamp want
	cache=$(vm_cache_dir)
	UROOT="$cache/userland/root"
	stamp="$cache/userland/packages"
	want=$(printf '%s\n' $VM_USERLAND_PKGS | sort | tr '\n' ' ')
	if [ "${REFRESH:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		return 0
	fi
	vm_msg "fetching the guest's NFS userland: $want"
	rm -rf "$cache/userland"
	mkdir -p "$cache/userland/debs" "$UROOT"
	# shellcheck disable=SC2086
	(cd "$cache/userland/debs" && vm_apt_download $VM_USERLAND_PKGS) || exit 2
	local d
	for d in "$cache/userland/debs"/*.deb; do
		dpkg-deb -x "$d" "$UROOT"
	done
	printf '%s\n' "$want" >"$stamp"
}
