"""``jsops failover STREAM``: a planned switch-over to the stream's standby (:mod:`jsops.reconciler.failover`).

Exit codes: 0 done (or, with ``--plan``, planned), 1 error or refused, 2 argument errors.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from jsops.linter.cli.kit import Exit, Parser, add_config, config_from_args
from jsops.linter.exitcodes import ExitCode

from .failover_group import add_group_arguments, run_group_command
from .guard import guard

if TYPE_CHECKING:
    from ..client import Target

__all__ = ["main"]

EPILOG = """\
examples:
  jsops failover ORDERS --plan        # every step, nothing changed
  jsops failover ORDERS --yes         # switch ORDERS over to the stream that mirrors it in another cluster
  jsops failover ORDERS --to ORDERS_WEST --yes
  jsops failover --selector dr-group=payments -f streams/ --plan   # every stream labelled so, origins first
  jsops failover ORDERS --check                               # every minute: what an emergency counts from
  jsops failover ORDERS --emergency --plan                    # ORDERS's cluster is down: what can be lost
  jsops failover ORDERS --emergency --allow-data-loss --yes   # promote the standby anyway

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
    p.add_argument("stream", metavar="STREAM", nargs="?", help="the active stream (or --selector)")
    add_group_arguments(p)
    p.add_argument(
        "--to", metavar="STANDBY", help="the standby stream (default: the one stream that mirrors STREAM whole)"
    )
    p.add_argument("--plan", action="store_true", help="print every step and change nothing")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p.add_argument(
        "--emergency",
        action="store_true",
        help="STREAM does not answer (its cluster is down): promote the standby without comparing, "
        "stating the most that can be lost (needs --allow-data-loss)",
    )
    p.add_argument("--allow-data-loss", action="store_true", help="with --emergency: accept the loss it states")
    p.add_argument(
        "--check",
        action="store_true",
        help="record on the standby what an emergency failover needs: STREAM's last sequence, subjects, placement "
        "(run it regularly: the stated loss counts from the last check)",
    )
    p.add_argument(
        "--subjects",
        metavar="SUBJECT",
        action="append",
        help="with --emergency: STREAM's subjects, when the standby does not record them (repeatable)",
    )
    args = p.parse_args(argv)
    _check_arguments(p, args)
    config = config_from_args(args)
    target = target_from_args(args, config)
    say_target(target)
    if args.selector:
        return run_group_command(args, target, config, back=False)
    if args.emergency:
        return _emergency(args, target)
    if args.check:
        return _check(args, target)
    with JsClient(target) as client:
        plan = client.run(aplan_failover(client, args.stream, args.to))
        sys.stdout.write(render_failover_plan(plan))
        if plan.refusal:
            return ExitCode.ERROR
        if args.plan:
            return ExitCode.OK
        if not _confirm(args, "Fail over?"):
            print("Failover cancelled.")
            return ExitCode.OK
        result = client.run(arun_failover(client, plan))
    sys.stdout.write(render_failover_result(plan, result))
    return ExitCode.OK


def _check_arguments(p: Parser, args: argparse.Namespace) -> None:
    if (args.stream is None) == (args.selector is None):
        p.error("give STREAM or --selector KEY=VALUE (one of them)")
    if args.selector and (args.to or args.emergency or args.check):
        p.error("--selector switches each stream to its one standby: not with --to, --emergency or --check")
    if (args.allow_data_loss or args.subjects) and not args.emergency:
        p.error("--allow-data-loss and --subjects go with --emergency (a planned failover loses nothing)")
    if args.check and (args.emergency or args.plan):
        p.error("--check records and does nothing else: not with --emergency or --plan")


def _confirm(args: argparse.Namespace, question: str) -> bool:
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise Exit("jsops: error: failover needs --yes when not run interactively", ExitCode.ERROR)
    return input(f"\n{question} Only 'yes' is accepted: ").strip() == "yes"


def _check(args: argparse.Namespace, target: Target) -> int:
    from ..client import JsClient
    from ..emergency import arecord_check
    from ..render_failover import render_check

    with JsClient(target) as client:
        result = client.run(arecord_check(client, args.stream, args.to))
    sys.stdout.write(render_check(result))
    return ExitCode.OK


def _emergency(args: argparse.Namespace, target: Target) -> int:
    from ..client import JsClient
    from ..emergency import aplan_emergency, arun_emergency
    from ..render_failover import render_emergency_plan, render_emergency_result

    with JsClient(target) as client:
        plan = client.run(aplan_emergency(client, args.stream, args.to, tuple(args.subjects or ())))
        sys.stdout.write(render_emergency_plan(plan))
        if plan.refusal:
            return ExitCode.ERROR
        if args.plan:
            return ExitCode.OK
        if not args.allow_data_loss:
            loss = "every message" if plan.lag is None else f"up to {plan.lag} acknowledged publishes"
            print(f"  refused: {loss} can be lost: needs --allow-data-loss; nothing was changed")
            return ExitCode.ERROR
        if not _confirm(args, f"Promote {plan.standby}, accepting that loss?"):
            print("Failover cancelled.")
            return ExitCode.OK
        result = client.run(arun_emergency(client, plan))
    sys.stdout.write(render_emergency_result(plan, result))
    return ExitCode.OK


def main(argv: Sequence[str]) -> int:
    return guard(_failover, argv)
