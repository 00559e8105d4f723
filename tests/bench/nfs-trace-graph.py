#!/usr/bin/env python3
"""Sums up the function_graph passes of tests/vm/payloads/nfs-trace.

usage: nfs-trace-graph.py OUTDIR   (reads each graph-SERVER.txt that
NFS_TRACE_GRAPH=1 left: nfsd's nfsd4_remove and nfsd4_putfh, tinynfs's
do_unlinkat and ib_uverbs_post_send)

For every traced root function: how many calls, the median of its
duration, and below it each function it called, by path (root > child >
grandchild ...), with the median over the root's calls of the time spent
in that path (calls of the same path in one root call summed, 0 where a
root call did not make it) and in how many root calls it came.  The
tracer's own cost is inside every figure (each traced function costs
some microseconds under TCG): compare the two servers' figures, not the
sums with untraced runs.
"""
import glob
import os
import re
import statistics
import sys

# " 1)   tinynfs-245   | + 10.123 us   |    name() {"  (funcgraph-proc)
LINE = re.compile(r'^\s*(\d+)\)\s*(\S*?)\s*\|\s*[+!#*@$]?\s*(?:([\d.]+) us)?\s*\|(\s*)(\S.*)$')


def parse(path):
    """Root calls: (name, duration, {path tuple: summed us})."""
    roots, stacks = [], {}
    for line in open(path, errors='replace'):
        m = LINE.match(line)
        if not m:
            continue
        cpu, dur, code = m.group(1), m.group(3), m.group(5).strip()
        st = stacks.setdefault(cpu, [])
        if code.endswith('{'):
            st.append([code.split('(')[0], {}])
        elif code.startswith('}'):
            if not st or dur is None:
                st.clear()   # a graph cut at the buffer's start
                continue
            name, paths = st.pop()
            close(st, roots, name, float(dur), paths)
        elif code.endswith(';') and dur is not None:
            close(st, roots, code.split('(')[0], float(dur), {})
    return roots


def close(st, roots, name, dur, paths):
    if not st:
        roots.append((name, dur, paths))
        return
    up = st[-1][1]
    up[(name,)] = up.get((name,), 0.0) + dur
    for p, us in paths.items():
        up[(name,) + p] = up.get((name,) + p, 0.0) + us


def main():
    d = sys.argv[1]
    for f in sorted(glob.glob(f'{d}/graph-*.txt')):
        server = os.path.basename(f)[6:-4]
        roots = parse(f)
        for root in sorted({r[0] for r in roots}):
            rs = [r for r in roots if r[0] == root]
            print(f'{server}: {root}, {len(rs)} calls, median {statistics.median(r[1] for r in rs):.1f} us')
            paths = {}
            for _, _, ps in rs:
                for p in ps:
                    paths.setdefault(p, None)
            rows = []
            for p in paths:
                v = [ps.get(p, 0.0) for _, _, ps in rs]
                seen = sum(1 for _, _, ps in rs if p in ps)
                rows.append((p, statistics.median(v), seen))
            for p, med, seen in sorted(rows):
                if med < 1.0 and seen * 2 < len(rs):
                    continue
                print('  %-60s %8.1f us  in %d' % ('  ' * (len(p) - 1) + p[-1], med, seen))
    return 0


if __name__ == '__main__':
    sys.exit(main())
