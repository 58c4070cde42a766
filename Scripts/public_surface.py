#!/usr/bin/env python3
"""Counts the public surface of Fetch and FetchTesting: the declaration lines that begin with `public` or `open`
(after any attributes on the same line), outside comments. Prints the count per module and per file, and fails when
the total is over its budget: the 1.0 API's 350 lines (the first argument) plus the 40 that WebSocket may add on top
(the files of Sources/Fetch/WebSockets and FetchTesting's MockWebSocket.swift, which are counted apart as well and
held to their 40).

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
    websocket = 0
    for module in MODULES:
        files = sorted((ROOT / "Sources" / module).rglob("*.swift"))
        counts = [(public_lines(f), f.relative_to(ROOT)) for f in files]
        subtotal = sum(c for c, _ in counts)
        total += subtotal
        websocket += sum(c for c, name in counts if is_websocket(name))
        print(f"{module}: {subtotal} public declaration lines")
        for count, name in sorted(counts, key=lambda item: (-item[0], str(item[1]))):
            if count:
                print(f"  {count:4d}  {name}")
    print(f"public surface: {total} declaration lines (budget {budget} + {WEBSOCKET_BUDGET} for WebSocket)")
    print(f"  of which WebSocket: {websocket} (budget {WEBSOCKET_BUDGET})")
    if websocket > WEBSOCKET_BUDGET:
        print(f"public_surface: WebSocket's {websocket} lines are over its budget of {WEBSOCKET_BUDGET}", file=sys.stderr)
        return 1
    if total > budget + WEBSOCKET_BUDGET:
        print(f"public_surface: {total} lines is over the budget of {budget + WEBSOCKET_BUDGET}", file=sys.stderr)
        return 1
    return 0


WEBSOCKET_BUDGET = 40


def is_websocket(path):
    """Whether `path` (relative to the package) is one of WebSocket's files."""
    return "WebSockets" in path.parts or path.name == "MockWebSocket.swift"


if __name__ == "__main__":
    sys.exit(main())
