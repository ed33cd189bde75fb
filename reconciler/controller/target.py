"""One target's part of a controller round: connect, read, plan once, authorize the plan by the
annotations (:mod:`jsops.reconciler.controller.policy`, :func:`jsops.reconciler.plan.authorize`), check the plan against the live estate as ``jsops apply``
does (:func:`jsops.reconciler.preflight.preflight`: what the server would refuse is blocked with its
err_code, and so is everything that depends on it, before any request), report drift, and apply
when this controller leads there.

A predicted refusal is reported as the refusal itself would have been: the object's sync state is
``error``, the error is counted and logged with the server's err_code (type ``api``) in every
round it stays, and the round fails; nothing is sent for it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from jsops.linter import Config, Kind

from ..apply import ApplyReport, execute_plan
from ..client import JsClient, Target
from ..dataloss import measure_limit_loss
from ..discover import read_plan_limits
from ..dr_roles import failed_over, follow
from ..drift import hold, ignored_in_estate, merged
from ..drift.switch import with_record
from ..interestloss import measure_filter_loss
from ..live import LiveState, read_live
from ..plan import Desired, Plan, PlanItem, PlanOptions, authorize, plan_changes, prune_scope, repo_identity
from ..plan.closure import close
from ..plan.decide import decide
from ..preflight import preflight
from ..render_refusal import reason_of
from ..vocabulary import ActionKind, Outcome
from .heard import Listener
from .policy import Policy, blocked_need, policy_from_estate
from .tugs import Tugs

if TYPE_CHECKING:
    from ..drift import Heard
    from ..plan import ServerStorage
    from .host import Controller
    from .lease import Lease
    from .source import Revision

__all__ = ["TargetRun", "plan_options", "read_and_plan"]

StateKey = tuple[str, str, str]  # (kind, stream, name)


class TargetRun:
    """What the controller keeps per target: its connection, lease and last round's results."""

    def __init__(self, name: str, target: Target, contexts: list[str]) -> None:
        self.name = name  # the context naming the target (route.name); the metrics' context label
        self.target = target
        self.contexts = contexts
        self.client: JsClient | None = None
        self.lease: Lease | None = None
        self.last_drift: list[dict[str, Any]] = []
        # the manifests' configs at the last round: an action on an object whose config changed since is the
        # new revision's `change`, one on an object whose manifest stayed the same is `drift` (None: no round yet)
        self.last_desired: dict[StateKey, object] | None = None
        self.states: dict[StateKey, str] = {}  # (kind, stream, name) -> sync state
        self.blocked: dict[str, float] = {}  # needs -> objects
        self.drift = 0
        self.pending = 0
        self.tugs = Tugs(0, 600.0)  # the loop sets its thresholds (jsops.reconciler.controller.tugs)
        self.listener: Listener | None = None  # --advisory-subscription (jsops.reconciler.controller.heard)
        self.listener_failed: str | None = None  # the last reason logged (advisories_unheard)

    def drop_client(self) -> None:
        if self.client is not None:
            try:
                self.client.close()
            except Exception:
                pass
            self.client = None

    def close(self) -> None:
        if self.lease is not None:
            self.lease.stop()
            self.lease = None
        if self.listener is not None:
            self.listener.close()
            self.listener = None
        self.drop_client()

    def heard(self, ctl: Controller) -> Heard | None:
        """What this target's own subscription heard (started at the first round, with
        ``--advisory-subscription``); a subscription that does not hear is logged once (``advisories_unheard``)."""
        if not ctl.options.advisory_subscription:
            return None
        if self.listener is not None and not self.listener.alive:  # it could not connect: try again
            self.listener.close()
            self.listener = None
        if self.listener is None:
            self.listener = Listener(self.target)
        failed = self.listener.failed
        if failed is not None and failed != self.listener_failed:
            ctl.log("advisories_unheard", context=self.name, reason=failed)
        self.listener_failed = failed
        return self.listener.heard()

    def connect(self, log: Callable[..., None]) -> JsClient:
        if self.client is not None and self.client.connection_lost:
            log("disconnected", target=self.target.display(), context=self.name)
            self.drop_client()
        if self.client is None:
            self.client = JsClient(self.target)
            log("connected", target=self.target.display(), context=self.name)
        return self.client

    def reconcile(self, ctl: Controller, rev: Revision) -> dict[str, Any]:
        """Read, plan and apply on this target (errors propagate to the caller, which counts them)."""
        client = self.connect(ctl.log)
        live, desired, wanted, policy, base, storage = read_for_plan(
            client, self.target, rev, self.contexts, ctl.options.paths, ctl.options.config
        )

        def planned(desired: list[Any]) -> Plan:
            return plan_for(client, self.target, desired, live, base, policy, storage)

        def log(event: str, **fields: object) -> None:
            ctl.log(event, context=self.name, **fields)

        self.tugs.writes = ctl.leader(self.name)  # only the leader counts and writes the state (never in a dry run)
        plan = planned(self.tugs.held(client, live, wanted, log))  # quarantined fields keep their live values
        if self.tugs.observe(
            client, live, plan, wanted, self.name, log, heard=self.heard(ctl)
        ):  # a tug-of-war found: not healed from this round on
            plan = planned(self.tugs.held(client, live, wanted, log))
        states: dict[StateKey, str] = {(d.kind, d.stream or "", d.name): "synced" for d in desired}
        self._report_drift(ctl, plan, states, {(d.kind, d.stream or "", d.name): d.config for d in desired})
        refused = self._report_refused(ctl, plan)

        ok = not refused
        applied = 0
        lease = self.lease
        leader = ctl.leader(self.name) and (lease is None or lease.held(margin=lease.ttl * 0.25))
        if any(a.action != ActionKind.BLOCKED for a in plan.actions) and leader:
            # runs what authorize did not block; every write passes the lease's fence
            outcome = execute_plan(client, plan, live, base, fence=lease.fence() if lease is not None else None)
            done, applied = self._record(ctl, client, outcome, states)
            ok = ok and done
        self.states = states
        self.pending = sum(1 for s in states.values() if s != "synced")
        return {
            "ok": ok,
            "leader": leader,
            "drift": len(plan.actions),
            "applied": applied,
            "pending": self.pending,
            "blocked": sum(int(v) for v in self.blocked.values()),
        }

    def _report_drift(
        self, ctl: Controller, plan: Plan, states: dict[StateKey, str], desired: dict[StateKey, object]
    ) -> None:
        """Log the plan's actions (once while they stay the same) and count what is blocked: ``change`` for an
        object whose manifest changed since the last round (or the first round's), ``drift`` for one whose
        manifest stayed the same while the server's object departed from it."""
        blocked: dict[str, float] = {}
        drift = []
        for a in plan.actions:
            key = (a.kind, a.stream or "", a.name)
            if a.action == ActionKind.BLOCKED and a.err_code is not None:
                states[key] = (
                    "error"  # the server would refuse it: an error (_report_refused), not a missing permission
                )
            elif a.action == ActionKind.BLOCKED:
                states[key] = "blocked"
                need = blocked_need(a)
                blocked[need] = blocked.get(need, 0) + 1
            else:
                states[key] = "out_of_sync"
            before = self.last_desired
            changed = before is None or before.get(key) != desired.get(key)
            record: dict[str, Any] = {
                "event": "change" if changed else "drift",
                "object": a.label,
                "action": a.action,
                "wanted": a.wanted,
                "changes": [c.path for c in a.changes],
                "reason": reason_of(a),
                "consequence": a.consequence,
                **({"err_code": a.err_code} if a.err_code is not None else {}),
                # what a blocked change waits for (the notices tell a refused data loss apart)
                **(
                    {"needs": [p.value for p in a.refusal.missing], "data_loss": a.data_loss}
                    if a.refusal is not None
                    else {}
                ),
                **({"changed_by": self.tugs.authors[key]} if key in self.tugs.authors else {}),  # docs/drift.md
            }
            drift.append({k: v for k, v in record.items() if v is not None or k == "data_loss"})  # null: none counted
        if drift != self.last_drift:  # the same drift (say, a blocked change) is reported once, not every round
            for d in drift:
                ctl.log(d["event"], context=self.name, **{k: v for k, v in d.items() if k != "event"})
        self.last_drift = drift
        self.last_desired = desired
        self.drift = len(plan.actions)
        self.blocked = blocked

    def _report_refused(self, ctl: Controller, plan: Plan) -> list[PlanItem]:
        """The actions the server would refuse (blocked by the preflight with its err_code): each
        is an error of this round, counted and logged with that err_code (its state is ``error``)."""
        refused = [a for a in plan.actions if a.action == ActionKind.BLOCKED and a.err_code is not None]
        for a in refused:
            ctl.count_error("api", f"{a.label}: {reason_of(a)}", err_code=a.err_code, context=self.name)
        return refused

    def _record(
        self, ctl: Controller, client: JsClient, outcome: ApplyReport, states: dict[StateKey, str]
    ) -> tuple[bool, int]:
        """Count and log what the apply did; whether every action was done, and how many were."""
        ok = True
        applied = 0
        fenced = [r for r in outcome.results if r.fenced]
        for r in outcome.results:
            key = (r.action.kind, r.action.stream or "", r.action.name)
            if r.status == Outcome.BLOCKED or r.fenced:
                continue
            ctl.metrics.inc("actions_total", self.name, r.action.wanted or r.action.action, r.status)
            ctl.log(
                "action",
                context=self.name,
                object=r.action.label,
                action=r.action.action,
                status=r.status,
                detail=r.detail,
            )
            if r.status == Outcome.DONE:
                applied += 1
                if r.action.action == ActionKind.DELETE:
                    states.pop(key, None)
                else:
                    states[key] = "synced"
            elif r.status == Outcome.FAILED:
                ok = False
                states[key] = "error"
                lost = client.connection_lost and r.err_code is None
                ctl.count_error("connection" if lost else "api", r.detail, err_code=r.err_code, context=self.name)
            else:
                ok = False
        if fenced:
            # one event for the lot: the lease was lost mid-round and the fence stopped the writes
            reason = next((r.detail for r in fenced if r.detail.startswith("not sent: ")), fenced[0].detail)
            ctl.count_error(
                "lease",
                f"lease lost: stopped before {len(fenced)} writes ({applied} done in this round)",
                context=self.name,
            )
            ctl.log(
                "lease_lost",
                context=self.name,
                stopped_before=len(fenced),
                done=applied,
                reason=reason.removeprefix("not sent: "),
            )
            ok = False
        if client.connection_lost:
            self.drop_client()
        return ok, applied


def read_for_plan(
    client: JsClient, target: Target, rev: Revision, contexts: list[str], paths: list[str], config: Config | None
) -> tuple[LiveState, list[Desired], list[Desired], Policy, PlanOptions, ServerStorage | None]:
    """Read the target for a plan of ``rev``'s objects of ``contexts`` (read requests only): the live state,
    the desired objects, those with the fields an application owns (``jsops.io/ignore-drift``) kept at their
    live values, what the annotations allow, the plan's options and, with a monitor URL, a standalone
    server's own JetStream storage (read as ``jsops plan --monitor`` reads it)."""
    live = read_live(client)
    limits, storage = read_plan_limits(client, target, getattr(config, "target", None))
    record = config.drift.record if config is not None else None  # drift.record: the record of API changes
    declared = with_record(rev.desired(contexts, limits), record, contexts, limits)
    desired, policy = policy_from_estate(rev.estate, declared, contexts)
    desired = follow(desired, live)  # a failover's consumers on the active side (jsops.reconciler.dr_roles)
    # jsops.io/ignore-drift: never healed; a failover's roles: never undone (jsops.reconciler.dr_roles)
    wanted = hold(desired, live, merged(ignored_in_estate(rev.estate, contexts), failed_over(desired, live)))[0]
    # what tightened max_age / max_msgs_per_subject would remove, so that the plan counts it as data loss
    measure_limit_loss(client, live, {d.name: d.stream_config for d in wanted if d.kind == Kind.STREAM})
    measure_filter_loss(client, live, wanted)
    base = replace(
        plan_options(rev, contexts, paths, getattr(config, "estate", None)), server_version=limits.server_version
    )
    return live, desired, wanted, policy, base, storage


def plan_for(
    client: JsClient,
    target: Target,
    desired: list[Desired],
    live: LiveState,
    base: PlanOptions,
    policy: Policy,
    storage: ServerStorage | None = None,
) -> Plan:
    """The round's one plan of ``desired``: authorized by the annotations, closed over what a block keeps,
    and checked against the live estate (and ``storage``, a standalone server's own) for the server's
    refusals (as jsops apply predicts them)."""
    draft = plan_changes(desired, live, base, target=target.display())
    plan = close(decide(draft, authorize(draft, policy.grants(), live)), live)
    return preflight(client, plan, live, storage)


def read_and_plan(
    client: JsClient, target: Target, rev: Revision, contexts: list[str], paths: list[str], config: Config | None
) -> tuple[Plan, LiveState, list[Desired], PlanOptions]:
    """Read the target and plan ``rev``'s objects of ``contexts`` as a round does (read requests
    only): the plan, the live state, the desired objects and the plan's options."""
    live, desired, wanted, policy, base, storage = read_for_plan(client, target, rev, contexts, paths, config)
    return plan_for(client, target, wanted, live, base, policy, storage), live, desired, base


def plan_options(rev: Revision, contexts: list[str], paths: list[str], estate: str | None) -> PlanOptions:
    """Prune scope as ``jsops apply`` sets it: owned objects recorded under the PATHs and in this
    target's contexts; a recorded manifest path that moved is updated. The estate identity
    (``estate:`` in the jsops config) scopes prune and takeover as in ``jsops apply``."""
    prune_paths, stale = prune_scope(rev.estate, paths)
    return PlanOptions(
        keep_position=True,
        prune_paths=prune_paths,
        prune_contexts=frozenset(contexts),
        stale_source=stale,
        estates=True,
        estate=estate,
        repo=None if estate else repo_identity(),
    )
