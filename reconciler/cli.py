"""``jsops plan``, ``jsops apply`` and ``jsops export`` (entry points of the ``jsops.commands`` group).

Exit codes: plan 0 no changes, 2 changes planned, 1 error; apply 0 converged, 1 otherwise;
export 0 written, 1 error. Bad input is a one-line message, never a traceback; secrets given as
arguments or in contexts never appear in any output.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["plan_main", "apply_main", "export_main"]


class _Exit(Exception):
    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _Exit(1, f"{self.prog}: error: {message}")


def _parser(command: str, description: str) -> argparse.ArgumentParser:
    from .target import add_target_arguments

    p = _Parser(prog=f"jsops {command}", description=description)
    add_target_arguments(p)
    return p


def _safety_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--prune", action="store_true", help="delete objects jsops owns that left the manifests")
    p.add_argument("--adopt", nargs="+", default=[], metavar="NAME",
                   help="take over existing objects jsops does not own (STREAM, or STREAM/CONSUMER)")
    p.add_argument("--allow-recreate", action="store_true", help="allow delete-and-create for changes the server cannot make in place")
    p.add_argument("--allow-data-loss", action="store_true", help="allow recreating or deleting streams that hold messages")
    p.add_argument("--reset-position", action="store_true", help="recreated consumers start from their deliver policy, not their old position")


def _options(args: argparse.Namespace) -> Any:
    from .plan import PlanOptions

    return PlanOptions(
        prune=args.prune,
        adopt=frozenset(args.adopt),
        allow_recreate=args.allow_recreate,
        allow_data_loss=args.allow_data_loss,
        keep_position=not args.reset_position,
    )


def _guard(fn: Any, argv: Sequence[str]) -> int:
    from .client import ConnectError, JsApiError
    from .plan import PlanError
    from .target import TargetError

    try:
        return int(fn(list(argv)))
    except _Exit as exc:
        if exc.message:
            print(exc.message, file=sys.stderr)
        return exc.code
    except (TargetError, ConnectError, PlanError) as exc:
        print(f"jsops: error: {exc}", file=sys.stderr)
        return 1
    except JsApiError as exc:
        print(f"jsops: error: JetStream API: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # last resort: a message, not a traceback
        print(f"jsops: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


def _desired(paths: list[str], context: str, env: str | None = None) -> Any:
    from linter import LoadError, lint_estate, load_paths

    from .plan import desired_from_estate

    try:
        estate = load_paths(paths or ["."], env=env)
    except LoadError as exc:
        raise _Exit(1, f"jsops: error: {exc}") from None
    result = lint_estate(estate)
    errors = [f for f in result.findings if f.severity.value == "error"]
    if errors:
        lines = [f"{f.file}:{f.line}:{f.column}: {f.rule} {f.message}" for f in errors[:20]]
        more = f"\n... and {len(errors) - 20} more" if len(errors) > 20 else ""
        raise _Exit(1, "\n".join(lines) + more + f"\njsops: error: the manifests have {len(errors)} lint error(s); run `jsops lint` and fix them first")
    return desired_from_estate(estate, context)


def _make_plan(args: argparse.Namespace) -> tuple[Any, Any, Any, Any]:
    from .client import JsClient
    from .live import read_live
    from .plan import build_plan
    from .target import target_from_args

    target = target_from_args(args)
    desired = _desired(args.paths, target.context, args.env)
    client = JsClient(target)
    try:
        live = read_live(client)
    except Exception:
        client.close()
        raise
    plan = build_plan(desired, live, _options(args), target=target.display())
    return target, client, live, plan


def _plan(argv: list[str]) -> int:
    p = _parser("plan", "Show what apply would change on the target.")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--out", metavar="FILE", help="also write the plan as JSON (for apply --plan)")
    p.add_argument("--env", metavar="NAME", help="render *.yaml.j2 templates with environments/NAME.yaml")
    _safety_args(p)
    args = p.parse_args(argv)
    from .render_json import render_json
    from .render_text import render_text

    _, client, _, plan = _make_plan(args)
    client.close()
    if args.out:
        _write(args.out, render_json(plan))
    sys.stdout.write(render_json(plan) if args.format == "json" else render_text(plan))
    return 2 if plan.changed else 0


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise _Exit(1, f"jsops: error: cannot write {path}: {exc.strerror or exc}") from None


def _apply(argv: list[str]) -> int:
    p = _parser("apply", "Make the target match the manifests.")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("--plan", metavar="FILE", dest="plan_file", help="apply this saved plan if the live state still matches it")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p.add_argument("--env", metavar="NAME", help="render *.yaml.j2 templates with environments/NAME.yaml")
    _safety_args(p)
    args = p.parse_args(argv)
    from .apply import execute_plan
    from .plan import Plan, PlanError
    from .render_text import render_text

    target, client, live, plan = _make_plan(args) if not args.plan_file else (None, None, None, None)
    try:
        if args.plan_file:
            from .client import JsClient
            from .live import read_live
            from .target import target_from_args

            try:
                with open(args.plan_file, encoding="utf-8") as fh:
                    saved = Plan.from_json(json.load(fh))
            except OSError as exc:
                raise _Exit(1, f"jsops: error: cannot read {args.plan_file}: {exc.strerror or exc}") from None
            except ValueError as exc:
                raise PlanError(f"{args.plan_file} is not valid JSON: {exc}") from None
            target = target_from_args(args)
            if args.paths:
                _desired(args.paths, target.context, args.env)  # a saved plan still comes from lint-clean manifests
            client = JsClient(target)
            live = read_live(client)
            if live.fingerprint() != saved.fingerprint:
                raise _Exit(1, "jsops: error: the live state changed since the plan was made (fingerprint mismatch); run plan again")
            plan = saved
            plan.target = target.display()
        if not plan.changed:
            print(f"No changes. {plan.target} matches the manifests.")
            return 0
        sys.stdout.write(render_text(plan))
        if not args.yes:
            if not sys.stdin.isatty():
                raise _Exit(1, "jsops: error: apply needs --yes when not run interactively")
            answer = input("\nApply these actions? Only 'yes' is accepted: ")
            if answer.strip() != "yes":
                print("Apply cancelled.")
                return 1
        print()
        symbols = {"create": "+", "update": "~", "adopt": "~", "recreate": "-/+", "delete": "-", "blocked": "!"}

        def progress(r: Any) -> None:
            a = r.action
            sym = symbols.get(a.wanted or a.action, "~")
            print(f"  {r.status:<8} {sym} {a.label}" + (f": {r.detail}" if r.detail else ""), flush=True)

        outcome = execute_plan(client, plan, live, _options(args), progress=progress)
        done, failed, skipped, blocked = (outcome.count(s) for s in ("done", "failed", "skipped", "blocked"))
        print(f"\nApply: {done} done, {failed} failed, {skipped} not attempted, {blocked} blocked.")
        if not outcome.converged:
            print("The target has not converged; fix the failures (or pass the flags named above) and run apply again.")
            return 1
        return 0
    finally:
        if client is not None:
            client.close()


def _export(argv: list[str]) -> int:
    p = _parser("export", "Write the target's streams and consumers as native manifests.")
    p.add_argument("out_dir", metavar="OUT_DIR")
    args = p.parse_args(argv)
    from .client import JsClient
    from .export import write_export
    from .live import read_live
    from .target import target_from_args

    target = target_from_args(args)
    if os.path.exists(args.out_dir) and not os.path.isdir(args.out_dir):
        raise _Exit(1, f"jsops: error: {args.out_dir} exists and is not a directory")
    with JsClient(target) as client:
        live = read_live(client)
    try:
        written = write_export(live, args.out_dir, target.context)
    except OSError as exc:
        raise _Exit(1, f"jsops: error: cannot write to {args.out_dir}: {exc.strerror or exc}") from None
    print(f"Exported {len(live.streams)} streams and {sum(1 for c in live.consumers.values() if c.config.get('durable_name'))} consumers to {len(written)} files in {args.out_dir}.")
    return 0


def plan_main(argv: Sequence[str]) -> int:
    return _guard(_plan, argv)


def apply_main(argv: Sequence[str]) -> int:
    return _guard(_apply, argv)


def export_main(argv: Sequence[str]) -> int:
    return _guard(_export, argv)
