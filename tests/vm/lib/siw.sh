# Soft-iWARP (siw) for the VM's kernel (host side).  Sourced by tests/vm/run
# and tests/vm/build-siw.
#
# Debian builds its kernel with "# CONFIG_RDMA_SIW is not set": rdma_rxe is
# there, siw is not.  We build siw.ko out of tree from Debian's own packages
# for the same kernel: the driver's sources from linux-source-X.Y (only
# drivers/infiniband/sw/siw is unpacked) and the kbuild tree of
# linux-headers-KVER (its Module.symvers gives ib_core's symbol CRCs, its
# .config the vermagic).  The module is cached under
# $cache/siw/KVER/siw.ko, beside the kernel image, and built once per kernel
# (and again when the patches change).
#
# tests/vm/siw-patches/*.patch are applied to the driver first (patch -p1,
# in name order): fixes of siw's own bugs that our tests meet, each saying
# what it fixes.
# shellcheck shell=bash

# vm_siw_want_pkgs KVER: the Debian packages the build needs (headers of
# that kernel, the source of its X.Y series).
vm_siw_want_pkgs() {
	local kver=$1 mm
	mm=$(printf '%s\n' "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p')
	printf 'linux-headers-%s linux-source-%s\n' "$kver" "$mm"
}

# vm_siw_kernel_version: the Debian version of the cached kernel package
# (e.g. 6.1.192-3), from the .deb kept in the cache.
vm_siw_kernel_version() {
	local deb
	deb=$(ls "$(vm_cache_dir)/kernel/linux-image-${KVER}_"*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || return 1
	dpkg-deb -f "$deb" Version
}

# Sets SIW_KO to the cached module for $KVER (set by vm_fetch_kernel),
# building it when the cache has none (or with REFRESH=1).  Installs the
# headers and source packages with apt-get when they are missing.  Returns
# non-zero (after saying why) when the module cannot be had.
vm_siw_module() {
	local dir kver_ver hdr mm src srcver hdrver tmp want rxe vm_magic ko_magic pkg pdir psum p
	dir="$(vm_cache_dir)/siw/$KVER"
	SIW_KO="$dir/siw.ko"
	pdir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/siw-patches"
	psum=$(cat /dev/null "$pdir"/*.patch 2>/dev/null | sha256sum | cut -c1-16)
	if [ "${REFRESH:-0}" != 1 ] && [ -f "$SIW_KO" ] && [ -f "$dir/siw.info" ] &&
		grep -qx "patches $psum" "$dir/siw.info"; then
		return 0
	fi
	kver_ver=$(vm_siw_kernel_version) || { vm_msg "siw: no cached kernel package for $KVER"; return 1; }
	mm=$(printf '%s\n' "$KVER" | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p')
	hdr=/usr/src/linux-headers-$KVER
	src=/usr/src/linux-source-$mm.tar.xz
	want=""
	for pkg in $(vm_siw_want_pkgs "$KVER"); do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
			want="$want $pkg"
	done
	if [ -n "$want" ]; then
		vm_msg "siw: installing$want (apt-get) to build siw.ko for $KVER"
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive vm_apt install -y -q --no-install-recommends $want >/dev/null 2>&1 || {
			vm_apt update -q >/dev/null 2>&1 || true
			# shellcheck disable=SC2086
			DEBIAN_FRONTEND=noninteractive vm_apt install -y -q --no-install-recommends $want >&2 ||
				{ vm_msg "siw: apt-get install$want failed"; return 1; }
		}
	fi
	[ -f "$hdr/Makefile" ] || { vm_msg "siw: $hdr/Makefile missing (package linux-headers-$KVER)"; return 1; }
	[ -f "$src" ] || { vm_msg "siw: $src missing (package linux-source-$mm)"; return 1; }
	hdrver=$(dpkg-query -W -f='${Version}' "linux-headers-$KVER")
	srcver=$(dpkg-query -W -f='${Version}' "linux-source-$mm")
	# The headers must be the kernel's own build (same ABI name, same
	# version); the driver's source should be too: say so when it is not.
	[ "$hdrver" = "$kver_ver" ] || { vm_msg "siw: linux-headers-$KVER is $hdrver, the kernel $kver_ver"; return 1; }
	[ "$srcver" = "$kver_ver" ] ||
		vm_msg "siw: warning: linux-source-$mm is $srcver, the kernel $kver_ver (building anyway)"
	vm_need_cmd make make
	vm_need_cmd patch patch
	vm_msg "siw: building siw.ko for $KVER ($kver_ver) from linux-source-$mm $srcver"
	mkdir -p "$dir"
	tmp=$(mktemp -d "$dir/build.XXXXXX")
	tar -xJf "$src" -C "$tmp" --strip-components=1 --wildcards "linux-source-$mm/drivers/infiniband/sw/siw/*" ||
		{ vm_msg "siw: cannot unpack drivers/infiniband/sw/siw from $src"; rm -rf "$tmp"; return 1; }
	for p in "$pdir"/*.patch; do
		[ -f "$p" ] || continue
		vm_msg "siw: applying ${p##*/}"
		patch -s -p1 -d "$tmp" <"$p" ||
			{ vm_msg "siw: $p does not apply to linux-source-$mm $srcver"; rm -rf "$tmp"; return 1; }
	done
	if ! make -j2 -C "$hdr" M="$tmp/drivers/infiniband/sw/siw" CONFIG_RDMA_SIW=m modules >"$dir/build.log" 2>&1; then
		tail -n 30 "$dir/build.log" >&2
		vm_msg "siw: make -C $hdr M=... CONFIG_RDMA_SIW=m modules failed (log: $dir/build.log)"
		rm -rf "$tmp"
		return 1
	fi
	# Same vermagic as the kernel's own modules, or insmod refuses it.
	rxe=$(find "$KROOT/lib/modules/$KVER" -name 'rdma_rxe.ko*' | head -n1)
	vm_magic=$(modinfo -F vermagic "$rxe")
	ko_magic=$(modinfo -F vermagic "$tmp/drivers/infiniband/sw/siw/siw.ko")
	if [ "$vm_magic" != "$ko_magic" ]; then
		vm_msg "siw: vermagic '$ko_magic' differs from the kernel's '$vm_magic'"
		rm -rf "$tmp"
		return 1
	fi
	cp "$tmp/drivers/infiniband/sw/siw/siw.ko" "$dir/siw.ko.tmp"
	mv "$dir/siw.ko.tmp" "$SIW_KO"
	printf 'kernel %s %s\nheaders %s\nsource linux-source-%s %s\nvermagic %s\ndepends %s\npatches %s\n' \
		"$KVER" "$kver_ver" "$hdrver" "$mm" "$srcver" "$ko_magic" "$(modinfo -F depends "$SIW_KO")" "$psum" >"$dir/siw.info"
	rm -rf "$tmp"
	vm_msg "siw: cached $SIW_KO"
}
