"""Text of ``jsops failover``: the plan (every step, in order) and the outcome (:mod:`jsops.reconciler.failover`)."""

from __future__ import annotations

from .failover import FailoverPlan, FailoverResult

__all__ = ["render_failover_plan", "render_failover_result"]


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
    ]
    lines += [f"  {i}. {step}" for i, step in enumerate(steps, 1)]
    lines.append(
        f"  A failure before the promotion gives {s} its subjects back and deletes the consumers made on {t}, which stays a mirror."
    )
    lines.append(
        f"  Not done: re-pointing other streams' sources and mirrors of {s}; failback ({s} becomes a mirror of {t})."
    )
    return "\n".join([*lines, ""])


def render_failover_result(plan: FailoverPlan, result: FailoverResult) -> str:
    """One line: what the failover did and how long publishes were not acknowledged."""
    return (
        f"Failed over {plan.stream} to {plan.standby}: {result.compared} messages compared (SHA-256), "
        f"{result.placed} consumers at their positions, write pause {result.window * 1000:.1f} ms.\n"
    )
