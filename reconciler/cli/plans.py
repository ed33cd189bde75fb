"""The plans of one ``jsops plan`` or ``jsops apply`` run: the manifests (refused with lint errors),
the targets they route to, each target's live state and plan, or a saved plan checked again.

Errors end the command with :class:`jsops.linter.cli.kit.Exit` (exit 1) or raise the reconciler's errors,
which :func:`jsops.linter.cli.kit.run` prints as one line.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from jsops.linter import gc_paused
from jsops.linter.cli.kit import Exit, config_from_args, use_color
from jsops.linter.exitcodes import ExitCode

if TYPE_CHECKING:
    from jsops.linter import Config, Estate

    from ..client import JsClient
    from ..drift import Attribution, Held
    from ..drift.held import ObjectKey
    from ..live import LiveState
    from ..plan import Plan, PlanOptions, PlanSet
    from ..route import Route

__all__ = ["Run", "TargetRun", "make_plans", "saved_plans", "plan_options", "say_target", "view_options"]

_MAX_SHOWN = 20  # lint errors listed before "... and N more"

Explicit = dict[tuple[str, str | None, str], frozenset[str]]
_DRIFTABLE = frozenset(
    {"update", "recreate", "blocked", "migrate"}
)  # actions on a live object whose changes may be drift


@dataclass(frozen=True)
class TargetRun:
    """One target of a run: where the manifests route (its contexts), its open client, its live
    state and its plan."""

    route: Route
    client: JsClient
    live: LiveState
    plan: Plan
    drift: Attribution | None = None  # who changed its drifted fields (jsops.reconciler.drift), beside the plan


class Run:
    """The targets of one run, each with its open client, live state and plan."""

    def __init__(self) -> None:
        self.items: list[TargetRun] = []
        self.clients: list[JsClient] = []  # every client opened (closed by close(), planned or not)
        self.explicit: Explicit | None = None  # fields the manifests set
        self.estate: Estate | None = None  # the manifests the plans come from

    def close(self) -> None:
        for client in self.clients:
            client.close()

    @property
    def plans(self) -> PlanSet:
        from ..plan import PlanSet

        return PlanSet([t.plan for t in self.items])

    @property
    def attribution(self) -> Attribution:
        """Who changed the drifted fields of every target's plan (none without audit records)."""
        from ..drift import NO_ATTRIBUTION

        out = NO_ATTRIBUTION
        for t in self.items:
            if t.drift is not None:
                out = out.merged(t.drift)
        return out


def view_options(args: argparse.Namespace, run: Run) -> dict[str, Any]:
    """How the plans are shown (``render_plans`` keywords): the fields the manifests set, the
    view flags, colours (:func:`jsops.linter.cli.kit.use_color`) and who changed drifted fields."""
    return {
        "explicit": run.explicit,
        "verbose": args.verbose,
        "compact": args.compact,
        "color": use_color(args),
        "drift": run.attribution,
    }


def plan_options(args: argparse.Namespace, contexts: Any = None, estate: Any = None, config: Any = None) -> PlanOptions:
    """The safety options; with ``estate``, prune is scoped to the PATHs and ``contexts``, and with
    ``config`` to its estate identity (``estate:``)."""
    from ..plan import PlanOptions, prune_scope, repo_identity, repo_root

    opt = PlanOptions(
        prune=args.prune,
        adopt=frozenset(args.adopt),
        allow_recreate=args.allow_recreate,
        allow_data_loss=args.allow_data_loss,
        keep_position=not args.reset_position,
        migrate=getattr(args, "migrate", False),
    )
    if config is not None:
        mark = getattr(
            config, "estate", None
        )  # without one, objects record the repository, and --prune deletes only this one's
        root = repo_root(args.paths or ())  # the manifests' repository, whatever the working directory
        opt = replace(opt, estates=True, estate=mark, repo=repo_identity(root) if mark is None else None)
    if estate is None:
        return opt
    paths, stale = prune_scope(estate, args.paths or ["."])
    return replace(
        opt, prune_paths=paths, stale_source=stale, prune_contexts=frozenset(contexts) if contexts is not None else None
    )


def _paths(args: argparse.Namespace, config: Any) -> list[str]:
    """The PATHs given, else the config's ``paths`` (as ``jsops lint``), else ``.``."""
    return list(args.paths) or [config.resolve_path(p) for p in getattr(config, "paths", None) or ()] or ["."]


def _error_lines(errors: list[Any]) -> str:
    """One line per error as ``jsops lint`` prints it (the first few; a line a template repeats for each
    object it renders is shown once)."""
    from jsops.linter import finding_line

    lines = list(dict.fromkeys(finding_line(f) for f in errors))
    more = f"\n... and {len(lines) - _MAX_SHOWN} more" if len(lines) > _MAX_SHOWN else ""
    return "\n".join(lines[:_MAX_SHOWN]) + more


def _load(args: argparse.Namespace, config: Any, meanwhile: Callable[[], None] | None = None) -> Any:
    """The manifests under the PATHs (not yet judged: see :func:`_offline_gate`, :func:`_live_gate`);
    ``meanwhile`` runs while they are parsed (:func:`jsops.linter.load_paths`)."""
    from jsops.linter import Config, LoadError, load_paths

    paths = args.paths = _paths(args, config)  # prune is scoped to these too
    try:
        # Never the parse cache: whoever can write it must not decide what is applied (--no-cache is implied).
        # the files read as lint and the controller read them: the config's excludes, consumer-streams and
        # nack-version (NACK files judged by the CRDs of that release)
        cfg = config if config is not None else Config()
        estate = load_paths(
            paths,
            env=getattr(args, "env", None),
            meanwhile=meanwhile,
            cache=False,
            exclude=cfg.exclude,
            consumer_streams=cfg.consumer_stream_globs(),
            nack_version=cfg.nack_version,
        )
    except LoadError as exc:
        raise Exit(f"jsops: error: {exc}", ExitCode.ERROR) from None
    if not estate.resources:
        print(
            f"jsops: warning: no streams or consumers in {', '.join(paths)}; the plan can only delete (with --prune)",
            file=sys.stderr,
        )
    return estate


def _lint_refusal(args: argparse.Namespace, errors: list[Any]) -> Exit:
    """The manifests' lint errors, and the ``jsops lint`` command that shows them with their fixes."""
    env = getattr(args, "env", None)
    again = " ".join(
        [
            "jsops lint",
            *(shlex.quote(p) for p in args.paths),
            *(["--env", shlex.quote(env)] if env else []),
            *(["--config", shlex.quote(args.config)] if args.config else []),
            *(["--no-config"] if args.no_config else []),
        ]
    )
    return Exit(
        _error_lines(errors)
        + f"\njsops: error: the manifests have {len(errors)} lint error(s) (above); `{again}` shows them with their fixes",
        ExitCode.ERROR,
    )


def _offline_gate(args: argparse.Namespace, estate: Any, config: Any, plans: Any = None) -> None:
    """Refuse manifests with lint errors, judged against the config's target: those of the objects
    ``plans`` act on, or without plans (the targets could not be read: any object might be
    created) every error."""
    from ..preflight import gate_lint, judged

    if plans is None:
        errors = gate_lint(estate, config, env=getattr(args, "env", None)).errors
    else:
        acted = {k for p in plans for k in _acted(p)}
        found = gate_lint(estate, config, objects=acted, env=getattr(args, "env", None))
        errors = sorted({id(f): f for p in plans for f in judged(found, p)}.values(), key=lambda f: f.sort_key())
    if errors:
        raise _lint_refusal(args, errors)


def _acted(plan: Any) -> set[tuple[str, str, str | None]]:
    from ..preflight import acted_on

    return acted_on(plan)[0]


def _live_gate(args: argparse.Namespace, estate: Any, config: Any, live_target: Any, route: Any, plan: Any) -> None:
    """Lint the objects the plan acts on with what the live server says about itself (release,
    cluster or standalone, max_payload, limits): a plan against a standalone server knows that R3
    is refused before any request is sent. Create-only rules count for the objects the plan
    creates; a plan without changes runs no rule (only the loader's errors count: a manifest that
    did not load is in no plan, and with ``--prune`` its object would be deleted)."""
    from ..preflight import LOADER_CODES, gate_lint, judged

    wanted = set(route.contexts)
    routed = {(r.kind, r.name, r.stream) for r in estate.resources if r.context in wanted}
    found = gate_lint(
        estate,
        config.model_copy(update={"target": live_target}),
        objects=_acted(plan) & routed,
        env=getattr(args, "env", None),
    )
    errors = [
        f
        for f in judged(found, plan)  # the loader's errors count for every target: the object may not have loaded
        if f.object is None or f.rule in LOADER_CODES or (f.object.kind, f.object.name, f.object.stream) in routed
    ]
    if not errors:
        return
    if any(f.object is None or f.rule in LOADER_CODES or f.server_error_code is None for f in errors):
        raise _lint_refusal(args, errors)  # not (only) what the server would refuse: the manifests' errors
    version = f"nats-server {live_target.server_version}" if live_target.server_version else "the server"
    shape = (
        "standalone"
        if live_target.clustered is False
        else (f"a cluster of {live_target.cluster_size}" if live_target.cluster_size else "")
    )
    raise Exit(
        _error_lines(errors) + f"\njsops: error: {route.target.display()} ({version}{', ' + shape if shape else ''}) "
        f"would refuse {len(errors)} object(s); nothing was sent",
        ExitCode.ERROR,
    )


def _explicit(estate: Any) -> Explicit:
    """The config fields each manifest sets (the plan lists these; the rest are server defaults)."""
    out: Explicit = {}
    for r in estate.resources:
        fields = getattr(r.config, "model_fields_set", None)
        if fields is not None:
            out[(r.kind, r.stream if r.kind == "Consumer" else None, r.name)] = frozenset(fields)
    return out


def say_target(target: Any) -> None:
    from ..client import describe_target

    print(f"jsops: {describe_target(target)}", file=sys.stderr)


class _Early:
    """The default target, opened and read while the manifests are parsed: the read mostly waits on
    the server, the parse keeps this process busy meanwhile (``meanwhile`` of
    :func:`jsops.linter.load_paths`). Only a target a flag, variable or context names (a target left to
    the default may not be planned at all). Its errors are raised where the target is used, as
    they would be without it."""

    def __init__(self, args: argparse.Namespace, config: Any) -> None:
        from ..client import target_from_args

        self.client: Any = None
        self.live: Any = None
        self.error: Exception | None = None
        self.read_early = False
        try:
            self.target: Any = target_from_args(args, config)
        except Exception as exc:  # raised by default(), after the manifests' errors
            self.target, self.error = None, exc

    @property
    def explicit(self) -> bool:
        """A flag, variable or context named the default target."""
        return self.target is not None and not self.target.origin.startswith("the default server")

    def default(self) -> Any:
        if self.target is None:
            assert self.error is not None
            raise self.error
        return self.target

    def read(self) -> None:
        from ..client import JsClient
        from ..live import read_live

        if not self.explicit:
            return
        self.read_early = True
        try:
            self.client = JsClient(self.target)
            self.live = read_live(self.client)
        except Exception as exc:  # raised by take(), where the target is planned
            self.error = exc
        except BaseException:
            self.close()
            raise

    def take(self, target: Any) -> tuple[Any, Any]:
        """The open client and live state of ``target`` when it was read early, else (None, None)."""
        if target is not self.target or not self.read_early:
            return None, None
        if self.error is not None:
            raise self.error
        client, self.client = self.client, None
        return client, self.live

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


@gc_paused()  # jsops.linter.gcpause: load, lint and plan allocate much and free little
def make_plans(args: argparse.Namespace, run: Run) -> None:
    """Load the manifests (reading the named target meanwhile: :class:`_Early`), open every target
    they route to, read it, plan it and judge the plan's objects (:func:`_live_gate`). When a
    target cannot be read, the manifests' lint errors (every object's, against the config's
    target) are reported before that failure, as they would be before any connection."""
    config = config_from_args(args)
    early = _Early(args, config)
    try:
        estate = _load(args, config, early.read)
        run.explicit = _explicit(estate)
        run.estate = estate
        if getattr(args, "prune", False) and not config.estate:
            from ..plan import repo_identity, repo_root

            print(
                "jsops: note: no estate: in the jsops config; --prune considers only owned objects that record no estate "
                f"and were applied from this repository ({repo_identity(repo_root(args.paths or ()))}). "
                "Set one (estate: NAME) where several repositories share a server.",
                file=sys.stderr,
            )
        try:
            _plan_targets(args, run, config, estate, early)
        except Exit:
            raise
        except Exception:
            _offline_gate(args, estate, config)
            raise
    finally:
        early.close()


def _plan_targets(args: argparse.Namespace, run: Run, config: Any, estate: Any, early: _Early) -> None:
    from ..client import JsClient, TargetError, resolve_context
    from ..live import read_live
    from ..route import route_estate

    default = early.default()
    say_target(default)
    if getattr(config, "access", None) is not None:
        check_access(estate, config, ["default", default.context])

    def resolve(name: str) -> Any:
        try:
            return resolve_context(name, config, accounts=getattr(estate, "accounts", None))
        except TargetError as exc:
            raise TargetError(f"manifests route objects to context {name!r}: {exc}") from None

    for route in route_estate(estate, default, resolve, explicit=early.explicit):
        client, live = early.take(route.target)
        if client is None:
            client = JsClient(route.target)
        run.clients.append(client)
        if live is None:
            live = read_live(client)
        held: dict[tuple[ObjectKey, str], Held] = {}
        plan = _plan_route(args, client, live, route, config, estate, held)
        run.items.append(
            TargetRun(route, client, live, plan, _attribute(client, live, plan).with_held(plan.context, held))
        )


def _attribute(client: JsClient, live: LiveState, plan: Plan) -> Attribution:
    """Who changed the plan's drifted fields, from the account's audit record (docs/drift.md); a
    record that cannot be read is said on stderr and attributes nothing."""
    from ..client import JsApiError
    from ..drift import NO_ATTRIBUTION, Drifted, attribute_drift

    drifted = [
        Drifted(a.kind, a.stream, a.name, c.path, c.old)
        for a in plan.actions
        for c in a.changes
        if "." not in c.path and a.action in _DRIFTABLE
    ]
    try:
        return attribute_drift(client, live, plan.context, drifted)
    except JsApiError as exc:
        print(
            f"jsops: note: cannot read the audit record of {plan.target}: {exc}; drifted fields are not attributed",
            file=sys.stderr,
        )
        return NO_ATTRIBUTION


def _plan_route(
    args: argparse.Namespace,
    client: JsClient,
    live: LiveState,
    route: Route,
    config: Config,
    estate: Estate,
    held: dict[tuple[ObjectKey, str], Held] | None = None,
) -> Plan:
    """The plan of one target from the manifests and its live state, authorized by the flags of
    ``args`` (:func:`jsops.reconciler.plan.build_plan`), judged by lint and the server's predicted refusals.
    Fields marked ``jsops.io/ignore-drift`` and those the controller quarantined keep their live
    values (``held`` receives those the manifests set otherwise: jsops.reconciler.drift.held)."""
    from ..dataloss import measure_limit_loss
    from ..discover import read_plan_limits
    from ..dr_roles import failed_over, follow
    from ..drift import hold, ignored_in_estate, merged, quarantined_fields
    from ..drift.switch import with_record
    from ..interestloss import measure_filter_loss
    from ..plan import build_plan, desired_from_estate
    from ..plan.closure import close
    from ..preflight import preflight

    limits, storage = read_plan_limits(client, route.target, config.target)  # and a standalone server's own storage
    declared = desired_from_estate(estate, contexts=route.contexts, target=limits)
    declared = with_record(declared, config.drift.record, route.contexts, limits)  # drift.record (docs/drift.md)
    declared = follow(declared, live)
    owned = merged(  # as the controller holds them; a failover's roles until failback (jsops.reconciler.dr_roles)
        ignored_in_estate(estate, route.contexts), quarantined_fields(client, live), failed_over(declared, live)
    )
    desired, kept = hold(declared, live, owned)
    if held is not None:
        held.update(kept)
    measure_limit_loss(client, live, {d.name: d.stream_config for d in desired if d.kind == "Stream"})
    measure_filter_loss(client, live, desired)
    opt = replace(plan_options(args, route.contexts, estate, config), server_version=limits.server_version)
    plan = build_plan(desired, live, opt, target=route.target.display())
    _live_gate(args, estate, config, limits, route, plan)
    plan = close(preflight(client, plan, live, storage), live)  # the server's refusals, predicted, and what they keep
    return replace(plan, context=route.name, contexts=tuple(route.contexts))


def check_access(estate: Any, config: Any, own: list[str]) -> None:
    """Refuse the run when the manifests name a context or Account servers the config's ``access``
    list does not allow them (jsops.reconciler.access)."""
    from ..access import access_refusals
    from ..client import TargetError

    refused = access_refusals(estate, config, own)
    if refused:
        lines = "\n".join(f"  {r}" for r in refused)
        raise TargetError(f"the manifests name targets they may not use; nothing was planned:\n{lines}")


def _refuse(message: str) -> Exit:
    return Exit(f"jsops: error: {message}; nothing was applied", ExitCode.ERROR)


def _read_saved(name: str) -> Any:
    """The saved plan (a :class:`PlanSet`) in file ``name``, refused unless it is bound to
    manifests and unedited."""
    from ..plan import PlanError, PlanSet, seal_intact

    try:
        with open(name, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise Exit(f"jsops: error: cannot read {name}: {exc.strerror or exc}", ExitCode.ERROR) from None
    except ValueError as exc:
        raise PlanError(f"{name} is not valid JSON: {exc}") from None
    saved = PlanSet.from_json(data)
    if saved.binding is None:
        raise _refuse(
            f"{name} is not bound to manifests and a live state (write saved plans with `jsops plan --out FILE`)"
        )
    if not seal_intact(data):
        raise _refuse(
            f"{name} was changed after `jsops plan --out` wrote it (its digest does not match); run plan again"
        )
    return saved


def _saved_estate(args: argparse.Namespace, name: str, binding: dict[str, Any]) -> tuple[Any, Any]:
    """The config and the manifests a saved plan was made from, refused unless the PATHs,
    environment and content are those it is bound to."""
    from ..plan import repo_root, source_path
    from ..saved import manifest_digest

    recorded = binding.get("paths")
    if not isinstance(recorded, list) or not recorded or not all(isinstance(p, str) and p for p in recorded):
        raise _refuse(f"{name}: the binding's 'paths' must be a non-empty list of paths")
    given = [source_path(p) for p in args.paths]
    if args.paths and given != recorded:
        raise _refuse(f"{name} was made from {' '.join(recorded)}, not {' '.join(given)}")
    if args.env is not None and args.env != binding.get("env"):
        raise _refuse(f"{name} was made with --env {binding.get('env')}, not --env {args.env}")
    root = repo_root(args.paths or ())
    args.paths = args.paths or [p if os.path.isabs(p) else os.path.join(root, p) for p in recorded]
    args.env = binding.get("env")
    config = config_from_args(args)
    estate = _load(args, config)
    if manifest_digest(estate.files, estate.rendered) != binding.get("manifests"):
        raise _refuse(
            f"the manifests under {' '.join(recorded)} (from {root}) are not those {name} was made from "
            "(they changed since, or the plan was made in another directory); run plan again"
        )
    return config, estate


def saved_plans(args: argparse.Namespace, run: Run) -> None:
    """Open the targets of a saved plan and check that it still holds: unedited, made from these
    manifests (PATHs, environment, content), for these targets, whose live states still match
    it, and asking only for actions jsops may take; each is derived again and authorized by the
    flags given to apply (apply itself decides nothing)."""
    from ..client import JsClient, resolve_context, target_from_args
    from ..live import read_live
    from ..render_text import stale_lines
    from ..route import Route
    from ..saved import recheck, rederive, rederived
    from ..stale import live_changes

    name = args.plan_file
    saved = _read_saved(name)
    config, estate = _saved_estate(args, name, saved.binding)
    _offline_gate(args, estate, config, saved.plans)  # what a saved plan sends still comes from lint-clean manifests
    run.estate = estate
    if getattr(config, "access", None) is not None:
        check_access(estate, config, ["default", target_from_args(args, config).context])
    for plan in saved.plans:
        target = (
            target_from_args(args, config)
            if plan.context == "default"
            else resolve_context(plan.context, config, accounts=getattr(estate, "accounts", None))
        )
        if plan.target and target.display() != plan.target:
            raise Exit(
                f"jsops: error: the plan for context {plan.context!r} was made for {plan.target}, but the target is now {target.display()}",
                ExitCode.ERROR,
            )
        client = JsClient(target)
        run.clients.append(client)
        live = read_live(client)
        if live.fingerprint() != plan.fingerprint:
            recorded = (saved.binding.get("live") or {}).get(plan.context)
            changed = live_changes(recorded if isinstance(recorded, dict) else None, live, plan)
            raise Exit(
                "\n".join(
                    [
                        f"jsops: error: the live state of {target.display()} changed since the plan was made; run plan again",
                        *stale_lines(changed),
                    ]
                ),
                ExitCode.ERROR,
            )
        run.items.append(
            TargetRun(
                Route(target, list(plan.contexts or (plan.context,))),
                client,
                live,
                replace(plan, target=target.display()),
            )
        )
    refused = []
    for t in run.items:
        opt = plan_options(args, t.route.contexts, estate, config)
        for a in t.plan.actions:
            why = None if a.blocked else recheck(a.intent, t.live, opt)
            if why:
                refused.append(f"  {a.label} ({a.action}): {why}")
    if any(a.action == "reset" for t in run.items for a in t.plan.actions):
        args.reset_position = True  # the plan was made with --reset-position: derived again (and applied) with it
    if not refused:  # every action is derived again from the manifests and the live state, whatever the file says
        for i, t in enumerate(run.items):
            fresh = _plan_route(args, t.client, t.live, t.route, config, estate)  # authorized by apply's own flags
            refused += [f"  {line}" for line in rederive(t.plan, fresh)]
            run.items[i] = replace(t, plan=rederived(t.plan, fresh))
    if refused:
        raise Exit(
            f"jsops: error: {name} asks for actions jsops may not take; nothing was applied:\n" + "\n".join(refused),
            ExitCode.ERROR,
        )
