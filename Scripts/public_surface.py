#!/usr/bin/env python3
"""Counts the public surface of Fetch and FetchTesting: the declaration lines that begin with `public` or `open`
(after any attributes on the same line), outside comments. Prints the count per module and per file, and fails when
the total is over the budget of the 1.0 API (the first argument, 350 by default).

    python3 Scripts/public_surface.py [budget]
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULES = ["Fetch", "FetchTesting"]
DECLARATION = re.compile(r"^\s*(@\w+(\([^)]*\))?\s+)*(public|open)\b(?!\s+import\b)")


def public_lines(path):
    count = 0
    in_block_comment = False
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if in_block_comment:
            in_block_comment = "*/" not in stripped
            continue
        if stripped.startswith("/*"):
            in_block_comment = "*/" not in stripped
            continue
        if stripped.startswith("//"):
            continue
        if DECLARATION.match(line):
            count += 1
    return count


def main():
    budget = int(sys.argv[1]) if len(sys.argv) > 1 else 350
    total = 0
    for module in MODULES:
        files = sorted((ROOT / "Sources" / module).rglob("*.swift"))
        counts = [(public_lines(f), f.relative_to(ROOT)) for f in files]
        subtotal = sum(c for c, _ in counts)
        total += subtotal
        print(f"{module}: {subtotal} public declaration lines")
        for count, name in sorted(counts, key=lambda item: (-item[0], str(item[1]))):
            if count:
                print(f"  {count:4d}  {name}")
    print(f"public surface: {total} declaration lines (budget {budget})")
    if total > budget:
        print(f"public_surface: {total} lines is over the budget of {budget}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
