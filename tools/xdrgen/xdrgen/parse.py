# SPDX-License-Identifier: BSD-2-Clause
"""Reads a .x file: its preprocessor lines, then the rpcgen grammar
(grammar.lark) into the model (model.py)."""
import os
import re

import lark

from .model import (Const, Decl, Enum, Pass, Proc, Program, Spec, Struct,
                    Typedef, Union, Value, Version, XdrError)

GRAMMAR = os.path.join(os.path.dirname(__file__), 'grammar.lark')
# The annotation that marks a DDP-eligible item (RFC 8267), a pass-through
# comment rpcgen copies as it is:  %/* rpcrdma: ddp TYPE.FIELD */
DDP_RE = re.compile(r'rpcrdma:\s*ddp\s+([A-Za-z_]\w*)\.([A-Za-z_]\w*)')
# Pass-through lines for other systems' compilers, left out: Solaris's
# #pragma ident, FreeBSD's __FBSDID.
FOREIGN_RE = re.compile(r'\s*(#\s*pragma\s+ident\b|__FBSDID\s*\()')
# Names rpcgen (through <rpc/types.h>) knows as constants.
BUILTIN_CONSTS = {'TRUE': 1, 'FALSE': 0}


def _cond(expr, defines):
    """The value of an #if expression: NAME, defined(NAME), !, 0, 1."""
    expr = expr.split('/*')[0].strip()
    neg = False
    while expr.startswith('!'):
        neg, expr = not neg, expr[1:].strip()
    m = re.fullmatch(r'defined\s*\(?\s*(\w+)\s*\)?', expr)
    if m:
        val = m.group(1) in defines
    elif re.fullmatch(r'\d+', expr):
        val = int(expr) != 0
    elif re.fullmatch(r'\w+', expr):
        val = defines.get(expr, '0') not in ('0', '')
    else:
        raise XdrError('#if %s: expression not supported' % expr)
    return val != neg


def preprocess(path, defines, depth=0):
    """The file's text with the preprocessor lines done: #if/#ifdef/#ifndef/
    #else/#endif on the names in defines, #define, #undef, #include "file"
    (relative to the file); other # lines (#pragma) are dropped.  Lines
    left out become blank, so line numbers stay those of the file."""
    if depth > 16:
        raise XdrError('%s: #include nested too deep' % path)
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().split('\n')
    out, stack = [], []          # stack of (taking, taken_before)
    cont = False
    for no, line in enumerate(lines, 1):
        if cont and not line.startswith('%'):   # a % line ending in \ goes on
            line = '%' + line
        cont = line.startswith('%') and line.endswith('\\')
        s = line.strip()
        taking = all(t for t, _ in stack)
        if not s.startswith('#'):
            # A %#define in a block left out still names a constant (sizes
            # in nlm_prot.x): kept, as its C is harmless anywhere.
            keep = taking or re.match(r'%\s*#\s*define\s+\w+\s+[^\\]*$', line)
            out.append(line if keep else '')
            continue
        m = re.match(r'#\s*(\w+)\s*(.*)', s)
        word, rest = (m.group(1), m.group(2)) if m else ('', '')
        if word in ('ifdef', 'ifndef'):
            name = rest.split()[0] if rest.split() else ''
            val = (name in defines) == (word == 'ifdef')
            stack.append((val, val))
        elif word == 'if':
            val = _cond(rest, defines) if taking else False
            stack.append((val, val))
        elif word == 'else':
            if not stack:
                raise XdrError('%s:%d: #else without #if' % (path, no))
            stack[-1] = (not stack[-1][1], True)
        elif word == 'endif':
            if not stack:
                raise XdrError('%s:%d: #endif without #if' % (path, no))
            stack.pop()
        elif not taking:
            pass
        elif word == 'define':
            parts = rest.split(None, 1)
            if parts:
                defines[parts[0]] = parts[1] if len(parts) > 1 else '1'
        elif word == 'undef':
            defines.pop(rest.strip(), None)
        elif word == 'include':
            m = re.match(r'"([^"]+)"', rest)
            if not m:
                raise XdrError('%s:%d: only #include "file" is supported' % (path, no))
            inc = os.path.join(os.path.dirname(path), m.group(1))
            out.append(preprocess(inc, defines, depth + 1))
            continue
        out.append('')
    if stack:
        raise XdrError('%s: #if without #endif' % path)
    return '\n'.join(out)


BUILTIN_WORDS = {
    'int': 'int', 'hyper': 'hyper', 'char': 'char', 'short': 'short',
    'long': 'long', 'float': 'float', 'double': 'double',
    'quadruple': 'quadruple', 'bool': 'bool', 'string': 'string',
    'opaque': 'opaque', 'void': 'void',
    # rpcgen's spellings
    'u_int': 'uint', 'u_long': 'ulong', 'u_char': 'uchar', 'u_short': 'ushort',
    # <stdint.h> names, which rpcgen passes to libtirpc's xdr_uint32_t ...
    'int32_t': 'int', 'uint32_t': 'uint', 'u_int32_t': 'uint',
    'int64_t': 'hyper', 'uint64_t': 'uhyper', 'u_int64_t': 'uhyper',
    'quad_t': 'hyper', 'u_quad_t': 'uhyper',
}
# Types rpcgen takes from libtirpc, given here as .x text when a file uses
# one without defining it.
LIBRARY_TYPES = {'netobj': 'typedef opaque netobj<1024>;\n',
                 'des_block': 'typedef opaque des_block[8];\n'}
UNSIGNED = {None: 'uint', 'int': 'uint', 'hyper': 'uhyper', 'char': 'uchar',
            'short': 'ushort', 'long': 'ulong'}


class _Build(lark.Transformer):
    """Parse tree to model objects; values stay unresolved (text) here."""

    def start(self, items):
        return list(items)

    def passthrough(self, items):
        text = str(items[0])[1:]
        if FOREIGN_RE.match(text):
            return Pass('')
        return Pass(text)

    def value(self, items):
        return Value(str(items[0]), None)

    def type_spec(self, items):
        words = [str(t) for t in items]
        if words[0] == 'unsigned':
            return UNSIGNED[words[1] if len(words) > 1 else None]
        if words[0] in ('struct', 'union', 'enum'):
            return words[1]
        return BUILTIN_WORDS.get(words[0], words[0])

    def decl_plain(self, items):
        return Decl(str(items[1]), items[0], 'plain')

    def decl_fixed(self, items):
        return Decl(str(items[1]), items[0], 'fixed', items[2])

    def decl_var(self, items):
        return Decl(str(items[1]), items[0], 'var', items[2] if len(items) > 2 else None)

    def decl_opt(self, items):
        return Decl(str(items[1]), items[0], 'opt')

    def decl_void(self, items):
        return Decl(None, 'void', 'void')

    def const_def(self, items):
        v = items[1]
        return Const(str(items[0]), v if isinstance(v, Value) else Value(str(v), None))

    def enum_item(self, items):
        return (str(items[0]), items[1] if len(items) > 1 else None)

    def enum_body(self, items):
        return list(items)

    def enum_def(self, items):
        return Enum(str(items[1]), items[2])

    def struct_body(self, items):
        return list(items)

    def struct_def(self, items):
        return Struct(str(items[1]), items[2])

    def case_label(self, items):
        return items[0]

    def case_spec(self, items):
        return (list(items[:-1]), items[-1])

    def default_spec(self, items):
        return ('default', items[0])

    def union_body(self, items):
        disc, rest = items[0], items[1:]
        dflt = rest[-1][1] if rest and rest[-1][0] == 'default' else None
        arms = [a for a in rest if a[0] != 'default']
        return (disc, arms, dflt)

    def union_def(self, items):
        disc, arms, dflt = items[2]
        return Union(str(items[1]), disc, arms, dflt)

    def typedef_def(self, items):
        d = items[0]
        if d.kind == 'plain' and d.type == d.name:
            return Pass('')   # typedef struct foo foo: the header has it
        return Typedef(d.name, d)

    def proc_def(self, items):
        res, name, args, num = items[0], str(items[1]), items[2:-1], items[-1]
        if len(args) != 1:
            raise XdrError('procedure %s: more than one argument (rpcgen -N) is not supported'
                           % name)
        return Proc(name, num, res, args[0])

    def version_def(self, items):
        return Version(str(items[0]), items[-1], list(items[1:-1]))

    def program_def(self, items):
        return Program(str(items[0]), items[-1], list(items[1:-1]))


_parser = None


def parse_text(text, where):
    global _parser
    if _parser is None:
        with open(GRAMMAR, encoding='utf-8') as f:
            _parser = lark.Lark(f.read(), parser='lalr', propagate_positions=False)
    try:
        return _Build().transform(_parser.parse(text))
    except lark.exceptions.UnexpectedInput as e:
        raise XdrError('%s:%d:%d: syntax error near %r' %
                       (where, e.line, e.column, e.get_context(text, 30).split('\n')[0]))
    except lark.exceptions.VisitError as e:
        if isinstance(e.orig_exc, XdrError):
            raise e.orig_exc
        raise


def parse_file(path, defines=None):
    d = {'RPC_XDRGEN': '1'}
    d.update(defines or {})
    text = preprocess(path, d)
    defs = parse_text(text, path)
    for name, x in LIBRARY_TYPES.items():
        if re.search(r'\b%s\b' % name, re.sub(r'(?m)^%.*$', '', text)) and not any(
                getattr(o, 'name', None) == name for o in defs):
            defs = parse_text(x, '<%s>' % name) + defs
    return defs
