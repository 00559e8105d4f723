#!/usr/bin/env bash
# install-prefix.sh BUILD_DIR: installs librpcrdma under a private prefix
# (not /usr, not /usr/local) and checks that what it installs starts by
# itself, with no LD_LIBRARY_PATH (issue #37, item 2): rpcrdma-ping runs,
# and a program linked --as-needed against the TI-RPC bridge (which then
# names only librpcrdma-tirpc) loads librpcrdma through the bridge's
# RUNPATH; rpcrdma.pc names rpcrdma-xdrgen exactly when it is installed.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: install-prefix.sh BUILD_DIR}
prefix="$build.inst"
rm -rf "$prefix"
if [ -d "$build/meson-private" ]; then
	meson setup --reconfigure "$build" "$src" --prefix="$prefix" --libdir=lib \
		-Dtests=disabled -Dexamples=disabled >"$build.setup.log" 2>&1
else
	meson setup "$build" "$src" --prefix="$prefix" --libdir=lib \
		-Dtests=disabled -Dexamples=disabled >"$build.setup.log" 2>&1
fi || { cat "$build.setup.log"; exit 1; }
ninja -C "$build" >/dev/null
meson install -C "$build" --quiet
unset LD_LIBRARY_PATH
out=$("$prefix/bin/rpcrdma-ping" --version)
echo "installed rpcrdma-ping --version: $out"
case $out in *librpcrdma*) ;; *) echo "install-prefix: rpcrdma-ping did not run"; exit 1 ;; esac
readelf -d "$prefix/bin/rpcrdma-ping" | grep -E 'RUNPATH|RPATH'
# rpcrdma.pc names rpcrdma-xdrgen only when it is installed, and then
# the name runs (issue #38).
xdrgen=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=xdrgen rpcrdma)
if [ -n "$xdrgen" ]; then
	"$xdrgen" --version ||
		{ echo "install-prefix: rpcrdma.pc names $xdrgen, which does not run"; exit 1; }
elif [ -e "$prefix/bin/rpcrdma-xdrgen" ]; then
	echo "install-prefix: rpcrdma-xdrgen installed but rpcrdma.pc does not name it"; exit 1
else
	echo "install-prefix: no rpcrdma-xdrgen in this build, and rpcrdma.pc names none"
fi
tirpc=$(ls "$prefix"/lib/librpcrdma-tirpc.so 2>/dev/null || true)
if [ -z "$tirpc" ]; then
	echo "install-prefix: no TI-RPC bridge in this build: only rpcrdma-ping checked"
	exit 0
fi
readelf -d "$tirpc" | grep -E 'RUNPATH|RPATH' ||
	{ echo "install-prefix: librpcrdma-tirpc.so has no RUNPATH"; exit 1; }
cat > "$build.bridge-user.c" <<'EOC'
#include <rpcrdma/tirpc.h>
#include <stdio.h>
int main(void)
{
	/* nobody listens on port 1: a NULL CLIENT, but the library was loaded */
	CLIENT *c = rpcrdma_tirpc_clnt_create("127.0.0.1", 1, 0x20000001, 1, 0, 0);
	printf("bridge loaded, client %s\n", c ? "made" : "refused");
	return 0;
}
EOC
# shellcheck disable=SC2046 # pkg-config's flags are words
gcc -Wall -Werror -Wl,--as-needed -o "$build.bridge-user" "$build.bridge-user.c" \
	$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs rpcrdma-tirpc) \
	-Wl,-rpath,"$prefix/lib"
readelf -d "$build.bridge-user" | grep NEEDED
"$build.bridge-user"

# docs/using.md's CMake: pkg_check_modules with imported targets
cm="$build.cmake"
rm -rf "$cm"
mkdir -p "$cm"
sed -n '/^```cmake$/,/^```$/p' "$src/docs/using.md" | sed '1d;$d' |
	sed 's/^# the TI-RPC bridge$/add_executable(bridge-app bridge.c)/' > "$cm/body.cmake"
{
	echo 'cmake_minimum_required(VERSION 3.16)'
	echo 'project(app C)'
	cat "$cm/body.cmake"
} > "$cm/CMakeLists.txt"
printf '#include <rpcrdma/rpcrdma.h>\n#include <stdio.h>\nint main(void) { puts(rpcrdma_version_string()); return 0; }\n' > "$cm/app.c"
cp "$build.bridge-user.c" "$cm/bridge.c"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cmake -S "$cm" -B "$cm/b" >"$cm.log" 2>&1 &&
	cmake --build "$cm/b" >>"$cm.log" 2>&1 || { cat "$cm.log"; exit 1; }
LD_LIBRARY_PATH="$prefix/lib" "$cm/b/app"
"$cm/b/bridge-app"
echo "install-prefix: passed (pkg-config, --as-needed bridge, CMake)"
