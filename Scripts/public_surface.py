#!/usr/bin/env python3
"""Counts the public surface of Fetch and FetchTesting: the declaration lines that begin with `public` or `open`
(after any attributes on the same line), outside comments, and the public declarations that carry no `public` of
their own: each case of a public enum (`case a, b` is two) and each requirement of a public protocol (`func`, `var`,
`init`, `subscript`, `associatedtype`). Prints the count per module and per file, the cases and requirements apart,
and fails when the total of all three is over its budget: the API's 530 (the first argument) plus the 52 that
WebSocket may add on top (the files of Sources/Fetch/WebSockets and FetchTesting's MockWebSocket.swift, which are
counted apart as well and held to their 52).

The budget was 350 lines when only `public` lines were counted and `FetchError` and `FetchEvent` were enums whose
cases went uncounted. Counting every case and requirement, and making those two structs that can grow (each former
case is now a code or name and a function that makes one), the 1.0 API measured 499 (459 + 40): the budget is that
with room for the observability issue's metrics, no more. Past 1.0 the API-breakage check (`Scripts/api_breakage`)
guards what exists; this budget guards what is added.

Issues 32 and 34 (observability, long-lived WebSockets) added 76: per-attempt metrics (`AttemptMetrics`, its
`Redirect`), 17 event names and 8 event fields, W3C trace context (`TraceContext`, `.traceContext(_:)`), and
`WebSocket.Configuration` with keepalive, deadlines, a reconnect hook and `WebSocket.Compression`. The budget is
that measured (530 + 52 for WebSocket), no more.

    python3 Scripts/public_surface.py [budget]
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULES = ["Fetch", "FetchTesting"]
DECLARATION = re.compile(r"^\s*(@\w+(\([^)]*\))?\s+)*(public|open)\b(?!\s+import\b)")


PUBLIC_ENUM = re.compile(r"\b(public|open)\s+(indirect\s+)?enum\s+\w+")
PUBLIC_PROTOCOL = re.compile(r"\b(public|open)\s+protocol\s+\w+")
ATTRIBUTES = r"^\s*(@\w+(\([^)]*\))?\s+)*"
ENUM_CASE = re.compile(ATTRIBUTES + r"(indirect\s+)?case\b")
REQUIREMENT = re.compile(
    ATTRIBUTES + r"((static|class|mutating|nonmutating|nonisolated)\s+)*(func|var|let|init|subscript|associatedtype)\b"
)


def public_lines(path):
    """The number of lines of `path` that begin a declaration with `public` or `open`."""
    return sum(1 for line in code_lines(path) if DECLARATION.match(line))


def unmarked_members(path):
    """The cases of the public enums of `path` and the requirements of its public protocols, which are public without
    saying so: `(cases, requirements)`."""
    cases = 0
    requirements = 0
    # The kind of each open brace: "enum" or "protocol" for the body of a public one, None for any other.
    scopes = []
    # The code since the last brace or semicolon: the declaration a `{` opens.
    statement = ""
    for line in code_lines(path):
        scope = scopes[-1] if scopes else None
        if scope == "enum" and ENUM_CASE.match(line):
            cases += case_count(line)
        elif scope == "protocol" and REQUIREMENT.match(line):
            requirements += 1
        for character in line:
            if character == "{":
                if PUBLIC_ENUM.search(statement):
                    scopes.append("enum")
                elif PUBLIC_PROTOCOL.search(statement):
                    scopes.append("protocol")
                else:
                    scopes.append(None)
                statement = ""
            elif character == "}":
                if scopes:
                    scopes.pop()
                statement = ""
            elif character == ";":
                statement = ""
            else:
                statement += character
        statement += " "
    return cases, requirements


def case_count(line):
    """The number of cases `line` declares: its commas outside parentheses, plus one."""
    depth = 0
    count = 1
    for character in line.split("=", 1)[0]:
        if character in "([":
            depth += 1
        elif character in ")]":
            depth -= 1
        elif character == "," and depth == 0:
            count += 1
    return count


def code_lines(path):
    """The lines of `path` with comments and the contents of string literals blanked out, so that neither a brace
    nor a keyword inside them counts."""
    text = path.read_text(encoding="utf-8")
    out = []
    index = 0
    length = len(text)
    while index < length:
        if text.startswith("//", index):
            end = text.find("\n", index)
            index = length if end < 0 else end
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            end = length if end < 0 else end + 2
            out.append("\n" * text.count("\n", index, end))
            index = end
        elif re.match(r'#*"', text[index : index + 8]):
            index = skip_string(text, index, out)
        else:
            out.append(text[index])
            index += 1
    return "".join(out).splitlines()


def skip_string(text, index, out):
    """Skips the string literal that starts at `index` (`"…"`, `\"\"\"…\"\"\"`, `#"…"#`), appending `""` and the
    newlines it spans to `out`; returns the index after it."""
    hashes = 0
    while text[index + hashes] == "#":
        hashes += 1
    start = index + hashes
    delimiter = '"""' if text.startswith('"""', start) else '"'
    closing = delimiter + "#" * hashes
    position = start + len(delimiter)
    while position < len(text):
        if text[position] == "\\" and hashes == 0:
            position += 2
            continue
        if text.startswith(closing, position):
            position += len(closing)
            break
        if delimiter == '"' and text[position] == "\n":
            break
        position += 1
    out.append('""' + "\n" * text.count("\n", index, position))
    return position


def main():
    budget = int(sys.argv[1]) if len(sys.argv) > 1 else 530
    lines = cases = requirements = websocket = 0
    for module in MODULES:
        counts = []
        for path in sorted((ROOT / "Sources" / module).rglob("*.swift")):
            declared = public_lines(path)
            enum_cases, protocol_requirements = unmarked_members(path)
            counts.append((declared, enum_cases, protocol_requirements, path.relative_to(ROOT)))
        module_lines = sum(count[0] for count in counts)
        module_cases = sum(count[1] for count in counts)
        module_requirements = sum(count[2] for count in counts)
        lines += module_lines
        cases += module_cases
        requirements += module_requirements
        websocket += sum(sum(count[:3]) for count in counts if is_websocket(count[3]))
        print(
            f"{module}: {module_lines + module_cases + module_requirements} ({module_lines} public declaration lines, "
            f"{module_cases} enum cases, {module_requirements} protocol requirements)"
        )
        for declared, enum_cases, protocol_requirements, name in sorted(
            counts, key=lambda item: (-sum(item[:3]), str(item[3]))
        ):
            if declared or enum_cases or protocol_requirements:
                unmarked = ""
                if enum_cases:
                    unmarked += f" + {enum_cases} cases"
                if protocol_requirements:
                    unmarked += f" + {protocol_requirements} requirements"
                detail = f"  ({declared} lines{unmarked})" if unmarked else ""
                print(f"  {declared + enum_cases + protocol_requirements:4d}  {name}{detail}")
    total = lines + cases + requirements
    print(f"public surface: {total} (budget {budget} + {WEBSOCKET_BUDGET} for WebSocket)")
    print(f"  public declaration lines: {lines}")
    print(f"  cases of public enums: {cases}")
    print(f"  requirements of public protocols: {requirements}")
    print(f"  of which WebSocket: {websocket} (budget {WEBSOCKET_BUDGET})")
    if websocket > WEBSOCKET_BUDGET:
        print(f"public_surface: WebSocket's {websocket} are over its budget of {WEBSOCKET_BUDGET}", file=sys.stderr)
        return 1
    if total > budget + WEBSOCKET_BUDGET:
        print(f"public_surface: {total} is over the budget of {budget + WEBSOCKET_BUDGET}", file=sys.stderr)
        return 1
    return 0


WEBSOCKET_BUDGET = 52


def is_websocket(path):
    """Whether `path` (relative to the package) is one of WebSocket's files."""
    return "WebSockets" in path.parts or path.name == "MockWebSocket.swift"


if __name__ == "__main__":
    sys.exit(main())
