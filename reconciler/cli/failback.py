"""``jsops failback STREAM``: make the old side of a failover active again (:mod:`jsops.reconciler.failback`).

Exit codes: 0 done (or, with ``--plan``, planned), 1 error or refused, 2 argument errors.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from jsops.linter.cli.kit import Exit, Parser, add_config, config_from_args
from jsops.linter.exitcodes import ExitCode

from .failover_group import add_group_arguments, run_group_command
from .guard import guard

__all__ = ["main"]

EPILOG = """\
examples:
  jsops failback ORDERS --plan        # every step, nothing changed
  jsops failback ORDERS --yes         # ORDERS (failed over to its standby) becomes the active side again
  jsops failback --selector dr-group=payments -f streams/ --yes   # every stream labelled so

exit codes: 0 done (planned with --plan), 1 error or refused, 2 argument errors
"""


def _failback(argv: list[str]) -> int:
    from ..client import JsClient, add_target_arguments, target_from_args
    from ..failback import aplan_failback, aplan_failover_back, arun_failback
    from ..render_failover import render_failback_plan, render_failback_result, render_failover_plan
    from .plans import say_target

    p = Parser(
        prog="jsops failback",
        description="Make the old side of a failover the active side again: it becomes a mirror of the active side, "
        "catches up, and the active side fails over to it.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_target_arguments(p)
    add_config(p, "jsops config (contexts, target); default: found from . upward")
    p.add_argument(
        "stream", metavar="STREAM", nargs="?", help="the stream to make active again (the old side of a failover)"
    )
    add_group_arguments(p)
    p.add_argument("--plan", action="store_true", help="print every step and change nothing")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    args = p.parse_args(argv)
    if (args.stream is None) == (args.selector is None):
        p.error("give STREAM or --selector KEY=VALUE (one of them)")
    config = config_from_args(args)
    target = target_from_args(args, config)
    say_target(target)
    if args.selector:
        return run_group_command(args, target, config, back=True)
    with JsClient(target) as client:
        plan = client.run(aplan_failback(client, args.stream))
        sys.stdout.write(render_failback_plan(plan))
        if plan.refusal:
            return ExitCode.ERROR
        back = client.run(aplan_failover_back(client, plan))
        if back is not None:
            sys.stdout.write(render_failover_plan(back))
            if back.refusal:
                return ExitCode.ERROR
        if args.plan:
            return ExitCode.OK
        if not args.yes:
            if not sys.stdin.isatty():
                raise Exit("jsops: error: failback needs --yes when not run interactively", ExitCode.ERROR)
            if input("\nFail back? Only 'yes' is accepted: ").strip() != "yes":
                print("Failback cancelled.")
                return ExitCode.OK
        result = client.run(arun_failback(client, plan))
    sys.stdout.write(render_failback_result(result))
    return ExitCode.OK


def main(argv: Sequence[str]) -> int:
    return guard(_failback, argv)
