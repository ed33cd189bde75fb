"""``jsops failover STREAM``: a planned switch-over to the stream's standby (:mod:`jsops.reconciler.failover`).

Exit codes: 0 done (or, with ``--plan``, planned), 1 error or refused, 2 argument errors.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from jsops.linter.cli.kit import Exit, Parser, add_config, config_from_args
from jsops.linter.exitcodes import ExitCode

from .guard import guard

__all__ = ["main"]

EPILOG = """\
examples:
  jsops failover ORDERS --plan        # every step, nothing changed
  jsops failover ORDERS --yes         # switch ORDERS over to the stream that mirrors it in another cluster
  jsops failover ORDERS --to ORDERS_WEST --yes

exit codes: 0 done (planned with --plan), 1 error or refused, 2 argument errors
"""


def _failover(argv: list[str]) -> int:
    from ..client import JsClient, add_target_arguments, target_from_args
    from ..failover import aplan_failover, arun_failover
    from ..render_failover import render_failover_plan, render_failover_result
    from .plans import say_target

    p = Parser(
        prog="jsops failover",
        description="Switch a stream over to its standby (a mirror of it in another cluster) without losing an acknowledged publish.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_target_arguments(p)
    add_config(p, "jsops config (contexts, target); default: found from . upward")
    p.add_argument("stream", metavar="STREAM", help="the active stream")
    p.add_argument(
        "--to", metavar="STANDBY", help="the standby stream (default: the one stream that mirrors STREAM whole)"
    )
    p.add_argument("--plan", action="store_true", help="print every step and change nothing")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    args = p.parse_args(argv)
    config = config_from_args(args)
    target = target_from_args(args, config)
    say_target(target)
    with JsClient(target) as client:
        plan = client.run(aplan_failover(client, args.stream, args.to))
        sys.stdout.write(render_failover_plan(plan))
        if plan.refusal:
            return ExitCode.ERROR
        if args.plan:
            return ExitCode.OK
        if not args.yes:
            if not sys.stdin.isatty():
                raise Exit("jsops: error: failover needs --yes when not run interactively", ExitCode.ERROR)
            if input("\nFail over? Only 'yes' is accepted: ").strip() != "yes":
                print("Failover cancelled.")
                return ExitCode.OK
        result = client.run(arun_failover(client, plan))
    sys.stdout.write(render_failover_result(plan, result))
    return ExitCode.OK


def main(argv: Sequence[str]) -> int:
    return guard(_failover, argv)
