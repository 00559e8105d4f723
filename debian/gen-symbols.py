#!/usr/bin/env python3
# gen-symbols.py MAP SONAME PACKAGE DEVPACKAGE: a dpkg symbols file (deb-symbols(5))
# from a GNU ld version script: every global name with the node it is in,
# each first shipped in the package's first version (0.1.0), and the node
# names themselves, which the linker exports too.
import re
import sys

FIRST = "0.1.0"


def nodes(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    for m in re.finditer(r"([A-Za-z0-9_.]+)\s*\{(.*?)\}\s*[A-Za-z0-9_.]*\s*;", text, re.S):
        body = m.group(2)
        glob = re.search(r"global:(.*?)(?:local:|$)", body, re.S)
        names = re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*;", glob.group(1) if glob else "")
        yield m.group(1), names


def main(path, soname, package, dev):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    print(f"{soname} {package} #MINVER#")
    print(f"* Build-Depends-Package: {dev}")
    for node, names in nodes(text):
        print(f" {node}@{node} {FIRST}")
        for n in names:
            print(f" {n}@{node} {FIRST}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: gen-symbols.py MAP SONAME PACKAGE DEVPACKAGE")
    main(*sys.argv[1:])
