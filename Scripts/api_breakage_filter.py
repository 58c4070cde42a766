#!/usr/bin/env python3
"""Keeps, of the digester's breakage lines, those of PUBLIC (or open) API: `Scripts/api_breakage` pipes the log of
`swift package diagnose-api-breaking-changes` through it. Swift 6.3's digester also reports changes to `package`
declarations as breaking (swiftlang/swift-package-manager#10010), which are no promise of Fetch's.

For each line with "API breakage:" or 💔 it reads the declaration kind and qualified name (`func Pipeline.start(_:…)`,
`constructor ChunkBuffer.init(…)`, `var A.b`, `struct A.B`, `enumelement E.c`, …) and looks the symbol up in the
BASELINE's sources (`git show <baseline>:<path>` of Sources/Fetch and Sources/FetchTesting, the module the log's
"detected in <Module>:" header names). The symbol is package-only, and the line is ignored (and printed as such), when
its enclosing type is declared in those sources and is not public, or when every declaration of that name in that type
(or its extensions; with the same argument labels when one has them) is `package`, `internal`, `private`, `fileprivate`,
or has no modifier outside a `public extension`, a public protocol (a requirement) or a public enum (a case). A line it
cannot parse, or a symbol it cannot find (a member declared on the line of its type's `{` is not read), counts as
PUBLIC (fail closed), with the reason. Prints each line ignored as package-only and each kept as public, with the
reason; exits 1 when any is kept, else 0.

    python3 Scripts/api_breakage_filter.py <baseline-commit> < digester.log
    python3 Scripts/api_breakage_filter.py --self-test
"""
import re
import subprocess
import sys

MODULES = ["Fetch", "FetchTesting"]
ACCESS = ("open", "public", "package", "internal", "fileprivate", "private")
PUBLIC = ("open", "public")
TYPE_KEYWORDS = ("struct", "class", "enum", "protocol", "actor", "extension")
# The digester's declaration kinds (DeclKind, lowercased) and the Swift keywords that declare them.
KINDS = {
    "func": ("func",),
    "var": ("var", "let"),
    "let": ("var", "let"),
    "constructor": ("init",),
    "init": ("init",),
    "subscript": ("subscript",),
    "enumelement": ("case",),
    "case": ("case",),
    "struct": ("struct",),
    "class": ("class", "actor"),
    "actor": ("actor", "class"),
    "enum": ("enum",),
    "protocol": ("protocol",),
    "typealias": ("typealias",),
    "associatedtype": ("associatedtype",),
    "accessor": ("var", "let", "subscript"),
}
MODIFIER = (
    r"(?:(?:open|public|package|internal|fileprivate|private)(?:\(set\))?|final|static|class|override|mutating|"
    r"nonmutating|convenience|required|indirect|nonisolated|lazy|weak|unowned|dynamic|optional|distributed|"
    r"consuming|borrowing|__consuming)"
)
DECLARATION = re.compile(
    r"^\s*(?:@[\w.]+(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?\s*)*"
    r"(?P<modifiers>(?:" + MODIFIER + r"\s+)*)"
    r"(?P<keyword>struct|class|enum|protocol|actor|extension|typealias|associatedtype|func|init|var|let|subscript|"
    r"case)\b(?P<rest>.*)$"
)


def clean(text):
    """`text` with comments and the contents of string literals (and their interpolations) blanked out, lines kept."""
    out = []
    index = 0
    length = len(text)
    while index < length:
        if text.startswith("//", index):
            end = text.find("\n", index)
            index = length if end < 0 else end
        elif text.startswith("/*", index):
            depth, position = 1, index + 2
            while position < length and depth:
                if text.startswith("/*", position):
                    depth, position = depth + 1, position + 2
                elif text.startswith("*/", position):
                    depth, position = depth - 1, position + 2
                else:
                    position += 1
            out.append("\n" * text.count("\n", index, position))
            index = position
        elif re.match(r'#*"', text[index : index + 8]):
            end = skip_string(text, index)
            out.append('""' + "\n" * text.count("\n", index, end))
            index = end
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


def skip_string(text, index):
    """The index after the string literal that starts at `index`, interpolations (and strings in them) included."""
    hashes = 0
    while text[index + hashes] == "#":
        hashes += 1
    start = index + hashes
    delimiter = '"""' if text.startswith('"""', start) else '"'
    closing = delimiter + "#" * hashes
    escape = "\\" + "#" * hashes
    position = start + len(delimiter)
    while position < len(text):
        if text.startswith(escape + "(", position):
            position += len(escape) + 1
            depth = 1
            while position < len(text) and depth:
                if re.match(r'#*"', text[position : position + 8]):
                    position = skip_string(text, position)
                    continue
                depth += {"(": 1, ")": -1}.get(text[position], 0)
                position += 1
            continue
        if text.startswith(escape, position):
            position += len(escape) + 1
            continue
        if text.startswith(closing, position):
            return position + len(closing)
        if delimiter == '"' and text[position] == "\n":
            return position
        position += 1
    return position


def split_top(text, separator=","):
    """`text` split at `separator` outside (), [], <> and {} (an `->` is no bracket)."""
    parts, depth, current, index = [], 0, [], 0
    while index < len(text):
        character = text[index]
        if text.startswith("->", index):
            current.append("->")
            index += 2
            continue
        if character in "([<{":
            depth += 1
        elif character in ")]>}":
            depth -= 1
        if character == separator and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(character)
        index += 1
    parts.append("".join(current))
    return parts


def parameter_labels(text, keyword):
    """The argument labels of the parameter list `text` (between its parentheses)."""
    labels = []
    for parameter in split_top(text):
        if not parameter.strip():
            continue
        names = re.findall(r"[A-Za-z_]\w*|`[^`]+`", parameter.split(":", 1)[0])
        if not names:
            return None
        label = names[0].strip("`") if len(names) > 1 or keyword != "subscript" else "_"
        labels.append(label)
    return labels


def matching_paren(text, start):
    """The index of the `)` that closes the `(` at `start`, or -1."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return -1


class Scope:
    def __init__(self, keyword, path, access, default, public_type):
        self.keyword = keyword  # struct, class, enum, protocol, actor, extension, file; None for a body
        self.path = path  # the type's qualified name, a tuple
        self.access = access  # the explicit modifier, if any
        self.default = default  # the access a member without a modifier has
        self.public_type = public_type  # whether the type (and every enclosing one) is public


def declarations(text):
    """The declarations of the Swift source `text`: dictionaries of path (the enclosing type's), keyword, name,
    labels (None when it has none or they could not be read), access (explicit or implied) and public (effective);
    plus the types: keyword "type" entries whose path is the type's own."""
    code = clean(text)
    lines = code.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    found = []
    stack = [Scope("file", (), None, "internal", True)]
    pending = None
    for number, line in enumerate(lines):
        scope = stack[-1]
        match = DECLARATION.match(line)
        if match and scope.keyword is not None:
            modifiers = re.findall(r"\b(open|public|package|internal|fileprivate|private)\b(?!\s*\(set\))",
                                   match.group("modifiers"))
            explicit = modifiers[0] if modifiers else None
            keyword, rest = match.group("keyword"), match.group("rest")
            if keyword in TYPE_KEYWORDS:
                name = re.match(r"\s+([\w.`]+)", rest)
                if name:
                    name = name.group(1).replace("`", "")
                    if keyword == "extension":
                        path = tuple(name.split("."))
                        owner = lookup_type(found, path)
                        public_type = owner is None or owner["public"]
                        default = explicit or "internal"
                        pending = Scope(keyword, path, explicit, default, public_type)
                    else:
                        path = scope.path + (name,) if scope.keyword != "file" else (name,)
                        access = explicit or ("internal" if scope.keyword != "extension" else scope.default)
                        public_type = access in PUBLIC and scope.public_type
                        found.append(dict(path=path, keyword="type", kind=keyword, name=name, labels=None,
                                          access=access, public=public_type))
                        default = access if keyword == "protocol" else "internal"
                        pending = Scope(keyword, path, access, default, public_type)
            elif scope.keyword != "file" or keyword == "typealias":
                names = member_names(keyword, rest)
                if keyword == "case":
                    access = scope.access if scope.keyword == "enum" else None
                    if scope.keyword != "enum":
                        names = []
                elif scope.keyword == "protocol":
                    access = scope.access
                else:
                    access = explicit or scope.default
                labels = None
                if keyword in ("func", "init", "subscript"):
                    start = offsets[number] + match.start("rest")
                    paren = code.find("(", start)
                    close = matching_paren(code, paren) if paren >= 0 else -1
                    if close > 0:
                        labels = parameter_labels(code[paren + 1 : close], keyword)
                for name in names:
                    found.append(dict(path=scope.path, keyword=keyword, name=name, labels=labels, access=access,
                                      public=access in PUBLIC and scope.public_type))
        for character in line:
            if character == "{":
                if pending is not None:
                    stack.append(pending)
                    pending = None
                else:
                    stack.append(Scope(None, stack[-1].path, None, "internal", False))
            elif character == "}" and len(stack) > 1:
                stack.pop()
    return found


def member_names(keyword, rest):
    if keyword == "init":
        return ["init"]
    if keyword == "subscript":
        return ["subscript"]
    if keyword == "case":
        head = split_top(rest.split("=", 1)[0])
        return [m.group(1) for m in (re.match(r"\s*`?(\w+)", part) for part in head) if m]
    if keyword in ("var", "let"):
        head = rest.split("=", 1)[0]
        return [m.group(1) for m in (re.match(r"\s*`?(\w+)", part) for part in split_top(head)) if m][:1]
    name = re.match(r"\s+(`[^`]+`|[^\s(<:]+)", rest)
    return [name.group(1).strip("`")] if name else []


def lookup_type(found, path):
    """The declaration of the type at `path` (also when `path` is only its last components), or None."""
    for entry in found:
        if entry["keyword"] == "type" and entry["path"] == path:
            return entry
    for entry in found:
        if entry["keyword"] == "type" and entry["path"][-len(path) :] == path:
            return entry
    return None


BREAKAGE = re.compile(r"(?:💔\s*)?API breakage:\s*(?P<message>.*)$")
SYMBOL = re.compile(r"^(?P<kind>[A-Za-z]+)\s+(?P<name>[^\s(]+(?:\([^)\s]*\))?)(?:\s|$)")


def parse(message):
    """The kind, type path, member name and labels of a breakage message; raises ValueError when it cannot."""
    match = SYMBOL.match(message)
    if not match:
        raise ValueError("no '<kind> <name>' at its start")
    kind = match.group("kind").lower()
    if kind not in KINDS:
        raise ValueError(f"unknown declaration kind '{kind}'")
    name = match.group("name")
    labels = None
    paren = name.find("(")
    if paren >= 0:
        labels = [label for label in name[paren + 1 : -1].split(":")[:-1]]
        name = name[:paren]
    name = re.sub(r"<[^<>]*>", "", name)
    parts = name.split(".")
    if len(parts) > 1 and parts[0] in MODULES:
        parts = parts[1:]
    if kind == "accessor" and len(parts) > 1:
        parts = parts[:-1]  # `Type.member.Get()`: judge the member
    if any(not part for part in parts):
        raise ValueError(f"cannot split the name '{name}'")
    if kind == "constructor" and parts[-1] != "init":
        parts.append("init")
    return kind, tuple(parts[:-1]), parts[-1], labels


def judge(message, found):
    """(public, reason) for a breakage message against the baseline's declarations `found`."""
    try:
        kind, path, name, labels = parse(message)
    except ValueError as error:
        return True, f"cannot parse the line ({error}); counted as public"
    keywords = KINDS[kind]
    qualified = ".".join(path + (name,))
    if kind in ("struct", "class", "actor", "enum", "protocol") or (kind == "typealias" and not path):
        types = [e for e in found if e["keyword"] == "type" and e["kind"] in keywords and e["path"] == path + (name,)]
        if kind == "typealias":
            types = [e for e in found if e["keyword"] == "typealias" and e["path"] == path and e["name"] == name]
        if not types:
            return True, f"{kind} {qualified} not found in the baseline; counted as public"
        if any(e["public"] for e in types):
            return True, f"{qualified} is public in the baseline"
        return False, f"{qualified} is {types[0]['access']} in the baseline"
    if path:
        owner = lookup_type(found, path)
        if owner is not None and not owner["public"]:
            return False, f"its type {'.'.join(path)} is {owner['access']} in the baseline"
    candidates = [e for e in found if e["keyword"] in keywords and e["path"] == path and e["name"] == name]
    if not candidates and path:
        candidates = [e for e in found if e["keyword"] in keywords and e["path"][-len(path) :] == path
                      and e["name"] == name]
    if not candidates:
        return True, f"{kind} {qualified} not found in the baseline; counted as public"
    if labels is not None:
        exact = [e for e in candidates if e["labels"] == labels]
        if exact:
            candidates = exact
    if any(e["public"] for e in candidates):
        return True, f"{qualified} is public in the baseline"
    accesses = sorted({e["access"] for e in candidates})
    return False, f"{qualified} is {'/'.join(accesses)} in the baseline"


def baseline_declarations(baseline):
    """The declarations of each module's Swift sources at `baseline`, by module."""
    by_module = {}
    for module in MODULES:
        names = subprocess.run(["git", "ls-tree", "-r", "--name-only", baseline, f"Sources/{module}"],
                               check=True, capture_output=True, text=True).stdout.split()
        found = []
        for path in names:
            if path.endswith(".swift"):
                text = subprocess.run(["git", "show", f"{baseline}:{path}"], check=True, capture_output=True,
                                      text=True).stdout
                found.extend(declarations(text))
        by_module[module] = found
    return by_module


def filter_log(lines, by_module):
    """(kept, ignored): the breakage lines judged public, with reasons, and those judged package-only."""
    kept, ignored = [], []
    module = None
    everything = [e for found in by_module.values() for e in found]
    for line in lines:
        line = line.rstrip("\n")
        header = re.search(r"breaking changes? detected in (\w+):", line)
        if header:
            module = header.group(1)
            continue
        match = BREAKAGE.search(line)
        if not match or line.startswith("api_breakage:"):  # this filter's own lines, when fed a whole log back
            continue
        public, reason = judge(match.group("message").strip(), by_module.get(module, everything))
        (kept if public else ignored).append((line.strip(), reason))
    return kept, ignored


def self_test():
    source = '''
public struct Pipeline {
    /// A { brace in a comment
    public func perform(_ request: String) -> Int { let s = "}\\(f("{"))"; return 1 }
    package func start(
        _ request: String,
        naming: String?,
        completion: @escaping (Result<Int, any Error>) -> Void
    ) {}
    public func start(_ request: String) {}
    func helper() {}
}
extension Pipeline {
    struct Stack { public func start() {} }
    public var count: Int { 1 }
}
public extension Pipeline {
    var size: Int { 2 }
}
package final class ChunkBuffer {
    public init(limit: Int) {}
}
public enum Mode {
    case a, b(Int)
}
public protocol Performing {
    func perform(_ r: String)
}
public final class Session {
    package var hidden = 1
}
public struct OneLine { package var inline = 1 }
'''
    found = declarations(source)
    by_module = {"Fetch": found}
    log = [
        "8 breaking changes detected in Fetch:",
        "💔 API breakage: func Pipeline.start(_:naming:completion:) has been renamed to func start(_:naming:x:)",
        "💔 API breakage: constructor ChunkBuffer.init(limit:) has been removed",
        "💔 API breakage: func Pipeline.helper() has been removed",
        "💔 API breakage: var Session.hidden has been removed",
        "💔 API breakage: class ChunkBuffer has been removed",
        "💔 API breakage: func Pipeline.perform(_:) has parameter 0 type change from Int to String",
        "💔 API breakage: func Pipeline.start(_:) has been removed",
        "💔 API breakage: var Pipeline.count has been removed",
        "💔 API breakage: var Pipeline.size has been removed",
        "💔 API breakage: enumelement Mode.b has been removed",
        "💔 API breakage: func Performing.perform(_:) has been removed",
        "💔 API breakage: struct Pipeline has generic signature change from <T> to <U>",
        "💔 API breakage: func Pipeline.vanished() has been removed",
        "💔 API breakage: var OneLine.inline has been removed",
        "💔 API breakage: something odd",
    ]
    kept, ignored = filter_log(log, by_module)
    kept_names = [line.split("API breakage: ")[1].split(" has")[0] for line, _ in kept]
    ignored_names = [line.split("API breakage: ")[1].split(" has")[0] for line, _ in ignored]
    expected_ignored = ["func Pipeline.start(_:naming:completion:)", "constructor ChunkBuffer.init(limit:)",
                        "func Pipeline.helper()", "var Session.hidden", "class ChunkBuffer"]
    expected_kept = ["func Pipeline.perform(_:)", "func Pipeline.start(_:)", "var Pipeline.count",
                     "var Pipeline.size", "enumelement Mode.b", "func Performing.perform(_:)", "struct Pipeline",
                     "func Pipeline.vanished()",
                     "var OneLine.inline", "something odd"]
    if ignored_names != expected_ignored or kept_names != expected_kept:
        print("api_breakage_filter self-test FAILED", file=sys.stderr)
        print(f"  ignored {ignored_names}\n  expected {expected_ignored}", file=sys.stderr)
        print(f"  kept {kept_names}\n  expected {expected_kept}", file=sys.stderr)
        for entry in found:
            print(f"  {entry}", file=sys.stderr)
        return 1
    print(f"api_breakage_filter self-test: {len(ignored)} ignored, {len(kept)} kept, as expected")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    kept, ignored = filter_log(sys.stdin, baseline_declarations(sys.argv[1]))
    for line, reason in ignored:
        print(f"api_breakage: ignored, package-only: {line}  [{reason}]")
    for line, reason in kept:
        print(f"api_breakage: PUBLIC: {line}  [{reason}]")
    return 1 if kept else 0


if __name__ == "__main__":
    sys.exit(main())
