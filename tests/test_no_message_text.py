"""No code decides anything by reading a finding's (or a violation's, or a problem's) message text.

Behaviour is keyed by data: a rule code, an err_code, a field, a release (``Finding.since``,
``RuleContext.refusal``). A message is for people; an AST scan of every package fails on code
that compares, searches, slices or splits a ``.message`` (``f.message.startswith("unknown
field")``, ``"x" in f.message``, ``f.message == ...``, ``re.search(..., f.message)``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("linter", "rules", "reconciler", "profiler")

# String methods that read text (to decide, or to take a part of it).
_READS = frozenset(
    {
        "startswith",
        "endswith",
        "split",
        "rsplit",
        "splitlines",
        "partition",
        "rpartition",
        "find",
        "rfind",
        "index",
        "rindex",
        "count",
        "lower",
        "upper",
        "casefold",
        "strip",
        "lstrip",
        "rstrip",
        "removeprefix",
        "removesuffix",
        "replace",
        "__contains__",
    }
)
# Regular-expression calls (re.X(pattern, text) or pattern.X(text)).
_REGEX = frozenset({"sub", "subn", "search", "match", "fullmatch", "findall", "finditer", "split"})

# Loader rewrites of jsops's own parser problems before they become findings (display text only,
# no severity, code or behaviour depends on them); each is a known remainder, named here so a new
# one cannot slip in. (module, function)
KNOWN = {
    ("linter/load/files.py", "scrubbed"),  # quoted text blanked out of findings about non-manifests
    ("linter/load/paths.py", "_load_template"),  # "line N" of rendered text moved to the template's line
    # A policy's ``message`` is a template from the config (its ${...} placeholders are compiled), not
    # a finding's text: read when the policy is compiled and for its documentation.
    ("linter/policies.py", "_compile_one"),
    ("linter/policies.py", "_rule_class"),
}


def _is_message(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "message"


def _reads_text(node: ast.AST, is_text: object) -> bool:
    """Whether ``node`` reads the text of an expression ``is_text`` accepts: a string method on it,
    a comparison or a slice of it, or a regular expression applied to it."""
    test = is_text if callable(is_text) else _is_message
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in _READS and test(node.func.value):
            return True
        return node.func.attr in _REGEX and any(test(a) for a in node.args)
    if isinstance(node, ast.Compare):
        return any(test(x) for x in (node.left, *node.comparators))
    if isinstance(node, ast.Subscript):
        return bool(test(node.value))
    return False


def _text_params(tree: ast.AST) -> dict[str, set[int]]:
    """Module-level functions and the positions of the parameters whose text they read."""
    out: dict[str, set[int]] = {}
    for fn in getattr(tree, "body", []):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for i, arg in enumerate(fn.args.args):

            def is_param(n: ast.AST, name: str = arg.arg) -> bool:
                return isinstance(n, ast.Name) and n.id == name

            if any(_reads_text(n, is_param) for n in ast.walk(fn)):
                out.setdefault(fn.name, set()).add(i)
    return out


def _offences(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, enclosing function) of every read of a ``.message``'s text, also through a function
    of the module that reads the text of the parameter it is passed as."""
    out: list[tuple[int, str]] = []
    helpers = _text_params(tree)

    def visit(node: ast.AST, func: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            func = node.name
        hit = _reads_text(node, _is_message)
        if not hit and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
            hit = any(i in helpers[node.func.id] and _is_message(a) for i, a in enumerate(node.args))
        if hit:
            out.append((getattr(node, "lineno", 0), func))
        for child in ast.iter_child_nodes(node):
            visit(child, func)

    visit(tree, "<module>")
    return out


def test_the_scan_catches_message_text_reads() -> None:
    snippets = [
        'if f.rule == "JS005" and f.message.startswith("unknown field"):\n    pass\n',
        'ok = "unknown field" in f.message\n',
        'same = v.message == "x"\n',
        'head = p.message.split(";")[0]\n',
        "first = f.message[:7]\n",
        'm = re.search("field", f.message)\n',
        'm = _PATTERN.sub("", f.message)\n',
        'def helper(text):\n    return text.startswith("x")\n\nok = helper(f.message)\n',
    ]
    for text in snippets:
        assert _offences(ast.parse(text)), text
    assert not _offences(ast.parse('text = f"{f.message} (more)"\nreplace(f, message=f.message + "!")\n'))


def test_no_module_reads_a_message_text() -> None:
    found = []
    known_seen = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for line, func in _offences(ast.parse(path.read_text(), rel)):
                if (rel, func) in KNOWN:
                    known_seen.add((rel, func))
                    continue
                found.append(f"{rel}:{line} in {func}()")
    assert not found, "code reads a message's text (key the behaviour by data instead):\n" + "\n".join(found)
    assert known_seen == KNOWN, f"a known remainder is gone; remove it from KNOWN: {KNOWN - known_seen}"
