# SPDX-License-Identifier: BSD-2-Clause
"""C fragments for one declaration: its C type, and the statements that
encode, decode, size, free, and (for the tests) make random values of it
and compare two of them.  lv is the C lvalue of the item."""
from .model import Enum, Struct, Typedef, Union
from .resolve import SCALAR_SIZE, pad4

CTYPE = {'int': 'int32_t', 'uint': 'uint32_t', 'hyper': 'int64_t',
         'uhyper': 'uint64_t', 'char': 'char', 'uchar': 'unsigned char',
         'short': 'short', 'ushort': 'unsigned short', 'long': 'int32_t',
         'ulong': 'uint32_t', 'float': 'float', 'double': 'double',
         'bool': 'bool'}
NOMAX = 0xffffffff


def ctype(t):
    return CTYPE.get(t, t)


def cdecl(d, indent='\t'):
    """The C declaration of d (a struct field, a union arm, a typedef)."""
    if d.type == 'string':
        return '%sstruct xdrgen_string %s;' % (indent, d.name)
    if d.type == 'opaque':
        if d.kind == 'fixed':
            return '%suint8_t %s[%s];' % (indent, d.name, d.size.text)
        return '%sstruct xdrgen_opaque %s;' % (indent, d.name)
    t = ctype(d.type)
    if d.kind == 'fixed':
        return '%s%s %s[%s];' % (indent, t, d.name, d.size.text)
    if d.kind == 'var':
        return '%sstruct {\n%s\tuint32_t len;\n%s\t%s *val;\n%s} %s;' % (
            indent, indent, indent, t, indent, d.name)
    if d.kind == 'opt':
        return '%s%s *%s;' % (indent, t, d.name)
    return '%s%s %s;' % (indent, t, d.name)


def _max(d):
    return d.size.text if d.size is not None else '0xffffffffu'


class Gen:
    """Statement lists for declarations, given the sizes of the spec."""

    def __init__(self, spec, sizes):
        self.spec, self.sizes = spec, sizes

    # -- one value (a plain item of type t at lv)
    def enc1(self, t, lv):
        if t in SCALAR_SIZE:
            return ['XDRGEN_TRY(xdrgen_put_%s(e, %s));' % (t, lv)]
        return ['XDRGEN_TRY(xdrgen_enc_%s(e, &%s, cx));' % (t, lv)]

    def dec1(self, t, lv, fail='return rc;'):
        """Decodes one t into lv; on failure sets rc and runs fail (a C
        statement), having freed what it allocated."""
        if t in SCALAR_SIZE:
            call = 'xdrgen_get_%s(d, &%s)' % (t, lv)
        else:
            call = 'xdrgen_dec_%s(d, &%s, cx)' % (t, lv)
        return try_(call, fail)

    def size1(self, t, lv):
        if t in SCALAR_SIZE:
            return '%d' % SCALAR_SIZE[t]
        return 'xdrgen_size_%s(&%s)' % (t, lv)

    def free1(self, t, lv):
        return ['xdrgen_free_%s(&%s);' % (t, lv)] if self.sizes.type_free(t) else []

    # -- a declaration
    def enc(self, d, lv):
        if d.kind == 'void':
            return []
        if d.type in ('opaque', 'string'):
            if d.kind == 'fixed':
                return ['XDRGEN_TRY(rpcrdma_xdr_put_fixed(e, %s, %s));' % (lv, d.size.text)]
            return ['XDRGEN_TRY(xdrgen_put_opaque(e, %s.data, %s.len, %s, cx, %d));'
                    % (lv, lv, _max(d), d.ddp)]
        if d.kind == 'plain':
            return self.enc1(d.type, lv)
        if d.kind == 'opt':
            return ['XDRGEN_TRY(rpcrdma_xdr_put_bool(e, %s != NULL));' % lv,
                    'if (%s != NULL) {' % lv] + \
                ['\t' + s for s in self.enc1(d.type, '(*%s)' % lv)] + ['}']
        if d.kind == 'fixed':
            return ['for (uint32_t i = 0; i < %s; i++) {' % d.size.text] + \
                ['\t' + s for s in self.enc1(d.type, '%s[i]' % lv)] + ['}']
        check = ['if (%s.len > %s)' % (lv, _max(d)), '\treturn -EINVAL;'] \
            if d.size is not None else []
        return check + ['XDRGEN_TRY(rpcrdma_xdr_put_u32(e, %s.len));' % lv,
                'for (uint32_t i = 0; i < %s.len; i++) {' % lv] + \
            ['\t' + s for s in self.enc1(d.type, '%s.val[i]' % lv)] + ['}']

    def dec(self, d, lv, fail='return rc;'):
        """Statements decoding d into lv, writing every byte the value's
        free and encode read (no zeroing needed first).  On failure they set
        rc, free what they allocated, and run fail."""
        if d.kind == 'void':
            return []
        if d.type in ('opaque', 'string'):
            if d.kind == 'fixed':
                return try_('rpcrdma_xdr_get_fixed(d, %s, %s)' % (lv, d.size.text), fail)
            fn = 'xdrgen_get_string' if d.type == 'string' else 'xdrgen_get_opaque'
            return try_('%s(d, &%s, %s, cx, %d)' % (fn, lv, _max(d), d.ddp), fail)
        if d.kind == 'plain':
            return self.dec1(d.type, lv, fail)
        if d.kind == 'opt':
            return ['{', '\tuint32_t present;'] + \
                _indent(try_('xdrgen_get_flag(d, &present)', fail)) + \
                ['\t%s = NULL;' % lv,
                 '\tif (present) {',
                 '\t\tif (cx->depth >= XDRGEN_MAX_DEPTH) {',
                 '\t\t\trc = -EBADMSG;', '\t\t\t' + fail, '\t\t}',
                 '\t\t%s = xdrgen_dalloc(cx, sizeof(*%s));' % (lv, lv),
                 '\t\tif (%s == NULL) {' % lv,
                 '\t\t\trc = -ENOMEM;', '\t\t\t' + fail, '\t\t}',
                 '\t\tcx->depth++;'] + \
                _indent(self.dec1(d.type, '(*%s)' % lv, '{ xdrgen_dfree(cx, %s); %s }' % (lv, fail)), 2) + \
                ['\t\tcx->depth--;', '\t}', '}']
        undo = self.free1(d.type, 'X')
        if d.kind == 'fixed':
            el = '%s[i]' % lv
            on_err = _heap_only(['while (i-- > 0)'] + _indent(self.free1(d.type, el))) \
                if undo else []
            return ['for (uint32_t i = 0; i < %s; i++) {' % d.size.text] + \
                _indent(self.dec1(d.type, el, _block(on_err + [fail]))) + ['}']
        el = '%s.val[i]' % lv
        on_err = _heap_only(['while (i-- > 0)'] + _indent(self.free1(d.type, el))) \
            if undo else []
        return ['{', '\tuint32_t n;'] + \
            _indent(try_('rpcrdma_xdr_get_count(d, %s, %d, &n)'
                         % (_max(d), max(self.sizes.type_min(d.type), 1)), fail)) + \
            ['\t%s.val = NULL;' % lv,
             '\tif (n > 0) {',
             '\t\t%s.val = xdrgen_dalloc_n(cx, n, sizeof(*%s.val));' % (lv, lv),
             '\t\tif (%s.val == NULL) {' % lv,
             '\t\t\trc = -ENOMEM;', '\t\t\t' + fail, '\t\t}', '\t}',
             '\t%s.len = n;' % lv,
             '\tfor (uint32_t i = 0; i < n; i++) {'] + \
            _indent(self.dec1(d.type, el, _block(on_err + ['xdrgen_dfree(cx, %s.val);' % lv, fail])), 2) + \
            ['\t}', '}']

    def size(self, d, lv):
        """Statements adding d's encoded size to n."""
        if d.kind == 'void':
            return []
        if d.type in ('opaque', 'string'):
            if d.kind == 'fixed':
                return ['n += %d;' % pad4(d.size.num)]
            return ['n += rpcrdma_xdr_opaque_size(%s.len);' % lv]
        if d.kind == 'plain':
            return ['n += %s;' % self.size1(d.type, lv)]
        if d.kind == 'opt':
            return ['n += 4;', 'if (%s != NULL)' % lv,
                    '\tn += %s;' % self.size1(d.type, '(*%s)' % lv)]
        if d.type in SCALAR_SIZE:
            if d.kind == 'fixed':
                return ['n += (size_t)%d * %s;' % (SCALAR_SIZE[d.type], d.size.text)]
            return ['n += 4 + (size_t)%d * %s.len;' % (SCALAR_SIZE[d.type], lv)]
        cnt, el = (d.size.text, '%s[i]' % lv) if d.kind == 'fixed' else \
            ('%s.len' % lv, '%s.val[i]' % lv)
        return (['n += 4;'] if d.kind == 'var' else []) + \
            ['for (uint32_t i = 0; i < %s; i++)' % cnt, '\tn += %s;' % self.size1(d.type, el)]

    def free(self, d, lv):
        if d.kind == 'void':
            return []
        if d.type in ('opaque', 'string'):
            if d.kind == 'fixed':
                return []
            return ['if (%s.owned)' % lv, '\tfree((void *)%s.data);' % lv]
        if d.kind == 'plain':
            return self.free1(d.type, lv)
        if d.kind == 'opt':
            return ['if (%s != NULL) {' % lv] + \
                ['\t' + s for s in self.free1(d.type, '(*%s)' % lv)] + \
                ['\tfree(%s);' % lv, '}']
        inner = self.free1(d.type, 'X')
        if d.kind == 'fixed':
            if not inner:
                return []
            return ['for (uint32_t i = 0; i < %s; i++)' % d.size.text] + \
                ['\t' + s for s in self.free1(d.type, '%s[i]' % lv)]
        loop = ['for (uint32_t i = 0; i < %s.len; i++)' % lv] + \
            ['\t' + s for s in self.free1(d.type, '%s.val[i]' % lv)] if inner else []
        return loop + ['free(%s.val);' % lv]

    # -- the tests' random values and comparison (--testgen)
    def rand1(self, t, lv):
        if t in ('float', 'double'):
            return ['xdrgen_rand_bits(r, &%s, sizeof(%s));' % (lv, lv)]
        if t == 'bool':
            return ['%s = (xdrgen_rand(r) & 1) != 0;' % lv]
        if t in SCALAR_SIZE:
            return ['%s = (%s)xdrgen_rand(r);' % (lv, ctype(t))]
        return ['xdrgen_rand_%s(r, &%s, depth);' % (t, lv)]

    def rand(self, d, lv):
        if d.kind == 'void':
            return []
        if d.type == 'opaque' and d.kind == 'fixed':
            return ['xdrgen_rand_bits(r, %s, %s);' % (lv, d.size.text)]
        if d.type in ('opaque', 'string'):
            return ['xdrgen_rand_%s(r, &%s, %s);' % (d.type, lv, _max(d))]
        if d.kind == 'plain':
            return self.rand1(d.type, lv)
        if d.kind == 'opt':
            return ['if (depth < 3 && xdrgen_rand(r) % 3 != 0) {',
                    '\t%s = xdrgen_alloc(sizeof(*%s));' % (lv, lv),
                    '\tdepth++;'] + \
                ['\t' + s for s in self.rand1(d.type, '(*%s)' % lv)] + ['\tdepth--;', '}']
        if d.kind == 'fixed':
            return ['for (uint32_t i = 0; i < %s; i++) {' % d.size.text] + \
                ['\t' + s for s in self.rand1(d.type, '%s[i]' % lv)] + ['}']
        return ['%s.len = xdrgen_rand_len(r, %s, depth);' % (lv, _max(d)),
                '%s.val = %s.len ? xdrgen_alloc(%s.len * sizeof(*%s.val)) : NULL;'
                % (lv, lv, lv, lv),
                'depth++;',
                'for (uint32_t i = 0; i < %s.len; i++) {' % lv] + \
            ['\t' + s for s in self.rand1(d.type, '%s.val[i]' % lv)] + ['}', 'depth--;']

    def eq1(self, t, a, b):
        if t in ('float', 'double'):
            return 'memcmp(&%s, &%s, sizeof(%s)) == 0' % (a, b, a)
        if t in SCALAR_SIZE:
            return '%s == %s' % (a, b)
        return 'xdrgen_eq_%s(&%s, &%s)' % (t, a, b)

    def eq(self, d, a, b):
        """Statements returning 0 when a and b differ."""
        if d.kind == 'void':
            return []
        if d.type == 'opaque' and d.kind == 'fixed':
            return ['if (memcmp(%s, %s, %s) != 0)' % (a, b, d.size.text), '\treturn 0;']
        if d.type in ('opaque', 'string'):
            return ['if (!xdrgen_eq_view(%s.data, %s.len, %s.data, %s.len))' % (a, a, b, b),
                    '\treturn 0;']
        if d.kind == 'plain':
            return ['if (!(%s))' % self.eq1(d.type, a, b), '\treturn 0;']
        if d.kind == 'opt':
            return ['if ((%s == NULL) != (%s == NULL))' % (a, b), '\treturn 0;',
                    'if (%s != NULL && !(%s))' % (a, self.eq1(d.type, '(*%s)' % a, '(*%s)' % b)),
                    '\treturn 0;']
        if d.kind == 'fixed':
            n, ea, eb = d.size.text, '%s[i]' % a, '%s[i]' % b
            pre = []
        else:
            n, ea, eb = '%s.len' % a, '%s.val[i]' % a, '%s.val[i]' % b
            pre = ['if (%s.len != %s.len)' % (a, b), '\treturn 0;']
        return pre + ['for (uint32_t i = 0; i < %s; i++)' % n,
                      '\tif (!(%s))' % self.eq1(d.type, ea, eb), '\t\treturn 0;']


def try_(call, fail):
    """call, then fail (a statement, after rc is set) if it returned non-zero."""
    if fail == 'return rc;':
        return ['XDRGEN_TRY(%s);' % call]
    return ['if ((rc = %s) != 0)' % call, '\t' + fail]


def _heap_only(stmts):
    """stmts (frees) as one statement run only when the decode allocates
    with malloc, not from an arena."""
    return ['if (cx->arena == NULL)'] + _indent(stmts)


def _block(stmts):
    """Statements as one: a brace block unless there is a single one."""
    if len(stmts) == 1:
        return stmts[0]
    return '{ ' + ' '.join(x.strip() for x in stmts) + ' }'


def _indent(lines, n=1):
    return ['\t' * n + s for s in lines]


def kind_of(obj):
    return {Enum: 'enum', Struct: 'struct', Union: 'union', Typedef: 'typedef'}[type(obj)]
