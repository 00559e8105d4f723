# SPDX-License-Identifier: BSD-2-Clause
"""The command line of rpcrdma-xdrgen (see docs/man/rpcrdma-xdrgen.1.scd)."""
import argparse
import os
import sys

from .emit import Emitter
from .model import Enum, Spec, Struct, Typedef, Union, XdrError
from .parse import parse_file
from .resolve import Resolver, Sizes


def _load(path, defines, imports):
    spec = Spec(defs=[])
    for imp in imports:
        ipath, _, header = imp.partition(':')
        if not header:
            raise XdrError('--import %s: FILE.x:HEADER' % imp)
        ispec = Resolver(Spec(defs=parse_file(ipath, defines),
                              types=dict(spec.types), consts=dict(spec.consts))).run()
        for d in ispec.defs:
            if isinstance(d, (Enum, Struct, Union, Typedef)):
                spec.imported.add(d.name)
        spec.types.update(ispec.types)
        spec.consts.update(ispec.consts)
        spec.import_headers.append(header)
    spec.defs = parse_file(path, defines)
    Resolver(spec).run()
    return spec, Sizes(spec)


def main(argv=None, version='unknown'):
    ap = argparse.ArgumentParser(prog='rpcrdma-xdrgen',
                                 description='XDR and RPC code for librpcrdma from an rpcgen .x file')
    ap.add_argument('-V', '--version', action='version',
                    version=f'rpcrdma-xdrgen (librpcrdma {version})')
    ap.add_argument('input', help='the .x file')
    ap.add_argument('--header', metavar='OUT', help='write the header (types, prototypes)')
    ap.add_argument('--xdr', metavar='OUT', help='write the encoders and decoders')
    ap.add_argument('--svc', metavar='OUT', help='write the service tables')
    ap.add_argument('--clnt', metavar='OUT', help='write the client stubs')
    ap.add_argument('--testgen', metavar='OUT', help='write random values and equality (tests)')
    ap.add_argument('--include', metavar='NAME',
                    help='how the .c files include the header (default: its file name)')
    ap.add_argument('--import', dest='imports', action='append', default=[],
                    metavar='FILE.x:HEADER', help='types of another .x, generated elsewhere')
    ap.add_argument('-D', dest='defines', action='append', default=[], metavar='NAME[=VALUE]')
    ap.add_argument('--only-version', action='append', default=[], metavar='VERSION',
                    help='service tables for these versions only')
    a = ap.parse_args(argv)
    if not (a.header or a.xdr or a.svc or a.clnt or a.testgen):
        ap.error('nothing to write: give --header, --xdr, --svc, --clnt or --testgen')
    defines = dict((d.split('=', 1) + ['1'])[:2] for d in a.defines)
    try:
        spec, sizes = _load(a.input, defines, a.imports)
    except (XdrError, OSError) as e:
        print('rpcrdma-xdrgen: %s' % e, file=sys.stderr)
        return 1
    header = a.include or os.path.basename(a.header or
                                           os.path.splitext(a.input)[0] + '.h')
    em = Emitter(spec, sizes, a.input, header)
    for out, tmpl, test in ((a.header, 'header.h.j2', False), (a.xdr, 'xdr.c.j2', False),
                            (a.svc, 'svc.c.j2', False), (a.clnt, 'clnt.c.j2', False),
                            (a.testgen, 'testgen.c.j2', True)):
        if not out:
            continue
        ctx = em.context(test=test, only_versions=a.only_version if tmpl == 'svc.c.j2' else None)
        ctx['imported'] = sorted(spec.imported)
        text = em.render(tmpl, ctx)
        tmp = out + '.tmp'
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(text)
        os.replace(tmp, out)
    return 0
