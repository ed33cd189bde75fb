"""``jsops plan``, ``jsops apply`` and ``jsops export`` (entry points of the ``jsops.commands`` group).

Exit codes: plan 0 no changes, 2 changes planned, 1 error; apply 0 converged, 1 otherwise;
export 0 written, 1 error. Bad input is a one-line message, never a traceback; secrets given as
arguments or in contexts never appear in any output.

One run plans every target the manifests route to (``reconciler.route``): the default target and
each other ``metadata.context``; plans are shown and applied per target.
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
    p.add_argument("--config", metavar="FILE", help="jsops config (contexts, target facts, lint selection); default: found from . upward")
    p.add_argument("--no-config", action="store_true", help="ignore any jsops config file")
    return p


def _safety_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--prune", action="store_true",
                   help="delete objects jsops owns that left the manifests (only those recorded under the PATHs given)")
    p.add_argument("--adopt", nargs="+", default=[], metavar="NAME",
                   help="take over existing objects jsops does not own, or that another estate owns (STREAM, or STREAM/CONSUMER)")
    p.add_argument("--allow-recreate", action="store_true", help="allow delete-and-create for changes the server cannot make in place")
    p.add_argument("--allow-data-loss", action="store_true", help="allow recreating or deleting streams that hold messages")
    p.add_argument("--reset-position", action="store_true", help="recreated consumers start from their deliver policy, not their old position")


def _config(args: argparse.Namespace) -> Any:
    from linter.config import load_config

    return load_config(args.config) if not args.no_config else load_config(None, search=False)


def _options(args: argparse.Namespace, contexts: Any = None, estate: Any = None, config: Any = None) -> Any:
    """The safety options; with ``estate``, prune is scoped to the PATHs and ``contexts``, and with
    ``config`` to its estate identity (``estate:``)."""
    from .plan import PlanOptions, _root, source_path

    opt = PlanOptions(
        prune=args.prune,
        adopt=frozenset(args.adopt),
        allow_recreate=args.allow_recreate,
        allow_data_loss=args.allow_data_loss,
        keep_position=not args.reset_position,
    )
    if config is not None:
        opt.estates, opt.estate = True, getattr(config, "estate", None)
    if estate is None:
        return opt
    root = _root()
    loaded = {source_path(f, root) for f in {*estate.files, *(r.file for r in estate.resources)} if f}

    def stale(recorded: str) -> bool:
        path = recorded if os.path.isabs(recorded) else os.path.join(root, recorded)
        return recorded in loaded or not os.path.exists(path)

    opt.prune_paths = tuple(source_path(p, root) for p in (args.paths or ["."]))
    opt.prune_contexts = frozenset(contexts) if contexts is not None else None
    opt.stale_source = stale
    return opt


def _guard(fn: Any, argv: Sequence[str]) -> int:
    from linter.config import ConfigError

    from .client import ConnectError, JsApiError
    from .plan import PlanError
    from .target import TargetError

    try:
        return int(fn(list(argv)))
    except _Exit as exc:
        if exc.message:
            print(exc.message, file=sys.stderr)
        return exc.code
    except (TargetError, ConnectError, PlanError, ConfigError) as exc:
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


def _estate(args: argparse.Namespace, config: Any) -> Any:
    """The manifests under the PATHs, refused when they have lint errors."""
    from linter import LoadError, lint_estate, load_paths

    try:
        estate = load_paths(args.paths or ["."], env=getattr(args, "env", None))
    except LoadError as exc:
        raise _Exit(1, f"jsops: error: {exc}") from None
    result = lint_estate(estate, config=config)
    errors = [f for f in result.findings if f.severity.value == "error"]
    if errors:
        lines = [f"{f.file}:{f.line}:{f.column}: {f.rule} {f.message}" for f in errors[:20]]
        more = f"\n... and {len(errors) - 20} more" if len(errors) > 20 else ""
        raise _Exit(1, "\n".join(lines) + more + f"\njsops: error: the manifests have {len(errors)} lint error(s); run `jsops lint` and fix them first")
    return estate


class _Run:
    """The targets of one run, each with its open client, live state and plan."""

    def __init__(self) -> None:
        self.items: list[tuple[Any, Any, Any, Any]] = []  # (route, client, live, plan)

    def close(self) -> None:
        for _, client, _, _ in self.items:
            client.close()

    @property
    def plans(self) -> Any:
        from .plan import PlanSet

        return PlanSet([plan for _, _, _, plan in self.items])


def _make_plans(args: argparse.Namespace, run: _Run) -> None:
    from .client import JsClient
    from .dataloss import measure_limit_loss
    from .limits import read_limits
    from .live import read_live
    from .plan import build_plan, desired_from_estate
    from .route import route_estate
    from .target import TargetError, resolve_context, target_from_args

    config = _config(args)
    estate = _estate(args, config)
    if getattr(args, "prune", False) and not config.estate:
        print("jsops: note: no estate: in the jsops config; --prune considers only owned objects that record no estate. "
              "Set one (estate: NAME) where several repositories share a server.", file=sys.stderr)
    default = target_from_args(args, config)
    explicit = bool(args.server or args.context or "default" in config.contexts)
    def resolve(name: str) -> Any:
        try:
            return resolve_context(name, config)
        except TargetError as exc:
            raise TargetError(f"manifests route objects to context {name!r}: {exc}") from None

    for route in route_estate(estate, default, resolve, explicit=explicit):
        client = JsClient(route.target)
        run.items.append((route, client, None, None))
        live = read_live(client)
        limits = read_limits(client, route.target, config.target)
        desired = desired_from_estate(estate, contexts=route.contexts, target=limits)
        measure_limit_loss(client, live, {d.name: d.config for d in desired if d.kind == "Stream"})
        plan = build_plan(desired, live, _options(args, route.contexts, estate, config), target=route.target.display())
        plan.context, plan.contexts = route.name, tuple(route.contexts)
        run.items[-1] = (route, client, live, plan)


def _plan(argv: list[str]) -> int:
    p = _parser("plan", "Show what apply would change on the targets.")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--out", metavar="FILE", help="also write the plan as JSON (for apply --plan)")
    p.add_argument("--env", metavar="NAME", help="render *.yaml.j2 templates with environments/NAME.yaml")
    _safety_args(p)
    args = p.parse_args(argv)
    from .render_json import render_json
    from .render_text import render_plans

    run = _Run()
    try:
        _make_plans(args, run)
    finally:
        run.close()
    plans = run.plans
    if args.out:
        _write(args.out, render_json(plans))
    sys.stdout.write(render_json(plans) if args.format == "json" else render_plans(plans))
    return 2 if plans.changed else 0


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise _Exit(1, f"jsops: error: cannot write {path}: {exc.strerror or exc}") from None


def _saved_plans(args: argparse.Namespace, run: _Run) -> None:
    """Open the targets of a saved plan and check that each live state still matches it."""
    from .client import JsClient
    from .live import read_live
    from .plan import PlanError, PlanSet
    from .route import Route
    from .target import resolve_context, target_from_args

    try:
        with open(args.plan_file, encoding="utf-8") as fh:
            saved = PlanSet.from_json(json.load(fh))
    except OSError as exc:
        raise _Exit(1, f"jsops: error: cannot read {args.plan_file}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise PlanError(f"{args.plan_file} is not valid JSON: {exc}") from None
    config = _config(args)
    if args.paths:
        _estate(args, config)  # a saved plan still comes from lint-clean manifests
    for plan in saved.plans:
        target = target_from_args(args, config) if plan.context == "default" else resolve_context(plan.context, config)
        if plan.target and target.display() != plan.target:
            raise _Exit(1, f"jsops: error: the plan for context {plan.context!r} was made for {plan.target}, "
                           f"but the target is now {target.display()}")
        client = JsClient(target)
        run.items.append((Route(target, list(plan.contexts or (plan.context,))), client, None, plan))
        live = read_live(client)
        if live.fingerprint() != plan.fingerprint:
            raise _Exit(1, f"jsops: error: the live state of {target.display()} changed since the plan was made "
                           "(fingerprint mismatch); run plan again")
        plan.target = target.display()
        run.items[-1] = (run.items[-1][0], client, live, plan)


def _apply(argv: list[str]) -> int:
    p = _parser("apply", "Make the targets match the manifests.")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("--plan", metavar="FILE", dest="plan_file", help="apply this saved plan if the live state still matches it")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p.add_argument("--env", metavar="NAME", help="render *.yaml.j2 templates with environments/NAME.yaml")
    _safety_args(p)
    args = p.parse_args(argv)
    from .apply import execute_plan
    from .render_text import render_plans

    run = _Run()
    try:
        if args.plan_file:
            _saved_plans(args, run)
        else:
            _make_plans(args, run)
        plans = run.plans
        if not plans.changed:
            for plan in plans.plans:
                print(f"No changes. {plan.target} matches the manifests.")
            return 0
        sys.stdout.write(render_plans(plans))
        if not args.yes:
            if not sys.stdin.isatty():
                raise _Exit(1, "jsops: error: apply needs --yes when not run interactively")
            answer = input("\nApply these actions? Only 'yes' is accepted: ")
            if answer.strip() != "yes":
                print("Apply cancelled.")
                return 1
        symbols = {"create": "+", "update": "~", "adopt": "~", "recreate": "-/+", "delete": "-", "blocked": "!"}

        def progress(r: Any) -> None:
            a = r.action
            sym = symbols.get(a.wanted or a.action, "~")
            print(f"  {r.status:<8} {sym} {a.label}" + (f": {r.detail}" if r.detail else ""), flush=True)

        counts = {"done": 0, "failed": 0, "skipped": 0, "blocked": 0}
        converged = True
        many = len(run.items) > 1
        for route, client, live, plan in run.items:
            if not plan.changed:
                continue
            print(f"\n{plan.target} (context {', '.join(route.contexts)}):" if many else "")
            outcome = execute_plan(client, plan, live, _options(args), progress=progress)
            for status in counts:
                counts[status] += outcome.count(status)
            converged = converged and outcome.converged
        print(f"\nApply: {counts['done']} done, {counts['failed']} failed, {counts['skipped']} not attempted, {counts['blocked']} blocked.")
        if not converged:
            print("The target has not converged; fix the failures (or pass the flags named above) and run apply again.")
            return 1
        return 0
    finally:
        run.close()


def _export(argv: list[str]) -> int:
    p = _parser("export", "Write the target's streams and consumers as native manifests.")
    p.add_argument("out_dir", metavar="OUT_DIR")
    args = p.parse_args(argv)
    from .client import JsClient
    from .export import write_export
    from .live import read_live
    from .target import target_from_args

    target = target_from_args(args, _config(args))
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
