"""``jsops plan``, ``jsops apply`` and ``jsops export`` (entry points of the ``jsops.commands`` group).

Exit codes, as terraform's: plan 0 planned (changes or not), 1 error; with ``--detailed-exitcode``
0 no changes, 2 changes planned, 1 error. apply 0 converged, 1 otherwise; export 0 written, 1
error. Argument errors print the usage and exit 2 in every command. Bad input is a one-line
message, never a traceback; secrets given as arguments or in contexts never appear in any output.

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

from .gcpause import gc_paused

__all__ = ["plan_main", "apply_main", "export_main"]


class _Exit(Exception):
    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _Exit(2, f"{self.format_usage().rstrip()}\n{self.prog}: error: {message}")


def _parser(command: str, description: str, epilog: str = "") -> argparse.ArgumentParser:
    from .client import add_target_arguments

    p = _Parser(prog=f"jsops {command}", description=description, epilog=epilog,
                formatter_class=argparse.RawDescriptionHelpFormatter)
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


def _seconds(text: str) -> float:
    """A duration flag (Go string like ``30s``, or integer nanoseconds) in seconds."""
    from linter.model.units import UnitError, parse_duration

    try:
        ns = parse_duration(int(text) if text.strip().lstrip("-").isdigit() else text)
    except UnitError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if ns < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return ns / 1e9


def _config(args: argparse.Namespace) -> Any:
    from linter.config import load_config

    return load_config(args.config) if not args.no_config else load_config(None, search=False)


def _options(args: argparse.Namespace, contexts: Any = None, estate: Any = None, config: Any = None) -> Any:
    """The safety options; with ``estate``, prune is scoped to the PATHs and ``contexts``, and with
    ``config`` to its estate identity (``estate:``)."""
    from .plan import PlanOptions, repo_root, source_path

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
    root = repo_root()
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

    from .client import ConnectError, JetStreamDisabled, JsApiError, TargetError, argv_scrub
    from .plan import PlanError

    def say(text: str) -> None:
        print(argv_scrub(text, argv), file=sys.stderr)

    try:
        return int(fn(list(argv)))
    except _Exit as exc:
        if exc.message:
            say(exc.message)
        return exc.code
    except (TargetError, ConnectError, PlanError, ConfigError) as exc:
        say(f"jsops: error: {exc}")
        return 1
    except JetStreamDisabled as exc:
        say(f"jsops: error: {exc}")
        return 1
    except JsApiError as exc:
        say(f"jsops: error: JetStream API: {exc}")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # last resort: a message, not a traceback
        say(f"jsops: internal error: {type(exc).__name__}: {exc}")
        return 1


def _paths(args: argparse.Namespace, config: Any) -> list[str]:
    """The PATHs given, else the config's ``paths`` (as ``jsops lint``), else ``.``."""
    return list(args.paths) or [config.resolve_path(p) for p in getattr(config, "paths", None) or ()] or ["."]


def _estate(args: argparse.Namespace, config: Any) -> Any:
    """The manifests under the PATHs, refused when they have lint errors."""
    from linter import LoadError, load_paths

    from .lintgate import lint_errors

    paths = args.paths = _paths(args, config)  # prune is scoped to these too
    try:
        estate = load_paths(paths, env=getattr(args, "env", None))
    except LoadError as exc:
        raise _Exit(1, f"jsops: error: {exc}") from None
    if not estate.resources:
        print(f"jsops: warning: no streams or consumers in {', '.join(paths)}; the plan can only delete (with --prune)",
              file=sys.stderr)
    result = lint_errors(estate, config)
    errors = [f for f in result.findings if f.severity.value == "error"]
    if errors:
        lines = [f"{f.file}:{f.line}:{f.column}: {f.rule} {f.message}" for f in errors[:20]]
        more = f"\n... and {len(errors) - 20} more" if len(errors) > 20 else ""
        import shlex

        env = getattr(args, "env", None)
        again = " ".join(["jsops lint", *(shlex.quote(p) for p in paths), *(["--env", shlex.quote(env)] if env else []),
                          *(["--config", shlex.quote(args.config)] if args.config else []), *(["--no-config"] if args.no_config else [])])
        raise _Exit(1, "\n".join(lines) + more + f"\njsops: error: the manifests have {len(errors)} lint error(s) (above); "
                       f"`{again}` shows them with their fixes")
    return estate


def _live_gate(estate: Any, config: Any, live_target: Any, route: Any) -> None:
    """Lint the objects routed to a target again with what the live server says about itself
    (release, cluster or standalone, max_payload, limits): a plan against a standalone server knows
    that R3 is refused before any request is sent."""
    from .lintgate import lint_errors

    if live_target == config.target:
        return
    wanted = set(route.contexts)
    result = lint_errors(estate, config.model_copy(update={"target": live_target}), read_source=None)
    routed = {(r.kind, r.name, r.stream) for r in estate.resources if r.context in wanted}
    errors = [f for f in result.findings if f.severity.value == "error"
              and (f.object is None or (f.object.kind, f.object.name, f.object.stream) in routed)]
    if errors:
        lines = [f"{f.file}:{f.line}:{f.column}: {f.rule} {f.message}" for f in errors[:20]]
        more = f"\n... and {len(errors) - 20} more" if len(errors) > 20 else ""
        version = f"nats-server {live_target.server_version}" if live_target.server_version else "the server"
        shape = "standalone" if live_target.clustered is False else (f"a cluster of {live_target.cluster_size}" if live_target.cluster_size else "")
        raise _Exit(1, "\n".join(lines) + more + f"\njsops: error: {route.target.display()} ({version}{', ' + shape if shape else ''}) "
                       f"would refuse {len(errors)} object(s); nothing was sent")


def _explicit(estate: Any) -> dict[tuple[str, str | None, str], frozenset[str]]:
    """The config fields each manifest sets (the plan lists these; the rest are server defaults)."""
    out: dict[tuple[str, str | None, str], frozenset[str]] = {}
    for r in estate.resources:
        fields = getattr(r.config, "model_fields_set", None)
        if fields is not None:
            out[(r.kind, r.stream if r.kind == "Consumer" else None, r.name)] = frozenset(fields)
    return out


def _say_target(target: Any) -> None:
    from .client import describe_target

    print(f"jsops: {describe_target(target)}", file=sys.stderr)


def _color(args: argparse.Namespace) -> bool:
    """Colours on a terminal, as terraform; never under NO_COLOR, TERM=dumb or --no-color."""
    if getattr(args, "no_color", False) or "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def _view_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("output")
    g.add_argument("--verbose", "-v", action="store_true", help="list every field of a create, server defaults marked (default)")
    g.add_argument("--compact", action="store_true", help="one line per object (for large estates)")
    g.add_argument("--no-color", action="store_true", help="no colours (also NO_COLOR=1; none when not a terminal)")


def _view(args: argparse.Namespace, run: _Run) -> dict[str, Any]:
    return {"explicit": run.explicit, "verbose": args.verbose, "compact": args.compact, "color": _color(args)}


class _Run:
    """The targets of one run, each with its open client, live state and plan."""

    def __init__(self) -> None:
        self.items: list[tuple[Any, Any, Any, Any]] = []  # (route, client, live, plan)
        self.explicit: dict[tuple[str, str | None, str], frozenset[str]] | None = None  # fields the manifests set
        self.estate: Any = None  # the manifests the plans come from

    def close(self) -> None:
        for _, client, _, _ in self.items:
            client.close()

    @property
    def plans(self) -> Any:
        from .plan import PlanSet

        return PlanSet([plan for _, _, _, plan in self.items])


@gc_paused()  # reconciler.gcpause: load, lint and plan allocate much and free little
def _make_plans(args: argparse.Namespace, run: _Run) -> None:
    from .client import JsClient, TargetError, resolve_context, target_from_args
    from .dataloss import measure_limit_loss
    from .limits import read_limits
    from .live import read_live
    from .plan import build_plan, desired_from_estate
    from .route import route_estate

    config = _config(args)
    estate = _estate(args, config)
    run.explicit = _explicit(estate)
    run.estate = estate
    if getattr(args, "prune", False) and not config.estate:
        print("jsops: note: no estate: in the jsops config; --prune considers only owned objects that record no estate. "
              "Set one (estate: NAME) where several repositories share a server.", file=sys.stderr)
    default = target_from_args(args, config)
    _say_target(default)
    explicit = not default.origin.startswith("the default server")  # a flag, variable or context named it
    def resolve(name: str) -> Any:
        try:
            return resolve_context(name, config, accounts=getattr(estate, "accounts", None))
        except TargetError as exc:
            raise TargetError(f"manifests route objects to context {name!r}: {exc}") from None

    for route in route_estate(estate, default, resolve, explicit=explicit):
        client = JsClient(route.target)
        run.items.append((route, client, None, None))
        live = read_live(client)
        limits = read_limits(client, route.target, config.target)
        _live_gate(estate, config, limits, route)
        desired = desired_from_estate(estate, contexts=route.contexts, target=limits)
        measure_limit_loss(client, live, {d.name: d.config for d in desired if d.kind == "Stream"})
        plan = build_plan(desired, live, _options(args, route.contexts, estate, config), target=route.target.display())
        plan.context, plan.contexts = route.name, tuple(route.contexts)
        run.items[-1] = (route, client, live, plan)


PLAN_EPILOG = """\
examples:
  jsops plan                          # the config's paths (else .) against the resolved target
  jsops plan manifests/ -s nats://nats.example.com:4222
  jsops plan --context prod --out plan.json && jsops apply --plan plan.json
  jsops plan --detailed-exitcode      # CI drift gate: exit 2 when there are changes
  NATS_CONTEXT=staging jsops plan --compact

exit codes:
  0  the plan was made, with or without changes (as terraform plan)
  1  error (cannot connect, lint errors in the manifests, bad plan file, ...)
  2  with --detailed-exitcode: there are changes; otherwise an argument error (usage)
"""


def _plan(argv: list[str]) -> int:
    p = _parser("plan", "Show what apply would change on the targets.", PLAN_EPILOG)
    p.add_argument("paths", nargs="*", metavar="PATH", help="manifest files or directories (default: the config's paths, else .)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--out", metavar="FILE", help="also write the plan as JSON (for apply --plan)")
    p.add_argument("--env", metavar="NAME", help="render *.yaml.j2 templates with environments/NAME.yaml")
    p.add_argument("--detailed-exitcode", action="store_true",
                   help="exit 0 when there are no changes, 2 when there are, 1 on errors (as terraform plan -detailed-exitcode)")
    _view_args(p)
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
        _write(args.out, _saved(args, run))
    sys.stdout.write(render_json(plans) if args.format == "json" else render_plans(plans, **_view(args, run)))
    return 2 if plans.changed and args.detailed_exitcode else 0


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise _Exit(1, f"jsops: error: cannot write {path}: {exc.strerror or exc}") from None


def _saved(args: argparse.Namespace, run: _Run) -> str:
    """The saved plan: the plans bound to their PATHs, environment and manifests (see reconciler.saved)."""
    from .plan import source_path
    from .render_json import render_saved
    from .saved import manifest_digest

    estate = run.estate
    binding = {
        "paths": [source_path(p) for p in (args.paths or ["."])],
        "env": args.env,
        "manifests": manifest_digest(estate.files, estate.rendered),
        "files": len(set(estate.files)),
    }
    return render_saved(run.plans, binding)


def _refuse(message: str) -> _Exit:
    return _Exit(1, f"jsops: error: {message}; nothing was applied")


def _saved_plans(args: argparse.Namespace, run: _Run) -> None:
    """Open the targets of a saved plan and check that it still holds: unedited, made from these
    manifests (PATHs, environment, content), for these targets, whose live states still match
    it, and asking only for actions jsops may take with the flags given to apply."""
    from .client import JsClient, resolve_context, target_from_args
    from .live import read_live
    from .plan import PlanError, PlanSet, repo_root, seal_intact, source_path
    from .route import Route
    from .saved import manifest_digest, recheck

    name = args.plan_file
    try:
        with open(name, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise _Exit(1, f"jsops: error: cannot read {name}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise PlanError(f"{name} is not valid JSON: {exc}") from None
    saved = PlanSet.from_json(data)
    binding = saved.binding
    if binding is None:
        raise _refuse(f"{name} is not bound to manifests and a live state (write saved plans with `jsops plan --out FILE`)")
    if not seal_intact(data):
        raise _refuse(f"{name} was changed after `jsops plan --out` wrote it (its digest does not match); run plan again")
    recorded = binding.get("paths")
    if not isinstance(recorded, list) or not recorded or not all(isinstance(p, str) and p for p in recorded):
        raise _refuse(f"{name}: the binding's 'paths' must be a non-empty list of paths")
    given = [source_path(p) for p in args.paths]
    if args.paths and given != recorded:
        raise _refuse(f"{name} was made from {' '.join(recorded)}, not {' '.join(given)}")
    if args.env is not None and args.env != binding.get("env"):
        raise _refuse(f"{name} was made with --env {binding.get('env')}, not --env {args.env}")
    root = repo_root()
    args.paths = args.paths or [p if os.path.isabs(p) else os.path.join(root, p) for p in recorded]
    args.env = binding.get("env")
    config = _config(args)
    estate = _estate(args, config)  # a saved plan still comes from lint-clean manifests
    run.estate = estate
    if manifest_digest(estate.files, estate.rendered) != binding.get("manifests"):
        raise _refuse(f"the manifests under {' '.join(recorded)} (from {root}) are not those {name} was made from "
                      "(they changed since, or the plan was made in another directory); run plan again")
    for plan in saved.plans:
        target = (target_from_args(args, config) if plan.context == "default"
                  else resolve_context(plan.context, config, accounts=getattr(estate, "accounts", None)))
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
    refused = []
    for route, _, live, plan in run.items:
        opt = _options(args, route.contexts, estate, config)
        for a in plan.actions:
            why = recheck(a, live, opt)
            if why:
                refused.append(f"  {a.label} ({a.action}): {why}")
    if refused:
        raise _Exit(1, f"jsops: error: {name} asks for actions jsops may not take; nothing was applied:\n" + "\n".join(refused))


class _Interrupted(BaseException):
    """SIGINT or SIGTERM before anything was sent. A BaseException, like KeyboardInterrupt, so
    that no ``except Exception`` on the way (the manifest loader has some) mistakes it for an error."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_signals(handler: Any) -> list[tuple[int, Any]]:
    """Install ``handler`` for SIGINT and SIGTERM (a CI cancel sends SIGTERM); returns the old ones."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return []
    return [(sig, signal.signal(sig, handler)) for sig in (signal.SIGINT, signal.SIGTERM)]


APPLY_EPILOG = """\
examples:
  jsops apply                         # show the plan, ask, then apply it
  jsops apply manifests/ --yes        # no question (CI); progress is printed per object
  jsops apply --plan plan.json --yes  # apply a saved plan if the live state still matches it
  jsops apply --prune --allow-recreate --allow-data-loss   # destructive changes are opt-in

exit codes:
  0  the targets match the manifests (or there was nothing to do)
  1  not converged (failed or blocked actions, cancelled), or an error
  2  argument error (usage)
"""


def _apply(argv: list[str]) -> int:
    p = _parser("apply", "Make the targets match the manifests.", APPLY_EPILOG)
    p.add_argument("paths", nargs="*", metavar="PATH", help="manifest files or directories (default: the config's paths, else .)")
    p.add_argument("--plan", metavar="FILE", dest="plan_file", help="apply this saved plan if the live state still matches it")
    p.add_argument("--yes", "-y", action="store_true",
                   help="do not ask for confirmation (the plan is then summed up in one line, not printed in full)")
    p.add_argument("--env", metavar="NAME", help="render *.yaml.j2 templates with environments/NAME.yaml")
    _view_args(p)
    p.add_argument("--read-back-wait", metavar="DURATION", default="30s", type=_seconds,
                   help="when the server stops answering mid-apply, how long to wait for it to read back what it did "
                        "with the requests in flight (Go duration or integer nanoseconds; default 30s)")
    _safety_args(p)
    args = p.parse_args(argv)
    import signal

    from .apply import Stop

    stop = Stop()
    sending = [False]

    def on_signal(signum: int, _frame: Any) -> None:
        # Before anything is sent, stop at once; while applying, let the requests in flight finish.
        stop.set(signum)
        if not sending[0]:
            raise _Interrupted(signum)

    installed = _on_signals(on_signal)
    run = _Run()
    try:
        return _apply_run(args, run, stop, sending)
    except (_Interrupted, KeyboardInterrupt) as exc:
        signum = getattr(exc, "signum", signal.SIGINT)
        print(f"\nInterrupted ({signal.Signals(signum).name}) before anything was sent; nothing was changed.", file=sys.stderr)
        return 128 + int(signum)
    finally:
        for sig, old in installed:
            signal.signal(sig, old)
        run.close()


EXPORT_EPILOG = """\
examples:
  jsops export exported/              # the resolved target (see 'target' above)
  jsops export --context prod prod-manifests/
  NATS_URL=nats://nats.example.com:4222 jsops export exported/

Sizes and durations are written as people write them (1GiB, 3d).

exit codes:
  0  written
  1  error (cannot connect, cannot write)
  2  argument error (usage)
"""


def _apply_run(args: argparse.Namespace, run: _Run, stop: Any, sending: list[bool]) -> int:
    from .apply import execute_plan
    from .render_text import outcome_lines, render_plans, summary_line
    from .vocabulary import ActionKind

    if args.plan_file:
        _saved_plans(args, run)
    else:
        _make_plans(args, run)
    plans = run.plans
    if not plans.changed:
        for plan in plans.plans:
            print(f"No changes. {plan.target} matches the manifests.")
        return 0
    if args.yes and not args.verbose:  # the progress lines below name every object: no plan twice
        print(summary_line(plans))
    else:
        sys.stdout.write(render_plans(plans, **_view(args, run)))
    if not args.yes:
        if not sys.stdin.isatty():
            raise _Exit(1, "jsops: error: apply needs --yes when not run interactively")
        answer = input("\nApply these actions? Only 'yes' is accepted: ")
        if answer.strip() != "yes":
            print("Apply cancelled.")
            return 1
    total = sum(len(plan.actions) for _, _, _, plan in run.items if plan.changed)
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
    for route, client, live, plan in run.items:
        if not plan.changed:
            continue
        if not stop:  # after an interruption the targets left are only counted as not attempted
            print(f"\n{plan.target} (context {', '.join(route.contexts)}):" if many else "", flush=True)
        opt = _options(args, route.contexts, run.estate, _config(args))
        outcome = execute_plan(client, plan, live, opt, progress=progress, stop=stop, verify=True,
                               read_back=args.read_back_wait, notify=notify)
        results.extend(outcome.results)
    for line in outcome_lines(results, stop.name if stop else None):
        print(line)
    if stop:
        return 128 + int(stop.signum)
    return 0 if all(r.status == "done" for r in results) else 1


def _export(argv: list[str]) -> int:
    p = _parser("export", "Write the target's streams and consumers as native manifests.", EXPORT_EPILOG)
    p.add_argument("out_dir", metavar="OUT_DIR", help="directory for the manifests (one file per stream, with its consumers)")
    args = p.parse_args(argv)
    from .client import JsClient, target_from_args
    from .export import write_export
    from .live import read_live

    target = target_from_args(args, _config(args))
    _say_target(target)
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
