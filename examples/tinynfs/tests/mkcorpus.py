#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Writes the seed corpora of fuzz/nfs_compound.c and fuzz/nfs_session.c (see
their headers for the input formats): COMPOUNDs a Linux client sends, on the
known session.  Usage: mkcorpus.py [COMPOUND_DIR [SESSION_DIR]], by default
fuzz/corpus/nfs_compound and fuzz/corpus/nfs_session (run from the top)."""
import os
import struct
import sys

# clientid and session id of the fuzz server (boot verifier 1..8)
CLIENTID = 0x0404040c00000001
SID = bytes([1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 1, 0, 0, 0, 1])
u32 = lambda v: struct.pack(">I", v)
u64 = lambda v: struct.pack(">Q", v)


def opaque(b):
    if isinstance(b, str):
        b = b.encode()
    return u32(len(b)) + b + b"\0" * ((4 - len(b) % 4) % 4)


def bitmap(*words):
    return u32(len(words)) + b"".join(u32(w) for w in words)


def compound(ops, minor=1, tag=b""):
    return opaque(tag) + u32(minor) + u32(len(ops)) + b"".join(ops)


class Seq:
    """SEQUENCE on a slot; every input starts on a fresh server, so each
    case counts from 1 per slot."""

    def __init__(self):
        self.n = {}

    def __call__(self, slot=0, cache=False, again=False):
        if not again:
            self.n[slot] = self.n.get(slot, 0) + 1
        return u32(53) + SID + u32(self.n[slot]) + u32(slot) + u32(slot) + u32(int(cache))


ZERO_SID = u32(0) + b"\0" * 12
CUR_SID = u32(1) + b"\0" * 12
ALL = bitmap(0xffffffff, 0xffffffff & ~((1 << 16) | (1 << 22)), 0xffffffff)
PUTROOT = u32(24)
GETFH = u32(10)


def lookup(n):
    return u32(15) + opaque(n)


def getattr_(*w):
    return u32(9) + bitmap(*w)


def open_(name, access=3, create=True):
    o = u32(18) + u32(0) + u32(access) + u32(0) + u64(0) + opaque("owner")
    if create:
        o += u32(1) + u32(0) + bitmap(0, 1 << 1) + opaque(u32(0o644))
    else:
        o += u32(0)
    return o + u32(0) + opaque(name)


def write(data, stable=2):
    return u32(38) + CUR_SID + u64(0) + u32(stable) + opaque(data)


def read(count=100):
    return u32(25) + CUR_SID + u64(0) + u32(count)


def frame(*compounds, cap=3):
    out = bytes([cap])
    for c in compounds:
        out += struct.pack(">H", len(c)) + c
    return out


cases = {
    "mount": lambda seq: frame(
        compound([seq(), u32(58) + u32(0)]),
        compound([seq(), PUTROOT, u32(52) + u32(0)]),
        compound([seq(), PUTROOT, GETFH, getattr_(0x0010011a, 0x00b0a23a)]),
        compound([seq(), PUTROOT, u32(9) + ALL]),
    ),
    "create_write_read": lambda seq: frame(
        compound([seq(), PUTROOT, open_("new"), GETFH, write(b"hello world"),
                  read(), u32(5) + u64(0) + u32(0), u32(4) + u32(0) + CUR_SID]),
        compound([seq(), PUTROOT, u32(28) + opaque("new")]),
    ),
    "readdir": lambda seq: frame(compound([seq(), PUTROOT, u32(26) + u64(0) + u64(0) + u32(512) +
                               u32(2048) + bitmap(0x0018091a, 0x00b0a23a)]), cap=1),
    "lookup_dotdot": lambda seq: frame(compound([seq(), PUTROOT, lookup("d"), u32(16), u32(16),
                                     lookup(".."), lookup("l"), lookup("x")])),
    "rename_link": lambda seq: frame(
        compound([seq(), PUTROOT, u32(32), lookup("d"), u32(29) + opaque("g") + opaque("h")]),
        compound([seq(), PUTROOT, lookup("f"), u32(32), PUTROOT, u32(11) + opaque("f2"),
                  u32(31), getattr_(0, 1 << 3)]),
    ),
    "setattr": lambda seq: frame(compound([seq(), PUTROOT, lookup("f"), u32(34) + ZERO_SID +
                               bitmap(1 << 4, (1 << 1) | (1 << 22)) +
                               opaque(u64(3) + u32(0o600) + u32(0))])),
    "locks": lambda seq: frame(compound([seq(), PUTROOT, open_("f", 3, False),
                             u32(12) + u32(2) + u32(0) + u64(0) + u64(10) + u32(1) + u32(0) +
                             CUR_SID + u32(0) + u64(CLIENTID) + opaque("lo"),
                             u32(13) + u32(2) + u64(5) + u64(1) + u64(CLIENTID) + opaque("other"),
                             u32(14) + u32(2) + u32(0) + CUR_SID + u64(0) + u64(0xffffffffffffffff),
                             u32(45) + CUR_SID,
                             u32(55) + u32(2) + CUR_SID + ZERO_SID])),
    "create_objs": lambda seq: frame(compound([seq(), PUTROOT, u32(6) + u32(2) + opaque("dir") + bitmap(0) + u32(0),
                                   u32(6) + u32(5) + opaque("tgt") + opaque("sl") + bitmap(0) + u32(0),
                                   u32(27)])),
    "v42_seek": lambda seq: frame(compound([seq(), PUTROOT, lookup("f"), u32(69) + ZERO_SID + u64(0) + u32(1),
                                getattr_(0, 0, 1 << 16)], minor=2)),
    # ALLOCATE, DEALLOCATE, READ_PLUS, SAVEFH + COPY and CLONE into a new
    # file, COPY_NOTIFY, OFFLOAD_STATUS
    "v42_space": lambda seq: frame(
        compound([seq(), PUTROOT, open_("new"), u32(59) + CUR_SID + u64(0) + u64(8192),
                  write(b"0123456789abcdef"), u32(62) + CUR_SID + u64(4096) + u64(4096),
                  u32(68) + CUR_SID + u64(0) + u32(8192)], minor=2),
        compound([seq(), PUTROOT, lookup("new"), u32(32), PUTROOT, open_("dst"),
                  u32(60) + ZERO_SID + CUR_SID + u64(0) + u64(0) + u64(0) + u32(1) + u32(1) + u32(0)],
                 minor=2),
        compound([seq(), PUTROOT, lookup("new"), u32(32), PUTROOT, lookup("dst"),
                  u32(71) + ZERO_SID + ZERO_SID + u64(0) + u64(0) + u64(4096)], minor=2),
        compound([seq(), PUTROOT, lookup("new"),
                  u32(61) + ZERO_SID + u32(3) + opaque("tcp") + opaque("127.0.0.1.8.1")], minor=2),
        compound([seq(), PUTROOT, lookup("new"), u32(67) + ZERO_SID], minor=2)),
    # NVERIFY type != directory, VERIFY type == regular
    "verify": lambda seq: frame(compound([
        seq(), PUTROOT, lookup("f"), u32(17) + bitmap(0x2) + opaque(u32(2)),
        u32(37) + bitmap(0x2) + opaque(u32(1)), GETFH])),
    # RFC 9754: OPEN wanting delegated timestamps, GETATTR open_arguments,
    # SETATTR of time_deleg_access and time_deleg_modify, VERIFY of one
    # (write-only: NFS4ERR_INVAL), DELEGRETURN
    "v42_deleg_attrs": lambda seq: frame(
        compound([seq(), PUTROOT, open_("new", 3 | 0x100000), GETFH, getattr_(0, 0, 1 << 22),
                  u32(34) + CUR_SID + bitmap(0, 0, 3 << 20) +
                  opaque(u64(1) + u32(0) + u64(2) + u32(999999999)),
                  u32(8) + CUR_SID], minor=2),
        compound([seq(), PUTROOT, lookup("new"), u32(37) + bitmap(0, 0, 1 << 21) +
                  opaque(u64(1) + u32(0))], minor=2)),
    "errors": lambda seq: frame(compound([seq(), u32(999)]), compound([seq(), PUTROOT, u32(7) + u64(0)]),
                    compound([PUTROOT]), compound([], minor=0), b"\0\0\0\x09", cap=0),
    "replay": lambda seq: frame(compound([seq(slot=3, cache=True), PUTROOT, GETFH]),
                    compound([seq(slot=3, cache=True, again=True), PUTROOT, GETFH])),
    # two exports under the pseudo root (bit 2 of the first byte)
    "pseudo": lambda seq: frame(
        compound([seq(), PUTROOT, GETFH, getattr_(0x0018091a, 0x00b0a23a), u32(3) + u32(0x3f),
                  u32(26) + u64(0) + b"\0" * 8 + u32(1024) + u32(4096) + bitmap(0x0018091a, 0x00b0a23a)]),
        compound([seq(), PUTROOT, lookup("dev"), u32(32), u32(26) + u64(0) + b"\0" * 8 + u32(0) +
                  u32(512) + bitmap(0x2), u32(16), GETFH, u32(31)]),
        compound([seq(), PUTROOT, u32(52) + u32(1)]),
        compound([seq(), PUTROOT, lookup("dev"), u32(6) + u32(2) + opaque("dir") + bitmap(0) + u32(0)]),
        compound([seq(), PUTROOT, u32(27)]), cap=3 | 4),
    "sessions": lambda seq: frame(compound([u32(44) + SID]), compound([u32(57) + u64(CLIENTID)]),
                      compound([u32(41) + SID + u32(3) + u32(0)])),
}


# --- fuzz/nfs_session.c: records of (ctl, nops, len, operations); the
# driver adds the SEQUENCE and fills in stateids written as STID(k).
def STID(k):
    return u32(0) + b"STID" + bytes([k]) + b"\0" * 7


def rec(*ops, ctl=0):
    body = b"".join(ops)
    return bytes([ctl, len(ops)]) + struct.pack(">H", len(body)) + body


def session(*records, flags=3):
    return bytes([flags]) + b"".join(records)


def close(k):
    return u32(4) + u32(0) + STID(k)


OWNER = u64(CLIENTID) + opaque("lo")
session_cases = {
    "open_write_close": session(
        rec(PUTROOT, open_("new"), GETFH),
        rec(PUTROOT, lookup("new"), u32(38) + STID(0) + u64(0) + u32(0) + opaque(b"hello"),
            u32(25) + STID(0) + u64(0) + u32(100)),
        rec(PUTROOT, lookup("new"), u32(34) + STID(0) + bitmap(1 << 4) + opaque(u64(3)),
            u32(5) + u64(0) + u32(0)),
        rec(PUTROOT, lookup("new"), close(0)),
        rec(PUTROOT, u32(28) + opaque("new"))),
    "locks": session(
        rec(PUTROOT, open_("f", 3, False)),
        rec(PUTROOT, lookup("f"), u32(12) + u32(2) + u32(0) + u64(0) + u64(10) + u32(1) +
            u32(0) + STID(0) + u32(0) + OWNER),
        rec(PUTROOT, lookup("f"), u32(13) + u32(2) + u64(5) + u64(1) + u64(CLIENTID) + opaque("o2"),
            u32(55) + u32(2) + STID(0) + STID(1)),
        rec(PUTROOT, lookup("f"), u32(14) + u32(2) + u32(0) + STID(1) + u64(0) + u64(10)),
        rec(u32(45) + STID(1)),
        rec(PUTROOT, lookup("f"), u32(21) + STID(0) + u32(0) + u32(1) + u32(0), close(0))),
    "slots": session(
        rec(PUTROOT, GETFH, ctl=0),
        rec(PUTROOT, GETFH, ctl=1 | 4),
        rec(PUTROOT, GETFH, ctl=1 | 4 | 8),
        rec(PUTROOT, ctl=2 | 0x40),
        rec(PUTROOT, ctl=3 | 0x20),
        rec(PUTROOT, GETFH, ctl=8)),
    "sessions": session(
        rec(u32(44) + SID, ctl=0x10),
        rec(PUTROOT),
        rec(u32(43) + u64(CLIENTID) + u32(2) + u32(0) +
            u32(0) + u32(0x100000) + u32(0x100000) + u32(0x2000) + u32(8) + u32(4) + u32(0) +
            u32(0) + u32(0x1000) + u32(0x1000) + u32(0) + u32(2) + u32(1) + u32(0) +
            u32(0x40000000) + u32(0), ctl=0x10),
        rec(u32(58) + u32(0)),
        rec(u32(57) + u64(CLIENTID), ctl=0x10)),
    "tree": session(
        rec(PUTROOT, u32(6) + u32(2) + opaque("dir") + bitmap(0) + u32(0)),
        rec(PUTROOT, lookup("d"), u32(32), PUTROOT, lookup("dir"), u32(29) + opaque("g") + opaque("g")),
        rec(PUTROOT, u32(32), u32(29) + opaque("d") + opaque("dir2")),
        rec(PUTROOT, lookup("dir"), u32(16), u32(26) + u64(0) + u64(0) + u32(512) + u32(2048) +
            bitmap(0x0018091a, 0x00b0a23a)),
        rec(PUTROOT, u32(28) + opaque("dir"))),
    "v42": session(
        rec(PUTROOT, open_("new")),
        rec(PUTROOT, lookup("new"), u32(69) + STID(0) + u64(0) + u32(1),
            u32(62) + STID(0) + u64(0) + u64(100), u32(59) + STID(0) + u64(0) + u64(4096), ctl=0x20),
        rec(PUTROOT, lookup("new"), close(0), ctl=0x20)),
    "pseudo": session(
        rec(PUTROOT, GETFH, lookup("dev"), u32(26) + u64(0) + u64(0) + u32(512) + u32(2048) +
            bitmap(0x0018091a, 0x00b0a23a)),
        rec(PUTROOT, u32(52) + u32(1)), flags=3 | 4),
    "raw": session(rec(compound([PUTROOT, GETFH]), ctl=0x80),
                   rec(compound([u32(53) + SID + u32(1) + u32(0) + u32(0) + u32(0), PUTROOT]),
                       ctl=0x80)),
}

outdir = sys.argv[1] if len(sys.argv) > 1 else "fuzz/corpus/nfs_compound"
os.makedirs(outdir, exist_ok=True)
for name, make in cases.items():
    data = make(Seq())
    with open(os.path.join(outdir, name), "wb") as f:
        f.write(data)
print(f"{len(cases)} inputs in {outdir}")
sessdir = sys.argv[2] if len(sys.argv) > 2 else "fuzz/corpus/nfs_session"
os.makedirs(sessdir, exist_ok=True)
for name, data in session_cases.items():
    with open(os.path.join(sessdir, name), "wb") as f:
        f.write(data)
print(f"{len(session_cases)} inputs in {sessdir}")
