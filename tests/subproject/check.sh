#!/usr/bin/env bash
# Builds the project in this directory, which uses librpcrdma as a meson
# subproject, in OUT (a copy, whose subprojects/librpcrdma links to this
# source tree), two ways:
#   shared: dependency('rpcrdma') through the wrap's [provide];
#   static: dependency('rpcrdma', fallback : 'librpcrdma'), default_library=static.
# Each runs its program, and shows that the subproject built the library
# alone (no tests, examples, fuzzers or benchmarks).  Prints the parent's
# build steps and tests.  Usage: tests/subproject/check.sh OUT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=${1:?usage: check.sh OUT}
rm -rf "$out"
mkdir -p "$out/parent/subprojects"
cp "$here/meson.build" "$here/meson_options.txt" "$here/user.c" "$out/parent/"
cp "$here/subprojects/librpcrdma.wrap" "$out/parent/subprojects/"
ln -s "$src" "$out/parent/subprojects/librpcrdma"

count() { # python expression over the introspection list `t`
	python3 -c "import json,sys; t=json.load(sys.stdin); print($1)"
}

build() { # name, meson options...
	local name=$1; shift
	local b="$out/$name"
	meson setup "$b" "$out/parent" --force-fallback-for=rpcrdma "$@" >"$b.setup.log" 2>&1 ||
		{ cat "$b.setup.log"; return 1; }
	local steps tests sub
	steps=$(ninja -C "$b" -n | sed -n 's,^\[[0-9]*/\([0-9]*\)\].*,\1,p' | tail -n 1)
	tests=$(meson introspect "$b" --tests | count 'len(t)')
	sub=$(meson introspect "$b" --targets |
		count '" ".join(sorted(x["name"] for x in t if x["subproject"] == "librpcrdma"))')
	echo "subproject ($name): $steps build steps, $tests test(s); librpcrdma targets: $sub"
	if [ "$tests" != 1 ] || [ "$sub" != rpcrdma ]; then
		echo "subproject ($name): the subproject built more than the library"
		return 1
	fi
	ninja -C "$b" >"$b.build.log" 2>&1 || { tail -n 40 "$b.build.log"; return 1; }
	meson test -C "$b" --print-errorlogs -v rpcrdma-user 2>&1 | grep -E '^rpcrdma-user:|^Ok:|^Fail:'
}

build shared -Dform=provide
readelf -d "$out/shared/rpcrdma-user" | grep -q 'NEEDED.*librpcrdma\.so\.0' ||
	{ echo "subproject (shared): rpcrdma-user does not link librpcrdma.so.0"; exit 1; }
build static -Dform=fallback -Ddefault_library=static
if readelf -d "$out/static/rpcrdma-user" | grep -q 'NEEDED.*librpcrdma'; then
	echo "subproject (static): rpcrdma-user links a shared librpcrdma"; exit 1
fi
[ -f "$out/static/subprojects/librpcrdma/lib/librpcrdma.a" ] ||
	{ echo "subproject (static): no librpcrdma.a"; exit 1; }
echo "subproject: passed"
