# Shared helpers of the soft-RoCE harness (host side).  Sourced by tests/vm/run.
# shellcheck shell=bash

vm_msg() { printf 'vm: %s\n' "$*" >&2; }
vm_die() { printf 'vm: error: %s\n' "$*" >&2; exit 2; }

# The cache holds what is downloaded and what is slow to build, outside the
# repository: $RPCRDMA_CACHE, else $XDG_CACHE_HOME/rpcrdma, else ~/.cache/rpcrdma.
vm_cache_dir() {
	if [ -n "${RPCRDMA_CACHE:-}" ]; then
		printf '%s\n' "$RPCRDMA_CACHE"
	else
		printf '%s\n' "${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/rpcrdma"
	fi
}

vm_need_cmd() { # command package
	command -v "$1" >/dev/null 2>&1 ||
		vm_die "'$1' not found; install the Debian package '$2' (tests/deps.sh installs everything)"
}

# Runs apt-get as root (sudo otherwise).
vm_apt() {
	if [ "$(id -u)" = 0 ]; then apt-get "$@"; else sudo apt-get "$@"; fi
}

# apt-get download PKG... into the current directory; refreshes the package
# lists once if apt does not know a package (fresh machines and containers).
vm_apt_download() {
	if ! apt-get -q -o APT::Sandbox::User=root download "$@" >apt-download.log 2>&1; then
		vm_msg "apt-get download $* failed; running apt-get update and retrying"
		vm_apt update -q >/dev/null 2>&1 || true
		apt-get -q -o APT::Sandbox::User=root download "$@" >apt-download.log 2>&1 || {
			cat apt-download.log >&2
			vm_die "cannot download $* from the Debian archive"
		}
	fi
	rm -f apt-download.log
}

# A stable digest of the named files' paths, sizes and contents.
vm_digest() {
	local f
	for f in "$@"; do
		if [ -e "$f" ]; then
			printf '%s ' "$f"; sha256sum <"$f"
		else
			printf '%s missing\n' "$f"
		fi
	done | sha256sum | cut -c1-16
}
