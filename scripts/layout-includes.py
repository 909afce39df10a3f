#!/usr/bin/env python3
"""Brings code written before the folder layout (README.md, "Source layout")
up to it: for merging branches that started from the flat tree.

    python3 scripts/layout-includes.py FILE...

For each file:
  - a merge conflict whose two sides are only #include lines (and blank
    lines) is resolved to the other branch's side: the layout only
    rewrote include lines, the other branch added or removed some;
  - includes are then rewritten for the layout: "locktrace/x.h" -> "x.h"
    for every header that left include/locktrace/, "../src/x.h" and
    "../../src/x.h" -> "x.h", and the few headers whose declarations moved
    (see HEADER_OF below).
Other conflicts are left as they are; the build then says what is still
wrong (a flat file in src/ or tests/, an include from a higher layer).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTRACTS = {"calls.h", "event.h", "futex.h", "pyframes.h", "taskregs.h", "tracefile.h"}

# headers the layout moved declarations out of, per file: what that file
# includes instead (the other includes of these headers stay)
HEADER_OF = {
    "json_read.c": {"report_int.h": "json_read.h"},
    "snapshot_load.c": {"report_int.h": "json_read.h"},
    "snapfacts.c": {"report_int.h": "snapfacts.h", "rtthread.h": "demangle.h"},
    "locksyms.c": {"report_int.h": "snapfacts.h"},
    "demangle.c": {"rtthread.h": "demangle.h"},
    "record_int.h": {"cli.h": "log.h"},
    "snapshot_util.c": {"lockmodel.h": None},  # dropped: lt_snapshot_free moved up
}

INC = re.compile(r'^(\s*#\s*include\s+")([^"]+)(".*)$')
ANY_INC = re.compile(r'^\s*#\s*include\s+[<"]')


def headers():
    names = set()
    for top in ("src", "tests/lib"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            names.update(f for f in files if f.endswith(".h"))
    return names


def rewrite(line, name, known):
    m = INC.match(line)
    if not m:
        return line
    path = m.group(2)
    base = os.path.basename(path)
    if path.startswith("locktrace/") and base not in CONTRACTS and base in known:
        path = base
    elif re.match(r"^(\.\./)+src/", path) and base in known:
        path = base
    path = HEADER_OF.get(name, {}).get(path, path)
    if path is None:
        return None
    return m.group(1) + path + m.group(3)


def only_includes(lines):
    return all(not l.strip() or ANY_INC.match(l) for l in lines)


def fix(path, known):
    with open(path) as f:
        text = f.read().split("\n")
    out, i, left = [], 0, 0
    name = os.path.basename(path)
    while i < len(text):
        if text[i].startswith("<<<<<<< "):
            j = i + 1
            ours, theirs, base = [], [], None
            while j < len(text) and not text[j].startswith(("=======", "|||||||")):
                ours.append(text[j])
                j += 1
            if j < len(text) and text[j].startswith("|||||||"):
                base = []
                j += 1
                while j < len(text) and not text[j].startswith("======="):
                    base.append(text[j])
                    j += 1
            j += 1
            while j < len(text) and not text[j].startswith(">>>>>>> "):
                theirs.append(text[j])
                j += 1
            if j < len(text) and only_includes(ours) and only_includes(theirs):
                out.extend(theirs)
            else:
                out.extend(text[i:j + 1])
                left += 1
            i = j + 1
            continue
        out.append(text[i])
        i += 1
    out = [l for l in (rewrite(l, name, known) for l in out) if l is not None]
    new = "\n".join(out)
    with open(path) as f:
        if f.read() != new:
            with open(path, "w") as g:
                g.write(new)
    return left


def main():
    known = headers()
    left = 0
    for p in sys.argv[1:]:
        n = fix(p, known)
        if n:
            print(f"{p}: {n} conflict(s) left (not only includes)")
        left += n
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
