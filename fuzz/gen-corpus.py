#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Writes the seed corpus of the wire-format fuzz targets (fuzz/corpus/).

Run from anywhere: python3 fuzz/gen-corpus.py.  The output is committed;
rerun after changing the seeds below.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MSG, NOMSG, MSGP, DONE, ERROR = range(5)


def w(*vals):
    return b"".join(struct.pack(">I", v & 0xFFFFFFFF) for v in vals)


def seg(h, l, o):
    return w(h, l, o >> 32, o & 0xFFFFFFFF)


def fixed(typ, vers=1, credits=32, xid=0x11223344):
    return w(xid, vers, credits, typ)


def read_list(entries):
    return b"".join(w(1, pos) + seg(h, l, o) for pos, h, l, o in entries) + w(0)


def write_list(chunks):
    out = b""
    for c in chunks:
        out += w(1, len(c)) + b"".join(seg(*s) for s in c)
    return out + w(0)


def reply_chunk(c):
    if c is None:
        return w(0)
    return w(1, len(c)) + b"".join(seg(*s) for s in c)


def hdr(typ, reads=(), writes=(), reply=None, **kw):
    return fixed(typ, **kw) + read_list(reads) + write_list(writes) + reply_chunk(reply)


RPC = w(0x11223344, 0, 2, 100003, 3, 1)  # an RPC call's first words, as payload

calls = {
    "msg-nochunks": hdr(MSG) + RPC,
    "msg-read": hdr(MSG, reads=[(64, 0xA1, 4096, 0x10000)]) + RPC,
    "msg-read-2seg": hdr(MSG, reads=[(32, 1, 100, 0x1000), (32, 2, 28, 0x2000), (160, 3, 8, 0x3000)]) + RPC,
    "msg-write16": hdr(MSG, writes=[[(0xB0 + i, 4096, 0x100000 + 4096 * i) for i in range(16)]]) + RPC,
    "msg-write2": hdr(MSG, writes=[[(1, 512, 0)], [(2, 512, 512), (3, 1, 1024)]]) + RPC,
    "msg-reply": hdr(MSG, reply=[(0xC1, 8192, 0x7000), (0xC2, 8192, 0x9000)]) + RPC,
    "nomsg-pos0": hdr(NOMSG, reads=[(0, 0xD1, 2048, 0x4000)], reply=[(0xC1, 1024, 0)]),
    # RFC 8166 3.5.3: a position-zero chunk with data chunks at positions
    # inside the call it carries
    "nomsg-pos0-data": hdr(NOMSG, reads=[(0, 0xD1, 100, 0x4000), (0, 0xD2, 60, 0x5000),
                                         (40, 0xD3, 4096, 0x6000), (4144, 0xD4, 10, 0x8000)],
                           reply=[(0xC1, 1024, 0)]),
    "all-lists": hdr(MSG, reads=[(8, 1, 4, 0)], writes=[[(2, 16, 0)]], reply=[(3, 32, 0)]) + RPC,
    "bad-version": hdr(MSG, vers=2) + RPC,
    "msgp": fixed(MSGP) + w(0, 0, 0, 0, 0),
    "done": fixed(DONE) + w(0, 0),
    "error": fixed(ERROR) + w(1, 1, 1),
    "done-16": fixed(DONE),  # dropped: never answered, whatever the length
    "error-20": fixed(ERROR) + w(2),
    "huge-count": fixed(MSG) + w(0, 1, 0xFFFFFFFF) + seg(1, 1, 1) + w(0, 0),
    "overlap": hdr(MSG, reads=[(8, 1, 5, 0), (12, 2, 4, 0)]),
    "zero-segs": fixed(MSG) + w(0, 1, 0, 0, 0),
    "ends-after-reads": fixed(MSG) + read_list([(8, 1, 4, 0)]),
    "ends-after-writes": fixed(MSG) + w(0) + write_list([[(1, 4, 0)]]),
}

replies = {
    "msg-nochunks": hdr(MSG) + w(0x11223344, 1, 0, 0, 0, 0),
    "msg-write": hdr(MSG, writes=[[(1, 100, 0x1000), (2, 0, 0x2000)]]) + w(0, 0),
    "msg-write-empty": hdr(MSG, writes=[[]]),
    "nomsg-reply": hdr(NOMSG, reply=[(0xC1, 1024, 0x7000), (0xC2, 12, 0x9000)]),
    "nomsg-write-reply": hdr(NOMSG, writes=[[(1, 4096, 0)]], reply=[(2, 200, 0)]),
    "nomsg-reply-empty": hdr(NOMSG, reply=[]),  # rejected: no reply in it
    "nomsg-reply-0bytes": hdr(NOMSG, reply=[(0xC1, 0, 0x7000)]),  # rejected too
    "err-vers": fixed(ERROR) + w(1, 1, 1),
    "err-chunk": fixed(ERROR) + w(2),
    "err-bad": fixed(ERROR) + w(3),
    "done": fixed(DONE),
    "bad-version": hdr(MSG, vers=0),
    "read-list": hdr(MSG, reads=[(0, 1, 1, 1)]),
}

cm = {
    "v1": bytes([0xF6, 0xAB, 0x0E, 0x18, 1, 1, 7, 7]),
    "v1-noinv": bytes([0xF6, 0xAB, 0x0E, 0x18, 1, 0, 0, 255]),
    "v1-padded": bytes([0xF6, 0xAB, 0x0E, 0x18, 1, 0xFF, 3, 0]) + bytes(48),
    "v2": bytes([0xF6, 0xAB, 0x0E, 0x18, 2, 1, 7, 7]),
    "bad-magic": bytes([0xF6, 0xAB, 0x0E, 0x19, 1, 1, 7, 7]),
    "short": bytes([0xF6, 0xAB, 0x0E, 0x18, 1, 1, 7]),
    "empty": b"",
}


def emit(name, seeds):
    d = os.path.join(HERE, "corpus", name)
    os.makedirs(d, exist_ok=True)
    for k, v in seeds.items():
        with open(os.path.join(d, k + ".bin"), "wb") as f:
            f.write(v)




def opq(b):
    return w(len(b)) + b + b"\0" * (-len(b) % 4)


# RPCSEC_GSS (lib/gss/gss_xdr.c): the first byte picks the decoder
# (0 credential, 1 INIT result, 2 INIT argument / integrity / privacy).
gss = {
    "cred-data": b"\0" + w(1, 0, 7, 1) + opq(b"0123456789abcdef"),
    "cred-init": b"\0" + w(1, 1, 0, 2) + opq(b""),
    "cred-v2": b"\0" + w(2, 0, 7, 1) + opq(b"h"),
    "cred-huge-handle": b"\0" + w(1, 0, 7, 3, 0xFFFFFFFD) + b"abcd",
    "init-res": b"\1" + opq(b"handle") + w(0, 0, 128) + opq(b"ap-rep token"),
    "init-res-cut": b"\1" + opq(b"handle") + w(0, 0),
    "init-arg": b"\2" + opq(b"ap-req token"),
    "integ": b"\2" + opq(w(5) + b"args") + opq(b"checksum"),
    "integ-huge": b"\2" + w(0xFFFFFFFF, 5) + opq(b"x"),
    "priv": b"\2" + opq(b"wrapped bytes"),
    "empty": b"",
}
emit("gss_xdr", gss)
emit("check_call", calls)
emit("check_reply", replies)
emit("cm_private", cm)

# Dictionaries for the header targets: the words that matter.
WORDS = [("zero", 0), ("one", 1), ("msgp", 2), ("done", 3), ("error", 4),
         ("huge", 0xFFFFFFFF), ("sixteen", 16)]
for dname in ("check_call.dict", "check_reply.dict"):
    with open(os.path.join(HERE, "corpus", dname), "w") as f:
        for name, v in WORDS:
            f.write('%s="%s"\n' % (name, "".join("\\x%02x" % b for b in struct.pack(">I", v))))
