"""Text of ``jsops failover``: the plan (every step, in order) and the outcome (:mod:`jsops.reconciler.failover`)."""

from __future__ import annotations

import time

from .emergency import CheckResult, EmergencyPlan, EmergencyResult
from .failback import FailbackPlan, FailbackResult
from .failover import FailoverPlan, FailoverResult
from .failover_group import GroupStep

__all__ = [
    "render_failover_plan",
    "render_failover_result",
    "render_failback_plan",
    "render_failback_result",
    "render_emergency_plan",
    "render_emergency_result",
    "render_check",
    "render_group",
]


def _subjects(subjects: tuple[str, ...]) -> str:
    return "[" + ", ".join(subjects) + "]"


def render_failover_plan(plan: FailoverPlan) -> str:
    """Every step of ``plan``, numbered, with what each guarantees; a refused plan says why."""
    s, t = plan.stream, plan.standby
    lines = [f"Failover of {s} (cluster {plan.active_cluster}) to its standby {t} (cluster {plan.standby_cluster}):"]
    if plan.refusal:
        return "\n".join([*lines, f"  refused: {plan.refusal}", ""])
    if plan.promoted:
        lines.append(
            f"  {t} is promoted already (an interrupted failover): only the consumers' ack floors and the record are left"
        )
    elif plan.resumed:
        lines.append(
            f"  {s} is fenced already (an interrupted failover): its fence step is done, publishes wait until the promotion"
        )
    lines.append(f"  now: {s} last sequence {plan.active_last_seq}, {t} last sequence {plan.standby_last_seq}")
    steps = [
        f"wait until {t} holds {s}'s last sequence; compare every message (SHA-256)",
        *(
            f"create consumer {m.name} on {t} at stream sequence {m.start} (ack floor {m.ack_floor} now; moved along if it acknowledges more)"
            for m in plan.consumers
        ),
        f"fence {s}: subjects {_subjects(plan.subjects)} -> [{plan.fence}]; from here no publish is acknowledged on {s} "
        "(publishers get no responders and retry); the write pause starts",
        f"wait until {t} holds {s}'s last sequence; compare the messages since step 1",
        f"remove from {t} what {s} no longer holds (acknowledged on an interest or work-queue stream)",
        f"promote {t}: remove its mirror, subjects {_subjects(plan.subjects)}; the write pause ends",
        f"check each consumer's ack floor on {t}",
        f"record the active side on both streams: io.jsops.dr.active = {t}; {s} keeps its messages and the fence subject",
        *(
            f"re-point {n}'s source {s} to {t} (from {s}'s last sequence + 1, once it has taken every message of {s})"
            for n in plan.sources
        ),
    ]
    lines += [f"  {i}. {step}" for i, step in enumerate(steps, 1)]
    lines.append(
        f"  A failure before the promotion gives {s} its subjects back and deletes the consumers made on {t}, which stays a mirror."
    )
    if plan.mirrors:
        lines.append(
            f"  Left reading the fenced {s}: mirrors {', '.join(plan.mirrors)} (a mirror cannot be re-pointed, 10055): "
            f"make them again as mirrors of {t}."
        )
    lines.append(f"  Back later: jsops failback {s}.")
    return "\n".join([*lines, ""])


def render_failover_result(plan: FailoverPlan, result: FailoverResult) -> str:
    """One line: what the failover did and how long publishes were not acknowledged."""
    return _failover_line(plan.stream, plan.standby, result)


def _failover_line(stream: str, standby: str, result: FailoverResult) -> str:
    return (
        f"Failed over {stream} to {standby}: {result.compared} messages compared (SHA-256), "
        f"{result.placed} consumers at their positions, write pause {result.window * 1000:.1f} ms"
        + (f"; sources re-pointed: {', '.join(result.repointed)}" if result.repointed else "")
        + ".\n"
    )


def render_failback_plan(plan: FailbackPlan) -> str:
    """Every step of a failback, numbered; the failover back's own steps follow it (``--plan`` prints them)."""
    a, b = plan.active, plan.back
    if plan.state == "restoring":
        lines = [f"Failback of {b}: {b} is active again; its standby {a} is left to restore:"]
    else:
        lines = [
            f"Failback of {b} (cluster {plan.back_cluster}) from the active side {a} (cluster {plan.active_cluster}):"
        ]
    if plan.refusal:
        return "\n".join([*lines, f"  refused: {plan.refusal}", ""])
    lines.append(
        f"  now: {a} last sequence {plan.active_last_seq}, {b} last sequence {plan.back_last_seq} "
        f"({_STATES[plan.state]})"
    )
    steps = []
    if plan.state in ("fenced", "rebuilding"):
        steps += _rebuild_steps(a, b, compared=plan.state == "fenced")
    if plan.state in ("fenced", "rebuilding", "mirror"):
        steps.append(f"wait until {b} holds {a}'s last sequence")
    if plan.state != "restoring":
        steps.append(f"fail {a} over to {b}: the steps of `jsops failover {a} --to {b}`, below")
    steps += [f"restore the standby: {a} (fenced by the failover) becomes a mirror of {b} again, as {b} did:"]
    lines += [f"  {i}. {step}" for i, step in enumerate(steps, 1)]
    lines += [f"     - {step}" for step in _rebuild_steps(b, a, compared=True)]
    return "\n".join([*lines, ""])


def _rebuild_steps(active: str, fenced: str, *, compared: bool) -> list[str]:
    out = []
    if compared:
        out += [
            f"compare {fenced}'s last messages with {active}'s at the same sequences (SHA-256): no publish was "
            f"acknowledged on {fenced} after its fence",
            f"record {fenced}'s config on {active} (io.jsops.dr.active), so that a re-run can create it again",
        ]
    out.append(
        f"delete {fenced} and create it again as a mirror of {active}, with its config and placement (a stream "
        f"cannot be made a mirror in place); its messages come back from {active}"
    )
    return out


_STATES = {
    "fenced": "fenced since the failover",
    "rebuilding": "deleted by an interrupted failback: it is created again",
    "mirror": "a mirror again: the failback carries on",
    "switching": "the failover back was interrupted: it carries on",
    "restoring": "the failover back is done",
}


def render_failback_result(result: FailbackResult) -> str:
    """What the failback did, with the failover back's line."""
    p = result.plan
    if result.failover is None:
        return f"Failed back to {p.back}: {p.active} restored as its standby (a mirror).\n"
    return (
        f"Failed back to {p.back}: {result.checked} messages of its old tail compared, mirrored up to sequence "
        f"{result.mirrored}; {p.active} restored as its standby (a mirror).\n"
        + _failover_line(p.active, p.back, result.failover)
    )


def render_emergency_plan(plan: EmergencyPlan) -> str:
    """The emergency promotion's steps, the most it can lose first."""
    s, t = plan.stream, plan.standby
    lines = [f"Emergency failover of {s} (not answering) to its standby {t} (cluster {plan.standby_cluster}):"]
    if plan.refusal:
        return "\n".join([*lines, f"  refused: {plan.refusal}", ""])
    lines += [f"  {_stated(plan)}", f"  now: {t} last sequence {plan.standby_last_seq}"]
    steps = [
        f"fence {s} through the JetStream meta group: subjects -> [{plan.fence}] (its servers do not answer; "
        f"when they come back, {s} takes no publish and keeps what {t} never received)",
        f"promote {t}: remove its mirror, subjects {_subjects(plan.subjects)}; record io.jsops.dr.active = {t}",
    ]
    lines += [f"  {i}. {step}" for i, step in enumerate(steps, 1)]
    lines.append(
        f"  Not done: {s}'s consumers are not created on {t} (their positions are on the side that does not answer): "
        "create them (jsops apply) where you choose."
    )
    return "\n".join([*lines, ""])


def _stated(plan: EmergencyPlan) -> str:
    """The most the promotion can lose, and from when it counts."""
    s, t = plan.stream, plan.standby
    heard = "never" if plan.since is None else f"{plan.since:.1f} s ago"
    if plan.lag is None:
        return (
            f"the loss cannot be stated: no check of {s} is recorded on {t} (jsops failover {s} --check) and {t} never "
            f"received a message of {s} (last contact: {heard}); every message of {s} may be lost"
        )
    when = "no check recorded"
    if plan.checked is not None:
        when = "last check " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(plan.checked))
    return (
        f"at most {plan.lag} acknowledged publishes can be lost: {s}'s last sequence as last known is "
        f"{plan.known_last_seq} ({when}; {t}'s last contact with {s}: {heard}); a publish {s} acknowledged "
        "after that is not counted"
    )


def render_check(result: CheckResult) -> str:
    """One line: what ``--check`` recorded."""
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(result.at))
    return (
        f"Checked {result.stream} (last sequence {result.last_seq}) and its standby {result.standby} (last sequence "
        f"{result.standby_last_seq}): recorded on {result.standby} at {at}.\n"
    )


def render_emergency_result(plan: EmergencyPlan, result: EmergencyResult) -> str:
    """One line: the promotion and the loss it stated."""
    stated = "unknown" if result.stated is None else f"at most {result.stated} acknowledged publishes"
    return (
        f"Promoted {plan.standby} in place of {plan.stream} at sequence {result.last_seq} in {result.seconds:.1f} s; "
        f"stated loss: {stated}.\n"
    )


def render_group(selector: str, steps: tuple[GroupStep, ...], *, back: bool, plan_only: bool) -> str:
    """The summary of a group's failover (failback): each stream's outcome, then what a re-run does."""
    verb = "failback" if back else "failover"
    lines = [f"\n{verb} of the streams labelled {selector} ({len(steps)}):"]
    for s in steps:
        if plan_only and isinstance(s.plan, FailoverPlan):
            lines.append(render_failover_plan(s.plan).rstrip("\n"))
        elif plan_only and isinstance(s.plan, FailbackPlan):
            lines.append(render_failback_plan(s.plan).rstrip("\n"))
    if plan_only:
        lines.append("")
    for s in steps:
        what = "planned" if plan_only and s.outcome == "switched" else s.outcome
        lines.append(f"  {s.stream}: {what}" + (f": {s.detail}" if s.detail else ""))
    if not steps:
        lines.append("  no stream declared active carries that label: nothing to do")
    failed = [s.stream for s in steps if s.outcome == "failed"]
    if failed and not plan_only:
        done = [s.stream for s in steps if s.outcome in ("switched", "already")]
        lines.append(
            f"stopped at {failed[0]}: switched {', '.join(done) or 'none'}; "
            f"run jsops {verb} --selector {selector} again to finish the rest"
        )
    return "\n".join(lines) + "\n"
