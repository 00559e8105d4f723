#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""rpcrdma-xdrgen refuses what it cannot handle, with a message that says
what and where, and exit status 1 (never a traceback, never output).
usage: errors.py (with Python that has lark and jinja2)"""
import contextlib
import io
import os
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'tools', 'xdrgen'))
from xdrgen import cli  # noqa: E402

# (.x text, a piece of the message expected; None: must be accepted)
CASES = [
    ('struct st { quadruple q; };', 'quadruple is not supported'),
    ('struct st { nosuch x; };', 'unknown type nosuch'),
    ('struct st { int x<NOSUCH>; };', 'unknown constant NOSUCH'),
    ('struct st { int x; int x; };', 'repeated field'),
    ('struct st { string x; };', 'a string is string NAME<MAX>'),
    ('struct st { opaque x; };', 'opaque is NAME[N]'),
    ('struct st { int x };', 'syntax error'),
    ('typedef int v;', 'the name of a local'),
    ('struct st { int a; }; struct st { int b; };', 'st defined twice'),
    ('union u switch (int d) { case 1: int a; case 1: int b; };', 'case 1 twice'),
    ('union u switch (hyper d) { case 1: int a; };', 'the discriminant is int'),
    ('struct st { int a; };\n%/* rpcrdma: ddp st.a */', 'only a variable-length opaque'),
    ('struct st { int a; };\n%/* rpcrdma: ddp st.b */', 'no such struct or union field'),
    ('program P { version V { int F(int, int) = 1; } = 1; } = 1;', 'more than one argument'),
    ('program P { version V { int F(string) = 1; } = 1; } = 1;', 'string as argument'),
    ('program P { version V { int F(int) = 1; int G(int) = 1; } = 1; } = 1;',
     'procedure number 1 twice'),
    ('#if FOO + 1\n#endif\n', 'expression not supported'),
    ('#ifdef X\n', '#if without #endif'),
    ('#include <rpc/types.h>\n', 'only #include "file"'),
    ('const A = 010; struct st { opaque x[A]; int y<0x10>; bool b; };\n'
     'typedef st *sp; union u switch (bool b) { case TRUE: sp p; case FALSE: void; };', None),
]


def run(text):
    with tempfile.TemporaryDirectory() as d:
        x = os.path.join(d, 't.x')
        with open(x, 'w') as f:
            f.write(text)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = cli.main([x, '--header', os.path.join(d, 't.h'), '--xdr',
                           os.path.join(d, 't.c')])
        return rc, err.getvalue(), os.path.exists(os.path.join(d, 't.h'))


def main():
    fails = 0
    for text, want in CASES:
        rc, msg, wrote = run(text)
        ok = (rc == 0 and wrote) if want is None else (rc == 1 and want in msg and not wrote)
        if not ok:
            fails += 1
            print('FAIL %r: exit %d, %r' % (text, rc, msg.strip()))
    print('%d cases, %d failures' % (len(CASES), fails))
    return fails != 0


if __name__ == '__main__':
    sys.exit(main())
