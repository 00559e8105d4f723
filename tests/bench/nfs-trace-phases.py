#!/usr/bin/env python3
"""Splits every traced NFS call of tests/vm/payloads/nfs-trace into phases.

usage: nfs-trace-phases.py OUTDIR [PROC]   (reads trace-kernel.txt and
each trace-LABEL.txt of a tinynfs: trace-tinynfs.txt, NFS_TRACE_TINYNFS's;
OUTDIR/create or OUTDIR/getattr for NFS_TRACE_WORK's).  PROC: only the
calls of that NFSv4 procedure (REMOVE, OPEN, GETATTR ...: the client's
sunrpc:rpc_request names it); the system calls are counted for each
procedure seen either way.

For each call (sunrpc:rpc_task_begin .. rpc_task_end of the client):
  client   begin -> the client posts its Send (xprtrdma_post_send)
  to srv   Send posted -> the server starts on it (kernel: svc_process;
           tinynfs: its loop's epoll_wait returns)
  server   -> the server posts its reply (kernel: svcrdma_post_send;
           tinynfs: the Send doorbell, a 32-byte write to the uverbs file)
  unlink   vfs_unlink alone, inside the server phase (kprobes)
  to cli   -> the client's receive completion (xprtrdma_wc_receive)
  finish   -> rpc_task_end
  next     -> the next call's begin (the client program's own work)
and, for tinynfs, the system calls it made in the server phase (their
count and summed time, each by number).  Medians over the calls.
"""
import glob
import os
import re
import statistics
import sys

REQ = re.compile(r'\S+ (\w+)v\d+ (\w+) \(')
LINE = re.compile(r'\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+):\s+(\w+):\s*(.*)')
PHASES = [('client', 'begin', 'psend'), ('to srv', 'psend', 'srv'),
          ('server', 'srv', 'ssend'), ('unlink', 'unl0', 'unl1'), ('to cli', 'ssend', 'wcrecv'),
          ('finish', 'wcrecv', 'end'), ('next', 'end', 'next'),
          ('call', 'begin', 'end')]
# The call as points in time: see TIMELINE below.
# The same call as points in time, each the one before it plus the median
# of that step over the calls (robust to the stalls the emulator adds now
# and then); the kprobes on vfs_unlink when the payload could set them;
# the server's receive completion is traced for nfsd (svcrdma_wc_recv)
# only: tinynfs's loop wakes in epoll_wait.
TIMELINE = [('client posts the call\'s Send', 'psend', 'begin'),
            ('server: receive completion (nfsd)', 'srecv', 'psend'),
            ('server picks the call up', 'srv', 'psend'),
            ('handler: vfs_unlink begins', 'unl0', 'srv'),
            ('handler: vfs_unlink returns', 'unl1', 'unl0'),
            ('server posts the reply', 'ssend', 'unl1'),
            ('client: receive completion', 'wcrecv', 'ssend'),
            ('client: call ends (rpc_task_end)', 'end', 'wcrecv')]
# x86_64 system call numbers worth a name here
NAMES = {0: 'read', 1: 'write', 3: 'close', 5: 'fstat', 16: 'ioctl', 72: 'fcntl',
         122: 'setfsuid', 228: 'clock_gettime', 232: 'epoll_wait', 233: 'epoll_ctl',
         257: 'openat', 262: 'newfstatat', 263: 'unlinkat', 303: 'name_to_handle_at',
         304: 'open_by_handle_at', 439: 'faccessat2'}


def calls(path, kernel):
    out, cur, enter = [], None, {}
    for line in open(path, errors='replace'):
        m = LINE.match(line)
        if not m:
            continue
        comm, pid, t, ev, rest = m.group(1), int(m.group(2)), float(m.group(3)) * 1e6, m.group(4), m.group(5)
        if ev == 'rpc_task_begin':
            cur = {'begin': t, 'sys': {}, 'all': 0}
            out.append(cur)
            continue
        if cur is None:
            continue
        if ev == 'rpc_request':
            r = REQ.match(rest)
            if r:
                cur.setdefault('proc', r.group(2))
        elif ev == 'xprtrdma_post_send':
            cur.setdefault('psend', t)
        elif ev == 'xprtrdma_wc_receive':
            cur.setdefault('wcrecv', t)
        elif ev == 'rpc_task_end':
            cur['end'] = t
        elif ev == 'rr_unlink' and comm != 'rm':   # kprobe on vfs_unlink (the
            cur.setdefault('unl0', t)              # client's rm calls it too)
        elif ev == 'rr_unlink_ret' and comm != 'rm':
            cur.setdefault('unl1', t)
        elif kernel and ev == 'svcrdma_wc_recv':
            cur.setdefault('srecv', t)
        elif kernel:
            if ev == 'svc_process':
                cur.setdefault('srv', t)
            elif ev == 'svcrdma_post_send':
                cur.setdefault('ssend', t)
        elif ev in ('sys_enter', 'sys_exit'):
            nr = int(rest.split()[1])
            if ev == 'sys_exit':
                if nr == 232 and 'psend' in cur and 'srv' not in cur:
                    cur['srv'] = t
                if pid in enter and 'srv' in cur and 'ssend' not in cur:
                    s = cur['sys'].setdefault(nr, [0, 0.0])
                    s[0] += 1
                    s[1] += t - enter.pop(pid)
                continue
            args = rest.split('(', 1)[1].rstrip(')').split(', ')
            cur['all'] += 1   # every one, from this call's begin to the next's
            if 'srv' in cur and 'ssend' not in cur:
                if nr == 1 and args[2] == '20':  # the Send doorbell
                    cur['ssend'] = t
                else:
                    enter[pid] = t
    for a, b in zip(out, out[1:]):
        a['next'] = b['begin']
    return out


def main():
    d = sys.argv[1]
    only = sys.argv[2] if len(sys.argv) > 2 else None
    rows = {}
    # kernel first, then each tinynfs traced (trace-tinynfs.txt, and the
    # labels of NFS_TRACE_TINYNFS: trace-LABEL.txt)
    names = ['kernel'] + sorted(os.path.basename(f)[6:-4] for f in glob.glob(f'{d}/trace-*.txt')
                                if not f.endswith('/trace-kernel.txt'))
    for s in names:
        rows[s] = calls(f'{d}/trace-{s}.txt', s == 'kernel')
    procs = sorted({c.get('proc', '?') for s in names for c in rows[s]})
    allrows = rows
    if only:
        rows = {s: [c for c in cs if c.get('proc') == only] for s, cs in rows.items()}
        print(f'{only} calls only')
    print('phase medians, us (calls: %s)' % ', '.join(f'{s} {len(c)}' for s, c in rows.items()))
    print('  %-8s' % '' + ''.join(' %14s' % s for s in names) + '  ratio to kernel')
    for name, a, b in PHASES:
        med = []
        for s in names:
            v = [c[b] - c[a] for c in rows[s] if a in c and b in c]
            med.append(statistics.median(v) if v else float('nan'))
        print('  %-8s' % name + ''.join(' %14.0f' % m for m in med) + '  ' +
              ' '.join('%.2fx' % (m / med[0]) if med[0] else '-' for m in med[1:]))
    print('timeline of a median call, us from its begin (client rpc_task_begin):')
    print('  %-36s' % '' + ''.join(' %14s' % s for s in names))
    at = {s: {'begin': 0.0} for s in names}
    for name, key, prev in TIMELINE:
        out = []
        for s in names:
            # from the step before; the server's pick-up from the client's
            # Send when the receive completion is not traced (tinynfs)
            v = [c[key] - c[prev] for c in rows[s] if key in c and prev in c]
            if v and prev in at[s]:
                at[s][key] = at[s][prev] + statistics.median(v)
                out.append('%14.0f' % at[s][key])
            else:
                out.append('%14s' % '-')
        print('  %-36s%s' % (name, ''.join(' ' + o for o in out)))
    for s in names[1:]:
        for p in procs:
            syscalls(s, p, [c for c in allrows[s] if 'ssend' in c and c.get('proc', '?') == p])
    return 0


def syscalls(s, p, tn):
    if tn:
        n = sum(sum(v[0] for v in c['sys'].values()) for c in tn)
        a = sum(c['all'] for c in tn)
        print(f"{s}'s system calls in the server phase of {p}, {len(tn)} calls, "
              f"{n / len(tn):.2f} a call ({a / len(tn):.2f} from one call's begin to the "
              f"next's; count a call, median us of one):")
        tot = {}
        for c in tn:
            for nr, (n, us) in c['sys'].items():
                t = tot.setdefault(nr, [0, []])
                t[0] += n
                t[1].append(us / n)
        for nr, (n, us) in sorted(tot.items(), key=lambda kv: -statistics.median(kv[1][1]) * kv[1][0]):
            print('  %-18s %5.2f %7.1f' % (NAMES.get(nr, f'nr {nr}'), n / len(tn), statistics.median(us)))


if __name__ == '__main__':
    sys.exit(main())
