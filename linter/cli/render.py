"""``jsops render --env NAME [PATH ...]``: print the estate as one YAML stream, templates rendered.

Every manifest file under the PATHs (default ``.``) is printed in discovery order after a
``---`` separator and a ``# Source: FILE`` comment; ``*.yaml.j2`` templates are rendered with the
values of ``environments/NAME.yaml``, other files are printed as they are. The output is what
``jsops lint --env NAME`` and ``jsops apply --env NAME`` read.

Exit codes: 0 rendered; 1 a template (or an environment's values) could not be rendered: the
findings go to stderr and nothing is printed on stdout, so a pipeline never gets half an estate;
2 bad arguments, a path that does not exist, an unknown environment.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import LinterError
from ..exitcodes import ExitCode, exit_codes_help
from ..findings import LOAD_CODES, Finding
from .kit import Parser, add_env, add_paths, run

__all__ = ["main", "render_estate", "RenderError"]


class RenderError(LinterError):
    """The estate cannot be rendered at all (missing path, unknown environment): exit 2."""


_EPILOG = """\
examples:
  jsops render --env prod manifests/
  jsops render --env dev manifests/orders.yaml.j2 > orders.dev.yaml   # jsops lint --env dev lints it directly

""" + exit_codes_help("render")


def _parser() -> Parser:
    p = Parser(
        prog="jsops render",
        description="Print the manifests with *.yaml.j2 templates rendered for one environment.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
    )
    add_paths(p, "files or directories (default: .)")
    add_env(p, "environment: values from environments/NAME.yaml", required=True)
    return p


def _printable(text: str) -> str:
    """File names and messages on one line: control characters escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _strip_leading_separator(text: str) -> str:
    """Drop a leading ``---`` line (after comments and blank lines): the output writes its own."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if s == "---":
            del lines[i]
        break
    return "\n".join(lines)


def render_estate(paths: Sequence[str], env: str) -> tuple[str, list[Finding]]:
    """The rendered estate as one YAML stream, and the findings of templates that failed.

    Raises :class:`RenderError` for a path that does not exist or an unknown environment."""
    from ..load import Limits, LoadError, link_out
    from ..load.discovery import MAX_DIR_DEPTH, NOT_UTF8_NAME, discover_tree, printable_path
    from ..load.reading import read_regular, unreadable
    from ..load.templates import EnvironmentError_, check_env_name, is_template

    try:
        check_env_name(env)
        entries, too_deep = discover_tree(paths)
    except (LoadError, EnvironmentError_) as exc:
        raise RenderError(str(exc)) from None
    out: list[str] = []
    findings: list[Finding] = []
    cache: dict[str, Any] = {}
    max_bytes = Limits().max_file_bytes

    def problem(name: str, message: str, file: str, line: int = 1) -> None:
        code = LOAD_CODES[name]
        findings.append(Finding(code.code, code.name, code.severity, message, file, line, 1, excerpt=False))

    for d in too_deep:
        problem(
            "manifest-too-complex",
            f"directories nest more than {MAX_DIR_DEPTH} levels below the path given; jsops did not look inside this directory's subdirectories",
            printable_path(d) or d,
        )
    for f, root in entries:
        shown = printable_path(f)
        if shown is not None:  # as lint: never read, named with \xNN escapes (no output could name it as it is)
            problem("manifest-syntax-error", NOT_UTF8_NAME, shown)
            continue
        if link_out(f, root):
            problem(
                "link-outside-tree",
                "symbolic link to a file outside the tree; jsops does not follow links out of the tree and did not read it",
                f,
            )
            continue
        if is_template(f):
            from ..load.templates import render_file

            try:
                rendered = render_file(f, env, values_cache=cache)
            except EnvironmentError_ as exc:
                raise RenderError(str(exc)) from None
            for p in rendered.problems:
                code = LOAD_CODES[p.code]
                findings.append(Finding(code.code, code.name, code.severity, p.message, p.file, p.line, p.column))
            text = rendered.text
            source = f"{f} (environment {env})"
        else:
            try:
                data = read_regular(f, max_bytes + 1)  # never more than one byte past the bound
            except OSError as exc:
                raise RenderError(unreadable(f, exc)) from None
            if len(data) > max_bytes:
                problem(
                    "manifest-too-complex",
                    f"file is larger than {max_bytes // (1024 * 1024)} MiB; refusing to read it",
                    f,
                )
                continue
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                problem("manifest-syntax-error", "not UTF-8 text", f, data[: exc.start].count(b"\n") + 1)
                continue
            source = f
        body = _strip_leading_separator(text)
        if body and not body.endswith("\n"):
            body += "\n"
        out.append(f"---\n# Source: {_printable(source)}\n{body}")
    findings.sort(key=Finding.sort_key)
    return "".join(out), findings


def _render(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    text, findings = render_estate(list(args.paths) or ["."], args.env)
    if findings:
        for f in findings:
            print(
                f"{_printable(f.file)}:{f.line}:{f.column}: {f.severity.value} {f.rule} {_printable(f.message)} [{f.name}]",
                file=sys.stderr,
            )
        n = len(findings)
        print(f"jsops render: {n} problem{'s' if n != 1 else ''} in the manifests; nothing printed", file=sys.stderr)
        return ExitCode.FINDINGS
    sys.stdout.write(text)
    sys.stdout.flush()
    return ExitCode.OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``jsops render`` (argv after the command name); returns the exit code."""
    return run(_render, argv, prog="jsops render")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
