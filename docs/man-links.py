#!/usr/bin/env python3
# man-links.py PAGE.scd...: for each man page source, the functions its
# SYNOPSIS declares, one "PAGE FUNCTION" line each: every one of them gets
# a link page (FUNCTION.3 -> PAGE.3), so that `man FUNCTION` opens the page
# that documents it.  docs/meson.build makes the links from this list, and
# check-man-symbols.sh checks that every exported function is on it.
import os
import re
import sys

DECL = re.compile(r"\b(rpcrdma_[A-Za-z0-9_]+)\s*\(")


def synopsis(text):
    m = re.search(r"^# SYNOPSIS\s*$(.*?)^# ", text, re.M | re.S)
    return m.group(1) if m else ""


def main(paths):
    for path in paths:
        page = os.path.basename(path).split(".")[0]
        seen = set()
        with open(path, encoding="utf-8") as f:
            syn = synopsis(f.read())
        for name in DECL.findall(syn):
            if name != page and name not in seen and not name.endswith("_fn"):
                seen.add(name)
                print(page, name)


if __name__ == "__main__":
    main(sys.argv[1:])
