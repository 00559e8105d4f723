#!/bin/sh
# nfs-trace.sh RUN OUTDIR TINYNFS: boots the soft-RoCE VM once and traces
# REMOVE calls against the kernel's nfsd and tinynfs over RDMA
# (tests/vm/payloads/nfs-trace), then prints each phase of a call side by
# side and tinynfs's system calls (nfs-trace-phases.py).
set -eu
run=$1 out=$2 tinynfs=$3
"$run" --clean-out --out "$out" --bin "$tinynfs" nfs-trace
[ -s "$out/nfs-trace.txt" ] || { echo "nfs-trace: no timings" >&2; exit 1; }
echo
cat "$out/nfs-trace.txt"
python3 "$(dirname "$0")/nfs-trace-phases.py" "$out" | tee "$out/nfs-trace-phases.txt"
