#!/usr/bin/env bash
# deb-check.sh WORKDIR: builds the Debian packages (debian/) from a copy of
# the source, as `dpkg-buildpackage -us -uc -b` on a fresh machine would,
# runs lintian on them (errors fail; the warnings kept are listed in
# debian/README.lintian), installs them with apt-get, builds and runs a
# small program with `pkg-config --cflags --libs rpcrdma` and one against
# the TI-RPC bridge, runs the installed rpcrdma-ping and `man rpcrdma_clnt_call`,
# then removes the packages again.  Needs root (apt-get), as in CI.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:?usage: deb-check.sh WORKDIR}
pkgs="librpcrdma0 librpcrdma-dev librpcrdma-tirpc0 librpcrdma-tirpc-dev rpcrdma-tools rpcrdma-xdrgen"
rm -rf "$work"
mkdir -p "$work/src"
# the tracked files only: no build trees, no VM cache
git -C "$src" ls-files -z | (cd "$src" && xargs -0 cp --parents -t "$work/src")
cleanup() { apt-get remove -y -q $pkgs >/dev/null 2>&1 || true; }
trap cleanup EXIT
(cd "$work/src" && dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
	{ tail -n 60 "$work/build.log"; echo "deb-check: dpkg-buildpackage failed"; exit 1; }
ls "$work"/*.deb
lintian --fail-on error --suppress-tags-from-file "$src/debian/README.lintian" \
	"$work"/*.changes || { echo "deb-check: lintian reports errors"; exit 1; }
apt-get install -y -q "$work"/*.deb >"$work/install.log" 2>&1 ||
	{ tail -n 30 "$work/install.log"; exit 1; }
cat > "$work/user.c" <<'EOC'
#include <rpcrdma/rpcrdma.h>
#include <stdio.h>
int main(void)
{
	char line[128];

	printf("%s; %s\n", rpcrdma_version_string(),
	       rpcrdma_clnt_sperror(NULL, -110, "deb", line, sizeof(line)));
	return 0;
}
EOC
# shellcheck disable=SC2046 # pkg-config's flags are words
gcc -Wall -Werror -o "$work/user" "$work/user.c" $(pkg-config --cflags --libs rpcrdma)
"$work/user"
cat > "$work/bridge.c" <<'EOC'
#include <rpcrdma/tirpc.h>
#include <stdio.h>
int main(void)
{
	CLIENT *c = rpcrdma_tirpc_clnt_create("127.0.0.1", 1, 0x20000001, 1, 0, 0);

	printf("bridge: client %s\n", c ? "made" : "refused (no RDMA device)");
	return 0;
}
EOC
# shellcheck disable=SC2046
gcc -Wall -Werror -o "$work/bridge" "$work/bridge.c" $(pkg-config --cflags --libs rpcrdma-tirpc)
"$work/bridge"
rpcrdma-ping --version
rpcrdma-xdrgen --version
printf 'struct pair { int a; opaque b<16>; };\nprogram P { version V { pair ECHO(pair) = 1; } = 1; } = 0x20000999;\n' > "$work/p.x"
rpcrdma-xdrgen "$work/p.x" --header "$work/p.h" --xdr "$work/p_xdr.c"
# shellcheck disable=SC2046
gcc -Wall -Werror -c -I"$work" -o "$work/p_xdr.o" "$work/p_xdr.c" $(pkg-config --cflags rpcrdma)
man -w rpcrdma_clnt_call
man -w rpcrdma_tirpc_svc_create
man -w rpcrdma-xdrgen
dpkg -L librpcrdma0 librpcrdma-tirpc0 | grep '\.so\.'
echo "deb-check: passed"
