#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Compiles every C snippet of the README, the guides and the man pages.

check-snippets.py --rdma 0|1 --lib LIBRPCRDMA.so [--xdrgen DIR] [-I DIR]... -- CC... -- FILE...

Which blocks are snippets:
  Markdown (.md): every fenced block.  Its info string says what it is:
    "c" is compiled, "c rdma" only when the library was built with RDMA,
    "c xdrgen" only with --xdrgen DIR, the directory of the headers
    rpcrdma-xdrgen wrote for examples/hello (hello.h);
    "sh", "text" and the like are not compiled; a block without an info
    string is an error (say what it is).
  scdoc (.scd): every literal block (```) is C and compiled, unless the
    line before it is a comment "; sh" or "; text" (not compiled) or
    "; rdma" (compiled only with RDMA).
A snippet that includes headers is compiled as it stands, as a user would
copy it; one that includes none gets <rpcrdma/rpcrdma.h> and the usual
libc headers first.  A snippet with a main() is linked against the
library too.  Warnings are errors.
"""
import os
import re
import subprocess
import sys
import tempfile

PRELUDE = """#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <rpcrdma/rpcrdma.h>
"""

FLAGS = ["-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror",
         "-Wno-unused-function"]


def md_blocks(path, text):
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(.*)$", lines[i])
        if not m:
            i += 1
            continue
        info = m.group(2).strip()
        start = i + 1
        j = start
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        if j == len(lines):
            raise SystemExit(f"{path}:{i + 1}: unterminated code block")
        words = info.split()
        if not words:
            raise SystemExit(f"{path}:{i + 1}: code block without an info string "
                             "(```c, ```c rdma, ```sh, ...)")
        if words[0] == "c":
            yield start + 1, "\n".join(lines[start:j]) + "\n", set(words[1:])
        i = j + 1


# A backslash that roff would take as an escape of a letter or quote.
LOST_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\[A-Za-z0-9\"']")


def scd_blocks(path, text):
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```":
            i += 1
            continue
        tag = lines[i - 1].strip() if i > 0 else ""
        start = i + 1
        j = start
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        if j == len(lines):
            raise SystemExit(f"{path}:{i + 1}: unterminated literal block")
        for k in range(start, j):
            # scdoc passes a literal block's backslashes to roff, which takes
            # "\n" as an escape: the page would show "n" (man -l shows it)
            if LOST_ESCAPE.search(lines[k]):
                raise SystemExit(f"{path}:{k + 1}: roff drops this backslash "
                                 f"(write \\\\ for one): {lines[k].strip()}")
        if tag not in ("; sh", "; text"):
            # scdoc literal blocks are indented with tabs to the block's level
            body = [l[1:] if l.startswith("\t") else l for l in lines[start:j]]
            body = [re.sub(r"\\(.)", r"\1", l) for l in body]   # as the page shows it
            yield start + 1, "\n".join(body) + "\n", {"rdma"} if tag == "; rdma" else set()
        i = j + 1


def main(argv):
    rdma = None
    lib = None
    xdrgen = None
    incs = []
    args = argv[1:]
    while args and args[0] != "--":
        a = args.pop(0)
        if a == "--rdma":
            rdma = args.pop(0) == "1"
        elif a == "--xdrgen":
            xdrgen = args.pop(0)
        elif a == "--lib":
            lib = args.pop(0)
        elif a == "-I":
            incs += ["-I", args.pop(0)]
        else:
            raise SystemExit(f"unknown argument {a}")
    args.pop(0)
    cc = []
    while args and args[0] != "--":
        cc.append(args.pop(0))
    files = args[1:]
    if rdma is None or lib is None or not cc or not files:
        raise SystemExit(__doc__)

    failed = compiled = skipped = 0
    with tempfile.TemporaryDirectory(prefix="snippets-") as tmp:
        for path in files:
            text = open(path, encoding="utf-8").read()
            gen = scd_blocks if path.endswith(".scd") else md_blocks
            for line, code, needs in gen(path, text):
                where = f"{os.path.relpath(path)}:{line}"
                if "rdma" in needs and not rdma:
                    skipped += 1
                    print(f"skip {where} (needs RDMA)")
                    continue
                if "xdrgen" in needs and not xdrgen:
                    skipped += 1
                    print(f"skip {where} (needs rpcrdma-xdrgen)")
                    continue
                prelude = "" if re.search(r"^\s*#\s*include", code, re.M) else PRELUDE
                src = os.path.join(tmp, f"s{compiled}.c")
                with open(src, "w", encoding="utf-8") as f:
                    # errors point at the document's lines
                    f.write(f'{prelude}#line {line} "{os.path.relpath(path)}"\n{code}')
                has_main = re.search(r"^int\s+main\s*\(", code, re.M) is not None
                out = os.path.join(tmp, f"s{compiled}" + ("" if has_main else ".o"))
                gen_inc = ["-I", xdrgen] if "xdrgen" in needs else []
                cmd = cc + FLAGS + incs + gen_inc + (["-c"] if not has_main else []) + \
                    [src, "-o", out] + ([lib, "-pthread"] if has_main else [])
                r = subprocess.run(cmd, capture_output=True, text=True)
                compiled += 1
                if r.returncode != 0:
                    failed += 1
                    print(f"FAIL {where}\n{r.stdout}{r.stderr}")
                    for n, l in enumerate(code.split("\n"), 1):
                        print(f"{n:4} {l}")
                else:
                    print(f"ok   {where}" + (" (linked)" if has_main else ""))
    print(f"{compiled} snippets compiled, {failed} failed, {skipped} skipped")
    return 1 if failed or compiled == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
