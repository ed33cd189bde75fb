"""The parts every ``jsops`` command line shares: one parser class, the common arguments, one way to
load the jsops config, and one guard that turns errors into a line on stderr and an exit code.

Conventions (as natscli's): an argument error prints the command's usage and
``jsops CMD: error: MESSAGE`` on stderr and exits 2 (:class:`Parser`); any other failure is one
line (``PROG: error: MESSAGE``), never a traceback (:func:`run`); exit codes are those of
:mod:`jsops.linter.exitcodes`.

A command adopts the kit in three steps::

    def _parser() -> Parser:
        p = Parser(prog="jsops collect", description="...")
        add_config(p, help="jsops config (its contexts); default: found from . upward")
        return p

    def _collect(argv: list[str]) -> int:
        args = _parser().parse_args(argv)
        config = config_from_args(args)
        ...

    def main(argv: Sequence[str] | None = None) -> int:
        return run(_collect, argv, prog="jsops collect", errors=(LinterError, ProfilerError))

This module imports neither the reconciler nor the profiler: each command passes its package's
base exception to :func:`run`.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from ..errors import LinterError
from ..exitcodes import ExitCode

if TYPE_CHECKING:
    from ..config import Config

__all__ = [
    "Exit",
    "prometheus_labels",
    "prometheus_number",
    "UsageError",
    "Parser",
    "add_paths",
    "add_config",
    "add_env",
    "add_no_cache",
    "add_format",
    "add_show_all",
    "add_color",
    "add_quiet",
    "config_from_args",
    "use_color",
    "parse_seconds",
    "duration_type",
    "release_type",
    "run",
]


class Exit(LinterError):
    """End the command: print ``message`` (as it is, when not empty) on stderr and exit with ``code``."""

    def __init__(self, message: str, code: int = ExitCode.ERROR) -> None:
        super().__init__(message)
        self.message = message
        self.code = int(code)


class UsageError(Exit):
    """An argument error: the usage and ``PROG: error: MESSAGE``; exit code 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.USAGE)


class Parser(argparse.ArgumentParser):
    """An ``argparse`` parser whose argument errors raise :class:`UsageError` (usage, then
    ``PROG: error: MESSAGE``) instead of exiting, so that :func:`run` prints them (secrets
    redacted) and returns 2. ``error_prog`` replaces ``prog`` in the message (``jsops lint``'s
    errors say ``jsops: error:``)."""

    def __init__(self, *args: Any, error_prog: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.error_prog = error_prog

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.format_usage().rstrip()}\n{self.error_prog or self.prog}: error: {message}")


# --- common arguments ---------------------------------------------------------------------------

_PATHS_HELP = "manifest files or directories (default: the config's paths, else .)"


def add_paths(p: argparse._ActionsContainer, help: str = _PATHS_HELP, *, required: bool = False) -> None:
    """``PATH ...``: manifest files or directories (``required``: at least one)."""
    p.add_argument("paths", nargs="+" if required else "*", metavar="PATH", help=help)


def add_config(p: argparse._ActionsContainer, help: str, *, no_config: bool = True) -> None:
    """``--config FILE`` (``help`` says what the command reads from it) and ``--no-config``."""
    p.add_argument("--config", metavar="FILE", help=help)
    if no_config:
        p.add_argument("--no-config", action="store_true", help="ignore any jsops config file")


_ENV_HELP = "render *.yaml.j2 templates with environments/NAME.yaml"


def add_env(p: argparse._ActionsContainer, help: str = _ENV_HELP, *, required: bool = False) -> None:
    """``--env NAME``: the environment ``*.yaml.j2`` templates are rendered for."""
    p.add_argument("--env", metavar="NAME", required=required, help=help)


def add_no_cache(p: argparse._ActionsContainer) -> None:
    """``--no-cache``: parse every manifest again (read by :func:`jsops.linter.load.load_paths` callers)."""
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="do not read or write the cache of parsed manifests (also JSOPS_NO_CACHE=1)",
    )


def add_format(
    p: argparse._ActionsContainer, choices: Iterable[str], default: str | None, help: str | None = None
) -> None:
    """``--format`` with its ``choices`` (a registry's names)."""
    p.add_argument("--format", choices=tuple(choices), default=default, help=help)


def add_show_all(p: argparse._ActionsContainer) -> None:
    """``--show-all``: text output lists every finding of a rule that has many (default: a few and a count)."""
    p.add_argument(
        "--show-all",
        action="store_true",
        help="text: list every finding (default: a rule with many findings shows a few, then its count)",
    )


def add_color(p: argparse._ActionsContainer) -> None:
    """``--no-color`` (read by :func:`use_color`)."""
    p.add_argument("--no-color", action="store_true", help="no colours (also NO_COLOR=1; none when not a terminal)")


def add_quiet(p: argparse._ActionsContainer, help: str = "no progress or summary on stderr") -> None:
    """``-q``/``--quiet``."""
    p.add_argument("-q", "--quiet", action="store_true", help=help)


def use_color(args: argparse.Namespace | None = None) -> bool:
    """Colours on a terminal, never under ``--no-color``, ``NO_COLOR`` or ``TERM=dumb``."""
    if getattr(args, "no_color", False) or "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def config_from_args(args: argparse.Namespace) -> Config:
    """The jsops config the arguments name: ``--config FILE``, none with ``--no-config``, else the
    one found from ``.`` upward (the default config when there is none), as ``--env`` reads it (the
    environment's own target: :meth:`Config.for_env`). Raises :class:`jsops.linter.config.ConfigError`."""
    from ..config import load_config

    env = getattr(args, "env", None)
    if getattr(args, "no_config", False):
        return load_config(None, search=False)
    return load_config(getattr(args, "config", None)).for_env(env)


# --- durations ----------------------------------------------------------------------------------


def parse_seconds(text: str, *, bare: Literal["ns", "s"] = "ns") -> float:
    """Seconds in a duration argument: a Go duration (``30s``, ``1m30s``, ``7d``) or a bare number,
    integer nanoseconds (``bare="ns"``, as in manifests) or seconds (``bare="s"``, may be
    fractional). Raises :class:`jsops.linter.semantics.units.UnitError` (a ``ValueError``)."""
    from ..semantics import units

    text = text.strip()
    if bare == "s":
        return units.parse_seconds(text)
    if text.lstrip("-").isdigit():
        return units.parse_duration(int(text)) / units.SECOND
    return units.parse_duration(text) / units.SECOND


def duration_type(*, bare: Literal["ns", "s"] = "ns", negative: bool = False) -> Callable[[str], float]:
    """An argparse ``type`` for duration arguments (:func:`parse_seconds`): a bad value is an
    argument error naming the flag."""

    def seconds(text: str) -> float:
        from ..semantics.units import UnitError

        try:
            value = parse_seconds(text, bare=bare)
        except UnitError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if value < 0 and not negative:
            raise argparse.ArgumentTypeError("must not be negative")
        return value

    return seconds


def release_type(text: str) -> str:
    """An argparse ``type`` for a nats-server release argument: one of the release lines jsops knows
    (:func:`jsops.linter.semantics.releases.unknown_release`), else an argument error saying which."""
    from ..semantics.releases import unknown_release

    why = unknown_release(text)
    if why is not None:
        raise argparse.ArgumentTypeError(f"{text!r}: {why}")
    return text


# --- the guard ----------------------------------------------------------------------------------


def _unchanged(text: str) -> str:
    return text


def run(
    command: Callable[[list[str]], int],
    argv: Sequence[str] | None = None,
    *,
    prog: str = "jsops",
    errors: tuple[type[BaseException], ...] = (LinterError,),
    error_code: int = ExitCode.NOT_RUN,
    redact: Callable[[str], str] = _unchanged,
    describe: Callable[[BaseException], str] = str,
) -> int:
    """Run ``command(argv)`` (``argv``: after the command name; default ``sys.argv[1:]``) and
    return its exit code, never raising:

    - :class:`Exit` (argument errors included): its message as it is, its code;
    - ``errors`` (the package base exceptions the command may raise): ``PROG: error: MESSAGE``
      (``describe(exc)``), ``error_code``;
    - ``KeyboardInterrupt``: 130; a closed stdout (``BrokenPipeError``): 1;
    - ``SystemExit`` (argparse's ``--help`` and ``--version``): its code;
    - anything else: ``PROG: internal error: TYPE: MESSAGE``, ``error_code``.

    Every line goes through ``redact`` (the reconciler blanks the secrets given as arguments)."""
    args = list(sys.argv[1:] if argv is None else argv)

    def say(text: str) -> None:
        print(redact(text), file=sys.stderr)

    try:
        return int(command(args))
    except Exit as exc:
        if exc.message:
            say(exc.message)
        return exc.code
    except errors as exc:
        say(f"{prog}: error: {describe(exc)}")
        return int(error_code)
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        return int(ExitCode.ERROR)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else int(ExitCode.USAGE))
    except Exception as exc:  # last resort: a message, not a traceback
        say(f"{prog}: internal error: {type(exc).__name__}: {exc}")
        return int(error_code)


def prometheus_number(v: float) -> str:
    """A sample value in the Prometheus text exposition: ``NaN``, ``+Inf``/``-Inf``, a whole number
    without its ``.0``, else Python's shortest round-trip form. Shared by the commands that serve
    ``/metrics`` (the controller, ``jsops profile --every``)."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def prometheus_labels(names: tuple[str, ...], values: tuple[str, ...]) -> str:
    """A sample's label set, ``{name="value",...}`` with values escaped, or "" without labels."""
    if not names:
        return ""
    return "{" + ",".join(f'{n}="{_escape_label(v)}"' for n, v in zip(names, values)) + "}"


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
