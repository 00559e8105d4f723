# Sourced by rdma-callgrind.sh and nfs-callgrind.sh: copies what callgrind
# needs in the guest (the tool, its preload library, the default
# suppressions) into a temporary directory, $stage, removed at exit.
# Needs $name (for messages).
vglib=${VALGRIND_LIB:-/usr/libexec/valgrind}
missing() { echo "$name: $1 missing (apt-get install valgrind)" >&2; exit 1; }
[ -e /usr/bin/valgrind.bin ] || missing /usr/bin/valgrind.bin
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for f in callgrind-amd64-linux vgpreload_core-amd64-linux.so default.supp; do
	cp "$vglib/$f" "$stage/" 2>/dev/null || missing "$vglib/$f"
done
