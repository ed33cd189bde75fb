"""The exit-code contract of every ``jsops`` command, written once.

:class:`ExitCode` names the codes; several meanings share a number (as in terraform and natscli),
and the aliases name the meaning at the call site. :data:`EXIT_CODES` says what each code means
for each command: the ``exit codes:`` section of a command's ``--help`` is made from it
(:func:`exit_codes_help`), and so is the table in ``docs/cli.md`` (:func:`exit_codes_markdown`; a
test keeps the two equal).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

__all__ = [
    "ExitCode",
    "ExitRow",
    "EXIT_CODES",
    "signalled",
    "exit_codes_help",
    "exit_codes_inline",
    "exit_codes_markdown",
]


class ExitCode(IntEnum):
    """Process exit codes. Aliases share a value: a command documents which meaning it uses."""

    OK = 0
    """Done: lint clean, rendered, planned, converged, written, in sync."""
    FINDINGS = 1
    """lint: findings at or above ``--fail-on`` (with ``--diff``: fixes to show); render: templates
    that did not render."""
    ERROR = 1
    """plan/apply/export/discover: an error stopped the command; apply: not converged;
    controller ``--once``: the round failed."""
    USAGE = 2
    """Every command: bad arguments (the usage is printed)."""
    NOT_RUN = 2
    """lint/render/report/controller: could not run (unreadable config, profiles or paths, ...)."""
    CHANGES = 2
    """plan ``--detailed-exitcode``: there are changes; controller ``--once``: drift left."""
    INTERRUPTED = 130
    """SIGINT (128 + 2); see :func:`signalled` for other signals."""


def signalled(signum: int) -> int:
    """The exit code of a command ended by signal ``signum`` (as a shell reports it: 128 + signum)."""
    return 128 + int(signum)


@dataclass(frozen=True)
class ExitRow:
    """One line of a command's contract. ``code`` is text so that a row can name several codes."""

    code: str
    meaning: str
    in_help: bool = True  # shown under ``exit codes:`` in the command's --help (else only in the docs)


def _rows(*rows: tuple[int | str, str] | tuple[int | str, str, bool]) -> tuple[ExitRow, ...]:
    return tuple(ExitRow(r[0] if isinstance(r[0], str) else str(int(r[0])), r[1], *r[2:]) for r in rows)


EXIT_CODES: dict[str, tuple[ExitRow, ...]] = {
    "lint": _rows(
        (ExitCode.OK, "no finding at or above --fail-on"),
        (ExitCode.FINDINGS, "findings at or above --fail-on (with --diff: fixes to show)"),
        (ExitCode.NOT_RUN, "could not run (bad arguments, unreadable config or profiles, bad manifest path)"),
    ),
    "audit": _rows(
        (ExitCode.OK, "no finding at or above --fail-on (default warning)"),
        (ExitCode.FINDINGS, "findings at or above --fail-on"),
        (ExitCode.NOT_RUN, "could not run (bad arguments or config, unreachable target, unreadable manifests)"),
    ),
    "rule": _rows((ExitCode.OK, "shown"), (ExitCode.USAGE, "unknown rule or bad arguments")),
    "rules": _rows((ExitCode.OK, "listed"), (ExitCode.USAGE, "bad arguments")),
    "policy": _rows(
        (ExitCode.OK, "every fixture case gave the codes it expects"),
        (ExitCode.FINDINGS, "a case gave other codes than it expects"),
        (
            ExitCode.NOT_RUN,
            "could not run (bad arguments, a config or policy that does not compile, an unreadable fixture)",
        ),
    ),
    "completion": _rows((ExitCode.OK, "printed"), (ExitCode.USAGE, "unknown shell or bad arguments")),
    "help": _rows((ExitCode.OK, "shown"), (ExitCode.USAGE, "unknown command")),
    "render": _rows(
        (ExitCode.OK, "rendered"),
        (ExitCode.FINDINGS, "a template could not be rendered (the message names file:line)"),
        (ExitCode.NOT_RUN, "could not run (bad arguments, missing path, unknown environment)"),
    ),
    "report": _rows(
        (ExitCode.OK, "written"),
        (ExitCode.NOT_RUN, "could not run (bad arguments, unreadable config, profiles or manifests, cannot write)"),
    ),
    "plan": _rows(
        (ExitCode.OK, "the plan was made, with or without changes (as terraform plan)"),
        (
            ExitCode.ERROR,
            "error (cannot connect, lint errors in the manifests, bad plan file, ...; with --detailed-exitcode also bad arguments)",
        ),
        (
            ExitCode.CHANGES,
            "with --detailed-exitcode: there are changes (only then); otherwise an argument error (usage)",
        ),
    ),
    "apply": _rows(
        (ExitCode.OK, "the targets match the manifests (or there was nothing to do)"),
        (ExitCode.ERROR, "not converged (failed or blocked actions, cancelled), or an error"),
        (ExitCode.USAGE, "argument error (usage)"),
        ("130, 143", "interrupted by SIGINT, SIGTERM (128 + the signal)", False),
    ),
    "export": _rows(
        (ExitCode.OK, "written"),
        (ExitCode.ERROR, "error (cannot connect, cannot write)"),
        (ExitCode.USAGE, "argument error (usage)"),
    ),
    "discover": _rows(
        (ExitCode.OK, "facts read (and written with --write)"),
        (ExitCode.ERROR, "the target could not be read"),
        (ExitCode.USAGE, "usage error"),
    ),
    "controller": _rows(
        (ExitCode.OK, "stopped by SIGTERM or SIGINT; with --once: in sync", False),
        (ExitCode.ERROR, "with --once: the round failed; the --listen address cannot be used", False),
        (
            ExitCode.USAGE,
            "bad arguments, config or target, a --log-file that cannot be opened; with --once: drift left",
            False,
        ),
    ),
}
"""What each exit code means for each command (plugins not named here document their own)."""


def exit_codes_help(command: str) -> str:
    """The ``exit codes:`` section of ``command``'s --help (a block ending with a newline)."""
    rows = [r for r in EXIT_CODES[command] if r.in_help]
    return "exit codes:\n" + "".join(f"  {r.code}  {r.meaning}\n" for r in rows)


def exit_codes_inline(command: str) -> str:
    """The exit codes of ``command`` on one line (``exit codes: 0 ..., 1 ...``)."""
    rows = [r for r in EXIT_CODES[command] if r.in_help]
    return "exit codes: " + ", ".join(f"{r.code} {r.meaning}" for r in rows)


def exit_codes_markdown() -> str:
    """The contract as the Markdown table of ``docs/cli.md``."""
    lines = ["| command | code | meaning |", "|---|---|---|"]
    for command, rows in EXIT_CODES.items():
        lines += [f"| `{command}` | {r.code} | {r.meaning} |" for r in rows]
    return "\n".join(lines) + "\n"
