"""``jsops apply`` once its arguments are parsed: plan (or check a saved plan), show, ask, apply
with progress per object, and stop cleanly on SIGINT or SIGTERM (exit 128 + the signal)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from jsops.linter.cli.kit import Exit
from jsops.linter.exitcodes import ExitCode, signalled

from ..vocabulary import ActionKind
from .plans import Run, make_plans, plan_options, saved_plans, view_options

__all__ = ["apply_command"]


class _Interrupted(BaseException):
    """SIGINT or SIGTERM before anything was sent. A BaseException, like KeyboardInterrupt, so
    that no ``except Exception`` on the way (the manifest loader has some) mistakes it for an error."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_signals(handler: Any) -> list[tuple[int, Any]]:
    """Install ``handler`` for SIGINT and SIGTERM (a CI cancel sends SIGTERM); returns the old ones."""
    if threading.current_thread() is not threading.main_thread():
        return []
    return [(sig, signal.signal(sig, handler)) for sig in (signal.SIGINT, signal.SIGTERM)]


def apply_command(args: argparse.Namespace) -> int:
    """Apply what the arguments ask for; the exit code."""
    from ..apply import Stop

    stop = Stop()
    sending = [False]

    def on_signal(signum: int, _frame: Any) -> None:
        # Before anything is sent, stop at once; while applying, let the requests in flight finish.
        stop.set(signum)
        if not sending[0]:
            raise _Interrupted(signum)

    installed = _on_signals(on_signal)
    run = Run()
    try:
        return _apply_run(args, run, stop, sending)
    except (_Interrupted, KeyboardInterrupt) as exc:
        signum = getattr(exc, "signum", signal.SIGINT)
        print(
            f"\nInterrupted ({signal.Signals(signum).name}) before anything was sent; nothing was changed.",
            file=sys.stderr,
        )
        return signalled(signum)
    finally:
        for sig, old in installed:
            signal.signal(sig, old)
        run.close()


def _confirm(args: argparse.Namespace, run: Run) -> bool:
    """Show the plan (one line with ``--yes``) and, without ``--yes``, ask; False: cancelled."""
    from ..render_text import render_plans, summary_line

    plans = run.plans
    if args.yes and not args.verbose:  # the progress lines below name every object: no plan twice
        print(summary_line(plans))
    else:
        sys.stdout.write(render_plans(plans, **view_options(args, run)))
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise Exit("jsops: error: apply needs --yes when not run interactively", ExitCode.ERROR)
    answer = input("\nApply these actions? Only 'yes' is accepted: ")
    if answer.strip() != "yes":
        print("Apply cancelled.")
        return False
    return True


def _apply_run(args: argparse.Namespace, run: Run, stop: Any, sending: list[bool]) -> int:
    from jsops.linter.cli.kit import config_from_args

    from ..apply import execute_plan
    from ..render_text import outcome_lines

    if args.plan_file:
        saved_plans(args, run)
    else:
        make_plans(args, run)
    if not run.plans.changed:
        for plan in run.plans.plans:
            print(f"No changes. {plan.target} matches the manifests.")
        return ExitCode.OK
    if not _confirm(args, run):
        return ExitCode.ERROR
    total = sum(len(t.plan.actions) for t in run.items if t.plan.changed)
    seen = [0]

    def progress(r: Any) -> None:  # one line per object as it is done: [n/total] shows how far apply is
        if r.interrupted:
            return  # summed up at the end
        a = r.action
        sym = ActionKind(a.wanted or a.action).symbol
        seen[0] += 1
        step = f"  [{seen[0]}/{total}]" if total > 1 else ""
        print(f"  {r.status:<8} {sym} {a.label}" + (f": {r.detail}" if r.detail else "") + step, flush=True)

    def notify(line: str) -> None:
        print(f"  {line}", flush=True)

    results = []
    many = len(run.items) > 1
    sending[0] = True
    if stop:  # a signal came between the prompt and here
        raise _Interrupted(int(stop.signum))
    for t in run.items:
        if not t.plan.changed:
            continue
        if not stop:  # after an interruption the targets left are only counted as not attempted
            print(f"\n{t.plan.target} (context {', '.join(t.route.contexts)}):" if many else "", flush=True)
        opt = plan_options(args, t.route.contexts, run.estate, config_from_args(args))
        outcome = execute_plan(
            t.client,
            t.plan,
            t.live,
            opt,
            progress=progress,
            stop=stop,
            verify=True,
            read_back=args.read_back_wait,
            notify=notify,
        )
        results.extend(outcome.results)
    for line in outcome_lines(results, stop.name if stop else None):
        print(line)
    if stop:
        return signalled(int(stop.signum))
    return ExitCode.OK if all(r.status == "done" for r in results) else ExitCode.ERROR
