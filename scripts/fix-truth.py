#!/usr/bin/env python3
"""Writes the ground truth (`test,fault` CSV, as `paf eval --truth` reads it) of a prepared suite
whose fix/ directory lists the failing tests before a developer fix (failing-original.txt) and
those the fix made pass (fixed-by-upstream.txt), both as JUnit prints them, `test01(pkg.Class)`.
PAF's criterion (section 4.2): a failing test that passes after the fix reveals the fixed fault;
one that still fails reveals none. Usage: scripts/fix-truth.py SUITE_DIR [FAULT] > truth.csv"""
import os
import re
import sys


def ids(path):
    """The test ids of a JUnit list, as `pkg.Class.method`."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.fullmatch(r"\s*([^()\s]+)\(([^()\s]+)\)\s*", line)
            if m:
                out.append(f"{m.group(2)}.{m.group(1)}")
            elif line.strip():
                sys.exit(f"{path}: {line.strip()!r}: expected method(pkg.Class)")
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split("Usage: ")[1])
    fix = os.path.join(sys.argv[1], "fix")
    fault = sys.argv[2] if len(sys.argv) == 3 else "fixed"
    failing = ids(os.path.join(fix, "failing-original.txt"))
    fixed = set(ids(os.path.join(fix, "fixed-by-upstream.txt")))
    missing = fixed - set(failing)
    if missing:
        sys.exit(f"{fix}: fixed tests that did not fail before: {sorted(missing)}")
    print("test,fault")
    for t in failing:
        print(f"{t},{fault if t in fixed else ''}")


if __name__ == "__main__":
    main()
