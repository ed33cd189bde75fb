"""``--selector KEY=VALUE`` of ``jsops failover`` and ``jsops failback``: every stream of a group
(:mod:`jsops.reconciler.failover_group`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from jsops.linter.cli.kit import Exit, Parser
from jsops.linter.exitcodes import ExitCode

if TYPE_CHECKING:
    from jsops.linter import Config

    from ..client import Target

__all__ = ["add_group_arguments", "run_group_command"]


def add_group_arguments(p: Parser) -> None:
    p.add_argument(
        "--selector",
        "-l",
        metavar="KEY=VALUE",
        help="every stream whose manifest has this label (metadata.labels) and is declared active, origins first; "
        "stops at the first failure (a re-run finishes the rest)",
    )
    p.add_argument(
        "--filename",
        "-f",
        metavar="PATH",
        action="append",
        help="with --selector: manifests (file or directory, repeatable; default: the config's paths, else .)",
    )


def run_group_command(args: argparse.Namespace, target: Target, config: Config, *, back: bool) -> int:
    """The group's switch-over: its plan with ``args.plan``, else carried out after confirmation."""
    from ..client import JsClient
    from ..failover_group import parse_selector, run_group, select
    from ..render_failover import render_group
    from .plans import _load

    try:
        key, value = parse_selector(args.selector)
    except ValueError as exc:
        raise Exit(f"jsops: error: {exc}", ExitCode.USAGE) from None
    args.paths = args.filename or []
    streams = select(_load(args, config), key, value)
    verb = "failback" if back else "failover"
    with JsClient(target) as client:
        steps = client.run(run_group(client, streams, back=back, plan_only=True))
        sys.stdout.write(render_group(args.selector, steps, back=back, plan_only=True))
        if args.plan or not streams:
            return ExitCode.ERROR if any(s.outcome == "failed" for s in steps) else ExitCode.OK
        if not args.yes:
            if not sys.stdin.isatty():
                raise Exit(f"jsops: error: {verb} needs --yes when not run interactively", ExitCode.ERROR)
            if (
                input(f"\nFail {'back' if back else 'over'} {len(streams)} streams? Only 'yes' is accepted: ").strip()
                != "yes"
            ):
                print(f"{verb.capitalize()} cancelled.")
                return ExitCode.OK
        steps = client.run(run_group(client, streams, back=back, plan_only=False))
    sys.stdout.write(render_group(args.selector, steps, back=back, plan_only=False))
    return ExitCode.ERROR if any(s.outcome == "failed" for s in steps) else ExitCode.OK
