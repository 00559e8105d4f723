#!/bin/sh
# Installs, with apt-get, every Debian 12 package that building and testing
# librpcrdma needs (and the soft-RoCE VM's userland).  Runs as root; as
# another user it uses sudo.  Does nothing when everything is installed.
set -eu
pkgs="build-essential meson ninja-build pkg-config clang libclang-rt-14-dev scdoc
 libcmocka-dev libibverbs-dev librdmacm-dev ibverbs-providers ibverbs-utils
 libtirpc-dev rpcsvc-proto python3-lark python3-jinja2
 libkrb5-dev krb5-kdc krb5-admin-server krb5-user
 rdmacm-utils perftest valgrind systemtap-sdt-dev
 qemu-system-x86 busybox-static kmod cpio iproute2 rpcbind tshark gnuplot-nox
 tcpdump strace time
 linux-headers-amd64 linux-source
 dpkg-dev debhelper lintian fakeroot man-db cmake
 python3"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# tshark asks whether non-root users may capture; answer for it.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
