"""How every reconciler command runs: under :func:`jsops.linter.cli.kit.run`, its errors one line and an
exit code, the secrets given as arguments blanked out of everything printed. ``jsops plan``, ``apply``,
``export``, ``discover``, ``audit`` and ``controller`` share it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jsops.linter.cli.kit import run
from jsops.linter.exitcodes import ExitCode

__all__ = ["guard"]


def _describe(exc: BaseException) -> str:
    from ..client import JetStreamDisabled, JsApiError

    if isinstance(exc, JsApiError) and not isinstance(exc, JetStreamDisabled):
        return f"JetStream API: {exc}"
    return str(exc)


def guard(
    command: Callable[[list[str]], int],
    argv: Sequence[str],
    *,
    prog: str = "jsops",
    error_code: int = ExitCode.ERROR,
    describe: Callable[[BaseException], str] = _describe,
) -> int:
    """Run a reconciler command under :func:`jsops.linter.cli.kit.run`: its errors (the reconciler's and
    the linter's) are one line, ``PROG: error: MESSAGE``, and ``error_code``; the secrets given as
    arguments are blanked out of everything printed."""
    from jsops.linter.errors import LinterError

    from ..client import ConnectError, JsApiError, TargetError, argv_scrub
    from ..errors import ReconcilerError
    from ..plan import PlanError

    args = list(argv)
    # TargetError, ConnectError, JsApiError and PlanError are named until they derive from ReconcilerError.
    errors = (ReconcilerError, LinterError, TargetError, ConnectError, JsApiError, PlanError)
    return run(
        command,
        args,
        prog=prog,
        errors=errors,
        error_code=error_code,
        redact=lambda text: argv_scrub(text, args),
        describe=describe,
    )
