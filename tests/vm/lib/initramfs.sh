# Building the guest's initramfs (host side).
#
# The initramfs is two cpio archives, concatenated (the kernel unpacks them
# in turn):
#  - base: busybox, the kernel modules, rdma-core, perftest, rping, iproute2,
#    the NFS userland.  Cached in $cache/initramfs/, rebuilt only when its
#    inputs change (these scripts, the kernel, the host programs it copies).
#  - extras: /init, the payload runner and the payloads, the programs given
#    with --bin (with the libraries ldd lists) and files given with --file.
#    Small; built on every run.
# shellcheck shell=bash

# Modules to load, in this order (crc32_generic first: rdma_rxe needs the
# crc32 algorithm at init; crc32c_generic before libcrc32c, which siw needs
# for MPA's CRC).  Dependencies are added from modules.dep.  siw.ko, built
# out of tree (lib/siw.sh), goes last when there is one ($SIW_KO).
VM_MODULES="crc32_generic udp_tunnel ip6_udp_tunnel ib_core ib_uverbs rdma_rxe
 rdma_ucm dummy virtio_pci 9pnet_virtio 9p sunrpc rpcrdma nfs nfsv3 nfsv4 nfsd
 cts rpcsec_gss_krb5 crc32c_generic libcrc32c"

# Host programs copied into the base (absolute host paths; guest path is the
# same).  Optional ones are copied only when present.
VM_TOOLS="/usr/bin/ib_send_lat /usr/bin/ib_write_lat /usr/bin/ib_read_lat
 /usr/bin/ib_send_bw /usr/bin/ib_write_bw /usr/bin/ib_read_bw
 /usr/bin/rping /usr/bin/ibv_devices /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong
 /usr/bin/rdma /usr/bin/ip /usr/bin/date /usr/bin/dd /usr/bin/setpriv"
VM_TOOLS_OPTIONAL="/usr/bin/ucmatose /usr/bin/udaddy /usr/bin/tcpdump /usr/sbin/tcpdump
 /usr/bin/strace"
# From the unpacked NFS userland: source path in $UROOT -> guest path.
VM_NFS_TOOLS="usr/sbin/rpc.nfsd:/usr/sbin/rpc.nfsd usr/sbin/rpc.mountd:/usr/sbin/rpc.mountd
 usr/sbin/exportfs:/usr/sbin/exportfs sbin/mount.nfs:/sbin/mount.nfs
 sbin/rpcbind:/sbin/rpcbind usr/bin/rpcinfo:/usr/bin/rpcinfo usr/sbin/nfsstat:/usr/sbin/nfsstat"

VM_RXE_PROVIDER=/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
VM_RXE_DRIVER=/etc/libibverbs.d/rxe.driver
VM_SIW_PROVIDER=/usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav34.so
VM_SIW_DRIVER=/etc/libibverbs.d/siw.driver

# vm_copy_file STAGE SRC GUESTPATH: copies SRC (dereferenced) into STAGE.
vm_copy_file() {
	local stage=$1 src=$2 dst=$3
	mkdir -p "$stage$(dirname "$dst")"
	cp -L --preserve=mode "$src" "$stage$dst"
}

# vm_copy_prog STAGE SRC GUESTPATH [LIBROOT]: copies a program or library and
# every library ldd lists for it.  LIBROOT: an unpacked package root searched
# first; libraries found there keep their path below it.  Libraries already
# in $VM_SKIP_LIBS_FROM (a file list of another stage) are not copied again.
vm_copy_prog() {
	local stage=$1 src=$2 dst=$3 libroot=${4:-} out lib guest
	vm_copy_file "$stage" "$src" "$dst"
	if [ -n "$libroot" ]; then
		out=$(LD_LIBRARY_PATH="$libroot/lib/x86_64-linux-gnu:$libroot/usr/lib/x86_64-linux-gnu" ldd "$src" 2>&1) || true
	else
		out=$(ldd "$src" 2>&1) || true
	fi
	case $out in
	*"not a dynamic executable"* | *"statically linked"*) return 0 ;;
	esac
	if printf '%s\n' "$out" | grep -q 'not found'; then
		printf '%s\n' "$out" >&2
		vm_die "ldd $src: libraries not found (listed above)"
	fi
	for lib in $(printf '%s\n' "$out" | sed -n 's/.*=> \(\/[^ ]*\) (.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
		guest=$(realpath -s -m "$lib") # drops "dir/../", keeps the name
		[ -n "$libroot" ] && guest=${guest#"$libroot"}
		# The guest's /lib and /lib64 are links to /usr/lib and /usr/lib64.
		case $guest in /lib/* | /lib64/*) guest=/usr$guest ;; esac
		[ -e "$stage$guest" ] && continue
		if [ -n "${VM_SKIP_LIBS_FROM:-}" ] && grep -qxF "$guest" "$VM_SKIP_LIBS_FROM"; then
			continue
		fi
		vm_copy_file "$stage" "$lib" "$guest"
	done
}

# Prints the modules to load, dependencies first, as paths relative to
# lib/modules/KVER.
vm_module_order() {
	local dep="$KROOT/lib/modules/$KVER/modules.dep"
	awk -v want="$VM_MODULES" '
	function visit(p,   n, i, d) {
		if (p in seen) return
		seen[p] = 1
		n = split(deps[p], d, " ")
		for (i = n; i >= 1; i--) visit(d[i])
		print p
	}
	{
		p = $1; sub(/:$/, "", p)
		deps[p] = ""
		for (i = 2; i <= NF; i++) deps[p] = deps[p] " " $i
		n = p; sub(/.*\//, "", n); sub(/\.ko.*$/, "", n); gsub(/-/, "_", n)
		path[n] = p
	}
	END {
		m = split(want, w, " ")
		for (i = 1; i <= m; i++) {
			if (!(w[i] in path)) { print "missing module " w[i] > "/dev/stderr"; exit 1 }
			visit(path[w[i]])
		}
	}' "$dep"
}

# Sets BASE_CPIO (path of the cached base archive), building it if needed.
vm_build_base() {
	local cache key stage t name src dst here
	here=$(dirname "${BASH_SOURCE[0]}")
	cache=$(vm_cache_dir)/initramfs
	mkdir -p "$cache"
	# shellcheck disable=SC2086
	key=$( { vm_digest "$here/initramfs.sh" "$here/fetch.sh" "$here/krb5.sh" /bin/busybox $VM_TOOLS \
		$VM_RXE_PROVIDER $VM_RXE_DRIVER $VM_SIW_PROVIDER $VM_SIW_DRIVER ${SIW_KO:-}
		for t in $VM_TOOLS_OPTIONAL; do [ -e "$t" ] && printf '%s\n' "$t"; done
		printf '%s\n' "$KVER"; cat "$(vm_cache_dir)/userland/packages" "$(vm_cache_dir)/krb5/packages"; } | sha256sum | cut -c1-16)
	BASE_CPIO="$cache/base-$key.cpio"
	if [ -f "$BASE_CPIO" ] && [ -f "$BASE_CPIO.files" ]; then
		touch "$BASE_CPIO" # in use: see the clean-up below
		return 0
	fi

	vm_msg "building the base initramfs (cached as $BASE_CPIO)"
	# Leftovers of interrupted builds.
	find "$cache" -maxdepth 1 -name 'stage.*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
	stage=$(mktemp -d "$cache/stage.XXXXXX")
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu,usr/lib64,etc/rpcrdma,dev,proc,sys,tmp,run,out,mnt,var/lib,opt/rpcrdma/bin,root}
	ln -s usr/lib "$stage/lib"
	ln -s usr/lib64 "$stage/lib64"
	ln -s ../run "$stage/var/run"

	# busybox: its applets live in /bin; the real programs in /usr/bin and
	# /usr/sbin (call those by full path: busybox sh prefers its applets).
	cp /bin/busybox "$stage/bin/busybox"
	for name in $(/bin/busybox --list); do
		[ -e "$stage/bin/$name" ] || ln -s busybox "$stage/bin/$name"
	done

	# Kernel modules, dependencies first.
	local order
	order=$(vm_module_order) || vm_die "cannot resolve the kernel modules from modules.dep"
	for src in $order; do
		vm_copy_file "$stage" "$KROOT/lib/modules/$KVER/$src" "/lib/modules/$KVER/$src"
	done
	if [ -n "${SIW_KO:-}" ]; then
		vm_copy_file "$stage" "$SIW_KO" "/lib/modules/$KVER/extra/siw.ko"
		order="$order
extra/siw.ko"
	fi
	# modules.dep for these modules, so that modprobe works in the guest too.
	cp "$KROOT/lib/modules/$KVER/modules.builtin" "$KROOT/lib/modules/$KVER/modules.order" \
		"$stage/lib/modules/$KVER/" 2>/dev/null || true
	depmod -b "$stage" "$KVER" ||
		vm_die "depmod for the guest's modules failed"
	printf '%s\n' "$order" >"$stage/etc/rpcrdma/modules.order"
	printf '%s\n' "$KVER" >"$stage/etc/rpcrdma/kernel"

	# rdma-core, perftest, rping, iproute2, coreutils' date and dd.
	for t in $VM_TOOLS; do
		[ -e "$t" ] || vm_die "$t not found (tests/deps.sh installs it)"
		vm_copy_prog "$stage" "$t" "$t"
	done
	for t in $VM_TOOLS_OPTIONAL; do
		[ -e "$t" ] && vm_copy_prog "$stage" "$t" "$t"
	done
	[ -e "$VM_RXE_PROVIDER" ] || vm_die "$VM_RXE_PROVIDER not found (package ibverbs-providers)"
	vm_copy_prog "$stage" "$VM_RXE_PROVIDER" "$VM_RXE_PROVIDER"
	vm_copy_file "$stage" "$VM_RXE_DRIVER" "$VM_RXE_DRIVER"
	if [ -n "${SIW_KO:-}" ]; then
		[ -e "$VM_SIW_PROVIDER" ] || vm_die "$VM_SIW_PROVIDER not found (package ibverbs-providers)"
		vm_copy_prog "$stage" "$VM_SIW_PROVIDER" "$VM_SIW_PROVIDER"
		vm_copy_file "$stage" "$VM_SIW_DRIVER" "$VM_SIW_DRIVER"
	fi
	# glibc dlopens libgcc_s for pthread_exit/pthread_cancel.
	local gcc_s
	gcc_s=$(ldconfig -p | sed -n 's/.*libgcc_s.so.1 (libc6,x86-64) => //p' | head -n1)
	[ -n "$gcc_s" ] || vm_die "libgcc_s.so.1 not found (package libgcc-s1)"
	vm_copy_file "$stage" "$gcc_s" /lib/x86_64-linux-gnu/libgcc_s.so.1

	# The kernel NFS server's and client's userland.
	for t in $VM_NFS_TOOLS; do
		src=${t%%:*} dst=${t#*:}
		[ -e "$UROOT/$src" ] || vm_die "$src missing in the unpacked NFS userland $UROOT"
		vm_copy_prog "$stage" "$UROOT/$src" "$dst" "$UROOT"
	done
	cp "$UROOT/etc/netconfig" "$stage/etc/netconfig"
	# Kerberos: KDC, kadmin.local, kinit, gssproxy, rpc.gssd (lib/krb5.sh).
	vm_krb5_stage "$stage"
	cat >"$stage/etc/passwd" <<-'EOP'
	root:x:0:0:root:/root:/bin/sh
	_rpc:x:100:65534::/run/rpcbind:/usr/sbin/nologin
	statd:x:101:65534::/var/lib/nfs:/usr/sbin/nologin
	tcpdump:x:102:65534::/nonexistent:/usr/sbin/nologin
	nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
	EOP
	cat >"$stage/etc/group" <<-'EOG'
	root:x:0:
	nogroup:x:65534:
	EOG
	printf 'passwd: files\ngroup: files\nhosts: files\nservices: files\nprotocols: files\n' >"$stage/etc/nsswitch.conf"
	# What netbase would provide; rpc.nfsd and mount.nfs look names up here.
	printf 'ip 0 IP\nicmp 1 ICMP\ntcp 6 TCP\nudp 17 UDP\nipv6 41 IPv6\nipv6-icmp 58 IPv6-ICMP\n' >"$stage/etc/protocols"
	printf 'sunrpc 111/tcp portmapper\nsunrpc 111/udp portmapper\nnfs 2049/tcp\nnfs 2049/udp\nnfsrdma 20049/tcp\n' >"$stage/etc/services"
	printf '127.0.0.1 localhost\n::1 localhost\n' >"$stage/etc/hosts"
	printf 'rxe-guest\n' >"$stage/etc/hostname"
	: >"$stage/etc/exports"
	mkdir -p "$stage/var/lib/nfs/v4recovery" "$stage/var/lib/nfs/rpc_pipefs"

	local tmp
	tmp=$(mktemp "$cache/tmp.XXXXXX")
	(cd "$stage" && find . \( -type f -o -type l \) | sed 's/^\.//') >"$BASE_CPIO.files"
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$tmp"
	chmod 644 "$tmp"
	mv "$tmp" "$BASE_CPIO" # atomic: a concurrent run sees all or nothing
	rm -rf "$stage"
	# Bases unused for two days go (several checkouts may share the cache,
	# each with its own base).
	find "$cache" -maxdepth 1 -name 'base-*.cpio' -mtime +2 -printf '%p\n%p.files\n' | xargs -r rm -f
	vm_msg "base initramfs: $(du -h "$BASE_CPIO" | cut -f1)"
}

# vm_build_extras OUT: writes the per-run archive.  Uses the arrays BINS
# (host programs), FILES (SRC:GUESTPATH), PAYLOAD_SRCS (payload scripts) and
# the file BOOT_ENV (environment for the guest).
vm_build_extras() {
	local out=$1 stage here b abs name f src dst
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	stage=$(mktemp -d "${TMPDIR:-/tmp}/rpcrdma-extras.XXXXXX")
	mkdir -p "$stage/opt/rpcrdma/bin" "$stage/opt/rpcrdma/payloads" "$stage/etc/rpcrdma"
	cp "$here/guest/init" "$stage/init"
	chmod 755 "$stage/init"
	cp "$here/guest/runner" "$here/guest/lib.sh" "$here/guest/krb5.sh" "$stage/opt/rpcrdma/"
	for f in "${PAYLOAD_SRCS[@]}"; do
		cp "$f" "$stage/opt/rpcrdma/payloads/"
	done
	cp "$BOOT_ENV" "$stage/etc/rpcrdma/boot.env"
	# Programs keep their host path (so an $ORIGIN-relative RUNPATH such as
	# meson's build tree one still finds the project's librpcrdma.so) and get a
	# link in /opt/rpcrdma/bin, which is on the payloads' PATH.
	VM_SKIP_LIBS_FROM="$BASE_CPIO.files"
	for b in "${BINS[@]}"; do
		abs=$(readlink -f "$b")
		name=$(basename "$b")
		vm_copy_prog "$stage" "$abs" "$abs"
		ln -sf "$abs" "$stage/opt/rpcrdma/bin/$name"
	done
	# Libraries from outside the system directories (a build tree, found
	# through RUNPATH or the caller's LD_LIBRARY_PATH) are also put on the
	# guest's LD_LIBRARY_PATH, for programs that have no RUNPATH.
	local ldpath
	ldpath=$(cd "$stage" && find . -name '*.so*' \( -type f -o -type l \) | sed 's|^\.||' |
		{ grep -v -E '^/(usr/)?lib(64)?/' || true; } | xargs -r -n1 dirname | sort -u | tr '\n' ':')
	[ -z "$ldpath" ] || printf 'export LD_LIBRARY_PATH=%s\n' "${ldpath%:}" >"$stage/etc/rpcrdma/extra.env"
	for f in "${FILES[@]}"; do
		src=${f%%:*} dst=${f#*:}
		mkdir -p "$stage$(dirname "$dst")"
		cp -rL "$src" "$stage$dst"
	done
	unset VM_SKIP_LIBS_FROM
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out"
	rm -rf "$stage"
}
