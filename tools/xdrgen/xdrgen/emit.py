# SPDX-License-Identifier: BSD-2-Clause
"""Writes the generated files from the resolved spec with the Jinja2
templates (templates/)."""
import os
import re

import jinja2

from .cgen import Gen, cdecl, ctype, kind_of, try_
from .model import Const, Enum, Pass, Program, Struct, Typedef, Union
from .resolve import SCALAR_SIZE


def _env():
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.join(os.path.dirname(__file__), 'templates')),
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined)


def _indent(lines):
    return ['\t' + s for s in lines]


def enum_check(vals):
    """A C condition, true when the word w (uint32_t) is not one of the
    enum's values vals (sorted): the values are cut into windows of 64, each
    a range check when contiguous, else a bitmap test; a switch (None) when
    that takes more than four windows."""
    def off(lo):
        return '(w - %du)' % (lo & 0xffffffff) if lo else 'w'
    wins = []
    for v in vals:
        if wins and v - wins[-1][0] < 64:
            wins[-1].append(v)
        else:
            wins.append([v])
    if len(wins) > 4:
        return None
    conds = []
    for win in wins:
        lo, span = win[0], win[-1] - win[0]
        if span == len(win) - 1:
            conds.append('w != %du' % (lo & 0xffffffff) if span == 0 else
                         '%s > %du' % (off(lo), span))
        else:
            bits = sum(1 << (v - lo) for v in win)
            conds.append('%s > %du || !((0x%xull >> %s) & 1)' % (off(lo), span, bits, off(lo)))
    return conds[0] if len(conds) == 1 else ' && '.join('(%s)' % c for c in conds)


class Emitter:
    def __init__(self, spec, sizes, source, header):
        self.spec, self.sizes, self.gen = spec, sizes, Gen(spec, sizes)
        self.source, self.header = source, header
        self.env = _env()
        self.env.globals.update(cdecl=cdecl)

    # -- types
    def own_defs(self):
        return [d for d in self.spec.defs
                if not isinstance(d, (Enum, Struct, Union, Typedef)) or
                d.name not in self.spec.imported]

    def _union_lines(self, u, what, lv='v'):
        """A union's statements for what (enc, dec, size, free, rand, eq)."""
        g, disc = self.gen, u.disc
        fn = getattr(g, what)
        dl = '%s->%s' % (lv, disc.name)
        out = []
        if what in ('enc', 'dec', 'rand', 'eq', 'size'):
            dt = self.spec.types.get(disc.type)
            if what == 'dec' and isinstance(dt, Enum) and u.default is None:
                # The switch refuses what is not a case: no enum check first.
                out += ['{', '\tuint32_t w;'] + \
                    _indent(try_('rpcrdma_xdr_get_u32(d, &w)', 'return rc;')) + \
                    ['\t%s = (%s)(int32_t)w;' % (dl, disc.type), '}']
            elif what == 'rand':
                out += ['%s = xdrgen_pick_%s(r);' % (dl, u.name)]
            elif what == 'eq':
                out += g.eq(disc, 'a->%s' % disc.name, 'b->%s' % disc.name)
            else:
                out += fn(disc, dl)
        sw = 'a->%s' % disc.name if what == 'eq' else dl
        out.append('switch ((int64_t)%s) {' % sw)
        for labels, d in u.arms:
            out += ['case %d:' % v.num for v in labels]
            out += _indent(['{'] + _indent(self._arm(d, what)) + ['\tbreak;', '}'])
        out.append('default:')
        if u.default is not None:
            out += _indent(['{'] + _indent(self._arm(u.default, what)) + ['\tbreak;', '}'])
        elif what == 'enc':
            out.append('\treturn -EINVAL; /* not a case of the union */')
        elif what == 'dec':
            out.append('\treturn -EBADMSG; /* not a case of the union */')
        else:
            out.append('\tbreak;')
        out.append('}')
        return out

    def _arm(self, d, what):
        if d.kind == 'void':
            return []
        if what == 'eq':
            return self.gen.eq(d, 'a->u.%s' % d.name, 'b->u.%s' % d.name)
        return getattr(self.gen, what)(d, 'v->u.%s' % d.name)

    def _struct_dec(self, t):
        """A struct's decode: field after field; when one fails, the
        fields before it that allocated are freed (a goto ladder)."""
        out, ladder, fail = [], [], 'return rc;'
        for i, f in enumerate(t.fields):
            lv = 'v->%s' % f.name
            out += self.gen.dec(f, lv, fail)
            undo = self.gen.free(f, lv)
            if undo:
                ladder.append(('fail_%d' % i, undo))
                fail = 'goto fail_%d;' % i
        out.append('return 0;')
        used = [lab for lab, _ in ladder if 'goto %s;' % lab in '\n'.join(out)]
        if not used:
            return out
        top = max(i for i, (lab, _) in enumerate(ladder) if lab in used)
        for lab, undo in reversed(ladder[:top + 1]):
            if lab in used:
                out.append('%s:' % lab)
            out += ['if (cx->arena == NULL) {'] + _indent(undo) + ['}']
        return out + ['return rc;']

    def lines(self, t, what):
        if isinstance(t, Struct) and what == 'dec':
            return self._struct_dec(t)
        if isinstance(t, Struct):
            out = []
            for f in t.fields:
                if what == 'eq':
                    out += self.gen.eq(f, 'a->%s' % f.name, 'b->%s' % f.name)
                else:
                    out += getattr(self.gen, what)(f, 'v->%s' % f.name)
            return out
        if isinstance(t, Union):
            return self._union_lines(t, what)
        if what == 'eq':
            return self.gen.eq(t.decl, '(*a)', '(*b)')
        return getattr(self.gen, what)(t.decl, '(*v)')

    def type_info(self, t, test=False):
        mx = self.sizes.type_max(t.name)
        info = {'name': t.name, 'kind': kind_of(t), 'dec_rc': False,
                'max': 'XDRGEN_UNBOUNDED' if mx is None else '%du' % mx,
                'min': self.sizes.type_min(t.name)}
        if isinstance(t, Enum):
            info['vals'] = sorted(set(v.num for _, v in t.members))
            info['check'] = enum_check(info['vals'])
            info['size'] = ['n = 4;']
            info['free'] = []
            if test:
                info['rand'], info['eq'] = [], []
            return info
        for what in ('enc', 'dec', 'size', 'free') + (('rand', 'eq') if test else ()):
            info[what] = self.lines(t, what)
        if info['dec'][-1:] != ['return 0;'] and info['dec'][-1:] != ['return rc;']:
            info['dec'].append('return 0;')
        if re.search(r'\brc\b', '\n'.join(info['dec'])):
            info['dec_rc'] = True
        if test and isinstance(t, Union):
            info['picks'] = self._picks(t)
        return info

    def _picks(self, u):
        """Discriminant values a random union takes: its cases, and for a
        default arm a value no case has (an enum's other members, or a number)."""
        cases = [v.num for labels, _ in u.arms for v in labels]
        other = []
        if u.default is not None:
            dt = self.spec.types.get(u.disc.type)
            if isinstance(dt, Enum):
                other = sorted(set(v.num for _, v in dt.members) - set(cases))[:3]
            elif u.disc.type == 'bool':
                other = [x for x in (0, 1) if x not in cases]
            else:
                other = [x for x in (7777, 123456, 0x7ffffff0) if x not in cases]
        return cases + other

    def types(self, test=False):
        return [self.type_info(t, test) for t in self.own_defs()
                if isinstance(t, (Enum, Struct, Union, Typedef))]

    # -- procedures
    def _enc_expr(self, t, ptr):
        if t in SCALAR_SIZE:
            return 'xdrgen_put_%s(e, *(const %s *)%s)' % (t, ctype(t), ptr)
        return 'xdrgen_enc_%s(e, %s, &cx)' % (t, ptr)

    def _dec_expr(self, t, ptr):
        if t in SCALAR_SIZE:
            return 'xdrgen_get_%s(d, (%s *)%s)' % (t, ctype(t), ptr)
        return 'xdrgen_dec_%s(d, %s, &cx)' % (t, ptr)

    def _max_text(self, t):
        if t == 'void':
            return '0u'
        mx = self.sizes.type_max(t)
        return 'XDRGEN_UNBOUNDED' if mx is None else '%du' % mx

    def proc_info(self, prog, vers, p):
        fn = '%s_%d' % (p.name.lower(), vers.num.num)
        arg, res = p.arg, p.res
        ddp_res = res != 'void' and self.sizes.has_ddp(res)
        svc = (', %s *argp' % ctype(arg) if arg != 'void' else '') + \
            (', %s *resp' % ctype(res) if res != 'void' else '')
        clnt = (', const %s *argp' % ctype(arg) if arg != 'void' else '') + \
            (', %s *resp' % ctype(res) if res != 'void' else '') + \
            (', void *bulk, size_t bulk_len' if ddp_res else '')
        return {
            'fn': fn, 'name': p.name, 'num': p.num.num, 'arg': arg, 'res': res,
            'arg_ctype': ctype(arg), 'res_ctype': ctype(res),
            'svc_params': svc, 'clnt_params': clnt, 'async_params': clnt,
            'res_max': self._max_text(res), 'args_max': self._max_text(arg),
            'res_bounded': res == 'void' or self.sizes.type_max(res) is not None,
            'arg_builtin': arg in SCALAR_SIZE,
            'ddp_res': ddp_res,
            'enc_args': self._enc_expr(arg, 'argp'), 'dec_args': self._dec_expr(arg, 'argp'),
            'enc_res': self._enc_expr(res, 'resp'), 'dec_res': self._dec_expr(res, 'resp'),
            'free_args': arg not in SCALAR_SIZE and arg != 'void' and self.sizes.type_free(arg),
            'free_res': res not in SCALAR_SIZE and res != 'void' and self.sizes.type_free(res),
        }

    def programs(self, only_versions=None):
        progs = []
        for d in self.spec.defs:
            if not isinstance(d, Program):
                continue
            vers = []
            for v in d.versions:
                if only_versions and v.name not in only_versions:
                    continue
                procs = [self.proc_info(d, v, p) for p in v.procs]
                vers.append({'name': v.name, 'num': v.num.num, 'procs': procs,
                             'nprocs': max(p['num'] for p in procs) + 1})
            if vers:
                progs.append({'name': d.name, 'num': d.num.num, 'versions': vers})
        return progs

    # -- files
    def context(self, test=False, only_versions=None):
        defs = []
        for d in self.own_defs():
            item = {'kind': 'pass' if isinstance(d, Pass) else
                    'const' if isinstance(d, Const) else
                    'program' if isinstance(d, Program) else kind_of(d), 'obj': d}
            if isinstance(d, Union):
                item['arms'] = [a for _, a in d.arms if a.kind != 'void'] + \
                    ([d.default] if d.default and d.default.kind != 'void' else [])
            defs.append(item)
        progs = self.programs(only_versions)
        guard = re.sub(r'[^A-Za-z0-9]', '_', os.path.basename(self.header)).upper()
        return {
            'source': os.path.basename(self.source), 'header': os.path.basename(self.header),
            'library_consts': sorted(self.spec.library_consts.items()),
            'guard': 'XDRGEN_' + guard, 'imports': self.spec.import_headers, 'defs': defs,
            'aggregates': [d for d in self.own_defs() if isinstance(d, (Struct, Union))],
            'types': self.types(test), 'programs': progs,
            'versions': [v for pg in progs for v in pg['versions']],
            'procs': [p for pg in progs for v in pg['versions'] for p in v['procs']],
            'base': re.sub(r'\W', '_', os.path.splitext(os.path.basename(self.source))[0]),
        }

    def render(self, template, ctx):
        return self.env.get_template(template).render(**ctx)
