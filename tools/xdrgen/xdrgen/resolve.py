# SPDX-License-Identifier: BSD-2-Clause
"""Checks a parsed .x file and resolves its names: constants, enum values,
declared types, the DDP annotations, and the encoded sizes (smallest and
largest) of every type."""
import re

from .model import (Const, Decl, Enum, Pass, Program, Spec, Struct, Typedef,
                    Union, Value, XdrError)
from .parse import BUILTIN_CONSTS, DDP_RE

# Encoded size of each builtin scalar; string and opaque are not scalars.
SCALAR_SIZE = {'int': 4, 'uint': 4, 'hyper': 8, 'uhyper': 8, 'char': 4,
               'uchar': 4, 'short': 4, 'ushort': 4, 'long': 4, 'ulong': 4,
               'float': 4, 'double': 8, 'bool': 4}
LIMIT = 1 << 32       # a larger maximum is "unbounded"
# Names the generated functions use for their locals and parameters.
RESERVED = {'e', 'd', 'v', 'a', 'b', 'r', 'n', 'i', 'w', 'p', 'c', 'o', 's', 'cx', 'rc',
            'present', 'depth', 'save', 'call', 'req', 'done', 'arg', 'argp', 'resp',
            'bulk', 'bulk_len', 'buf', 'room', 'enc', 'flags', 'vals', 'peek'}
# Constants rpcgen's output takes from libtirpc's headers.
LIBRARY_CONSTS = {'MAXNETNAMELEN': 255, 'MAX_NETOBJ_SZ': 1024}
DEFINE_RE = re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)\s+([\w\s+*()-]+?)\s*(/\*.*)?$')


def pad4(n):
    return (n + 3) & ~3


def _number(text):
    neg = text.startswith('-')
    t = text[1:] if neg else text
    if t.lower().startswith('0x'):
        n = int(t, 16)
    elif len(t) > 1 and t.startswith('0'):
        n = int(t, 8)
    else:
        n = int(t)
    return -n if neg else n


class Resolver:
    def __init__(self, spec):
        self.spec = spec
        self.consts = dict(BUILTIN_CONSTS)
        self.consts.update(spec.consts)

    def value(self, v, what):
        if v is None:
            return None
        if re.match(r'-?\d', v.text):
            v.num = _number(v.text)
        elif v.text in self.consts:
            v.num = self.consts[v.text]
        elif v.text in LIBRARY_CONSTS:
            v.num = LIBRARY_CONSTS[v.text]
            self.spec.library_consts[v.text] = v.num
        else:
            raise XdrError('%s: unknown constant %s' % (what, v.text))
        return v

    def check_decl(self, d, what):
        if d.type == 'quadruple':
            raise XdrError('%s: quadruple is not supported' % what)
        if d.type == 'void':
            if d.kind != 'void':
                raise XdrError('%s: void with a name' % what)
            return
        if d.type not in SCALAR_SIZE and d.type not in ('string', 'opaque') \
                and d.type not in self.spec.types:
            raise XdrError('%s: unknown type %s' % (what, d.type))
        if d.type == 'string' and d.kind != 'var':
            raise XdrError('%s: a string is string NAME<MAX> or NAME<>' % what)
        if d.type == 'opaque' and d.kind not in ('fixed', 'var'):
            raise XdrError('%s: opaque is NAME[N], NAME<MAX> or NAME<>' % what)
        self.value(d.size, what)
        if d.size is not None and not 0 <= d.size.num < LIMIT:
            raise XdrError('%s: size %d out of range' % (what, d.size.num))

    def define_line(self, text):
        """A %#define NAME EXPR line: a constant, when EXPR is numbers and
        constants with + - * and parentheses."""
        m = DEFINE_RE.match(text)
        if not m:
            return
        expr = re.sub(r'[A-Za-z_]\w*', lambda w: str(self.consts.get(w.group(0), 'x')),
                      m.group(2))
        if re.fullmatch(r'[\d\s+*()-]+', expr):
            try:
                self.consts[m.group(1)] = int(eval(expr, {'__builtins__': {}}))  # noqa: S307
            except (SyntaxError, ValueError, ZeroDivisionError):
                pass

    def define(self, name, obj):
        if name in RESERVED or name.startswith('xdrgen_'):
            raise XdrError('%s: the name of a local of the generated code' % name)
        if name in self.spec.types:
            raise XdrError('%s defined twice' % name)
        self.spec.types[name] = obj

    def enum(self, e):
        nxt = 0
        for i, (name, v) in enumerate(e.members):
            if v is None:
                v = Value(str(nxt), nxt)
                e.members[i] = (name, v)
            else:
                self.value(v, 'enum %s' % e.name)
            self.consts[name] = v.num
            nxt = v.num + 1
        self.define(e.name, e)

    def union(self, u):
        self.check_decl(u.disc, 'union %s' % u.name)
        dt = self.base(u.disc.type)
        if u.disc.kind != 'plain' or not (dt in ('int', 'uint', 'bool') or
                                          isinstance(self.spec.types.get(dt), Enum)):
            raise XdrError('union %s: the discriminant is int, unsigned int, bool '
                           'or an enum' % u.name)
        seen = set()
        for labels, d in u.arms:
            for v in labels:
                self.value(v, 'union %s' % u.name)
                if v.num in seen:
                    raise XdrError('union %s: case %s twice' % (u.name, v.text))
                seen.add(v.num)
            self.check_decl(d, 'union %s' % u.name)
        if u.default:
            self.check_decl(u.default, 'union %s' % u.name)
        names = [d.name for _, d in u.arms if d.name] + \
            ([u.default.name] if u.default and u.default.name else [])
        if len(set(names)) != len(names):
            raise XdrError('union %s: two arms of one name' % u.name)

    def base(self, t):
        """The type a typedef chain of plain declarations stands for."""
        seen = set()
        while t in self.spec.types and isinstance(self.spec.types[t], Typedef):
            d = self.spec.types[t].decl
            if d.kind != 'plain' or t in seen:
                break
            seen.add(t)
            t = d.type
        return t

    def program(self, p):
        self.value(p.num, 'program %s' % p.name)
        for v in p.versions:
            self.value(v.num, 'version %s' % v.name)
            nums = set()
            for pr in v.procs:
                self.value(pr.num, 'procedure %s' % pr.name)
                if pr.num.num in nums:
                    raise XdrError('procedure number %d twice in %s' % (pr.num.num, v.name))
                nums.add(pr.num.num)
                for t in (pr.res, pr.arg):
                    if t in ('string', 'opaque', 'quadruple'):
                        raise XdrError('procedure %s: %s as argument or result is not '
                                       'supported (use a typedef)' % (pr.name, t))
                    if t != 'void':
                        self.check_decl(Decl('x', t, 'plain'), 'procedure %s' % pr.name)

    def ddp(self, text):
        for m in DDP_RE.finditer(text):
            tname, fname = m.groups()
            t = self.spec.types.get(tname)
            decls = []
            if isinstance(t, Struct):
                decls = t.fields
            elif isinstance(t, Union):
                decls = [d for _, d in t.arms] + ([t.default] if t.default else [])
            hit = [d for d in decls if d.name == fname]
            if not hit:
                raise XdrError('ddp %s.%s: no such struct or union field' % (tname, fname))
            if hit[0].type != 'opaque' or hit[0].kind != 'var':
                raise XdrError('ddp %s.%s: only a variable-length opaque may be '
                               'DDP-eligible' % (tname, fname))
            hit[0].ddp = True

    def run(self):
        # First the numbers and the names, so that a type may be used
        # before its definition (as rpcgen allows); then the declarations.
        for d in self.spec.defs:
            if isinstance(d, Const):
                if d.value.num is None and not d.value.text.startswith('"'):
                    self.value(d.value, 'const %s' % d.name)
                if d.value.num is not None:
                    self.consts[d.name] = d.value.num
            elif isinstance(d, Enum):
                self.enum(d)
            elif isinstance(d, (Struct, Union, Typedef)):
                self.define(d.name, d)
            elif isinstance(d, Pass):
                self.define_line(d.text)
        for d in self.spec.defs:
            if isinstance(d, Struct):
                names = set()
                for f in d.fields:
                    self.check_decl(f, 'struct %s' % d.name)
                    if f.kind == 'void' or f.name in names:
                        raise XdrError('struct %s: void or repeated field' % d.name)
                    names.add(f.name)
            elif isinstance(d, Union):
                self.union(d)
            elif isinstance(d, Typedef):
                self.check_decl(d.decl, 'typedef %s' % d.name)
            elif isinstance(d, Program):
                self.program(d)
        for d in self.spec.defs:
            if isinstance(d, Pass):
                self.ddp(d.text)
        self.spec.consts = self.consts
        return self.spec


class Sizes:
    """Smallest and largest encoded sizes (None: unbounded), and whether a
    decoded value holds memory to free."""

    def __init__(self, spec):
        self.spec = spec
        self._max, self._min, self._free = {}, {}, {}

    def _memo(self, table, name, compute, cyclic):
        if name in table:
            return table[name]
        table[name] = cyclic
        table[name] = r = compute(self.spec.types[name])
        return r

    def type_max(self, t):
        if t in SCALAR_SIZE:
            return SCALAR_SIZE[t]
        if t == 'void':
            return 0
        return self._memo(self._max, t, self._def_max, None)

    def _def_max(self, d):
        if isinstance(d, Enum):
            return 4
        if isinstance(d, Typedef):
            return self.decl_max(d.decl)
        if isinstance(d, Struct):
            parts = [self.decl_max(f) for f in d.fields]
        else:
            arms = [a for _, a in d.arms] + ([d.default] if d.default else [])
            sizes = [self.decl_max(a) for a in arms]
            parts = [4, None if None in sizes else max(sizes + [0])]
        if None in parts or sum(parts) >= LIMIT:
            return None
        return sum(parts)

    def decl_max(self, d):
        if d.kind == 'void':
            return 0
        if d.type in ('opaque', 'string'):
            if d.kind == 'fixed':
                return pad4(d.size.num)
            return None if d.size is None else 4 + pad4(d.size.num)
        e = self.type_max(d.type)
        if e is None:
            return None
        n = {'plain': e, 'opt': 4 + e, 'fixed': None, 'var': None}[d.kind]
        if d.kind == 'fixed':
            n = d.size.num * e
        elif d.kind == 'var':
            n = None if d.size is None else 4 + d.size.num * e
        return None if n is None or n >= LIMIT else n

    def type_min(self, t):
        if t in SCALAR_SIZE:
            return SCALAR_SIZE[t]
        if t == 'void':
            return 0
        return self._memo(self._min, t, self._def_min, 0)

    def _def_min(self, d):
        if isinstance(d, Enum):
            return 4
        if isinstance(d, Typedef):
            return self.decl_min(d.decl)
        if isinstance(d, Struct):
            return sum(self.decl_min(f) for f in d.fields)
        arms = [a for _, a in d.arms] + ([d.default] if d.default else [])
        return 4 + min(self.decl_min(a) for a in arms)

    def decl_min(self, d):
        if d.kind == 'void':
            return 0
        if d.kind in ('var', 'opt'):
            return 4
        if d.type == 'opaque':
            return pad4(d.size.num)
        e = self.type_min(d.type)
        return e * d.size.num if d.kind == 'fixed' else e

    def type_free(self, t):
        """True when a decoded value of type t may own memory."""
        if t in SCALAR_SIZE or t == 'void':
            return False
        return self._memo(self._free, t, self._def_free, False)

    def _def_free(self, d):
        if isinstance(d, Enum):
            return False
        if isinstance(d, Typedef):
            return self.decl_free(d.decl)
        if isinstance(d, Struct):
            return any(self.decl_free(f) for f in d.fields)
        arms = [a for _, a in d.arms] + ([d.default] if d.default else [])
        return any(self.decl_free(a) for a in arms)

    def decl_free(self, d):
        if d.kind == 'void' or d.type == 'opaque' and d.kind == 'fixed':
            return False
        if d.kind in ('var', 'opt'):
            return True
        return self.type_free(d.type)

    def has_ddp(self, t, seen=None):
        """True when type t holds a DDP-eligible item (directly or nested)."""
        seen = seen if seen is not None else set()
        if t not in self.spec.types or t in seen:
            return False
        seen.add(t)
        d = self.spec.types[t]
        if isinstance(d, Typedef):
            decls = [d.decl]
        elif isinstance(d, Struct):
            decls = d.fields
        elif isinstance(d, Union):
            decls = [a for _, a in d.arms] + ([d.default] if d.default else [])
        else:
            return False
        return any(x.ddp or self.has_ddp(x.type, seen) for x in decls)


def resolve(spec):
    Resolver(spec).run()
    return Sizes(spec)
