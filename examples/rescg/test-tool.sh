#!/bin/sh
# Runs rescg-tool on the example limits file and compares its output with
# the expected files byte for byte; checks a rejected file's message and the
# exit codes.  Usage: test-tool.sh RESCG_TOOL SOURCE_DIR
set -eu
tool=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$tool" show "$dir/limits.conf" > "$tmp/show"
cmp "$tmp/show" "$dir/limits.show.expected"

"$tool" charge "$dir/limits.conf" bronze rxe0 hca_object 10 > "$tmp/charge"
cmp "$tmp/charge" "$dir/limits.charge.expected"

"$tool" check "$dir/limits.conf"

printf '[a]\nrxe0 hca_handle=1\n[b]\nrxe0 hca_foo=1\n' > "$tmp/bad.conf"
if "$tool" check "$tmp/bad.conf" 2> "$tmp/err"; then
	echo "check accepted a bad file"; exit 1
fi
printf 'rescg-tool: %s: line 4: unknown key '"'"'hca_foo'"'"'\n' "$tmp/bad.conf" > "$tmp/err.expected"
cmp "$tmp/err" "$tmp/err.expected"

if "$tool" charge "$dir/limits.conf" nosuch rxe0 hca_object 1 2>/dev/null; then
	echo "charge accepted an unknown group"; exit 1
fi
echo "rescg-tool: ok"
