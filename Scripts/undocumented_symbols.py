#!/usr/bin/env python3
"""Lists the public symbols of symbol graphs that have no doc comment of their own, and fails if there is one.

Usage: undocumented_symbols.py DIRECTORY

Reads every *.symbols.json under DIRECTORY, as written by `swift package dump-symbol-graph
--skip-synthesized-members --skip-inherited-docs` (so a symbol's docComment is its own, never one it inherits from
a protocol it implements). Standard library only.
"""

import json
import pathlib
import sys


def undocumented(graph):
    """The public or open symbols of one symbol graph whose doc comment is missing or blank."""
    for symbol in graph.get("symbols", []):
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        # No source location: the compiler wrote it (a synthesized Codable init(from:), a RawRepresentable
        # init(rawValue:)), so there is no declaration to document.
        if "location" not in symbol:
            continue
        lines = symbol.get("docComment", {}).get("lines", [])
        if any(line.get("text", "").strip() for line in lines):
            continue
        yield symbol


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    files = sorted(pathlib.Path(sys.argv[1]).rglob("*.symbols.json"))
    if not files:
        print(f"no symbol graphs under {sys.argv[1]}", file=sys.stderr)
        return 1
    missing = []
    checked = 0
    for path in files:
        graph = json.loads(path.read_text(encoding="utf-8"))
        checked += sum(1 for s in graph.get("symbols", []) if s.get("accessLevel") in ("public", "open"))
        for symbol in undocumented(graph):
            location = symbol.get("location", {})
            where = location.get("uri", path.name).removeprefix("file://")
            line = location.get("position", {}).get("line")
            if line is not None:
                where += f":{line + 1}"
            name = ".".join(symbol["pathComponents"])
            missing.append(f"{where}: {symbol['kind']['displayName'].lower()} {name} has no /// comment")
    for entry in missing:
        print(entry, file=sys.stderr)
    if missing:
        print(f"{len(missing)} of {checked} public symbols have no documentation", file=sys.stderr)
        return 1
    print(f"none ({checked} public symbols, each with a doc comment)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
