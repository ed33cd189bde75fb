""":func:`plan_changes`: the actions that make a live state match the desired objects;
:func:`build_plan`: those actions judged by the flags (``jsops plan``/``apply``).

Pure: it takes the desired objects (effective configs from the manifests) and a
:class:`~jsops.reconciler.live.LiveState`, and returns a :class:`~jsops.reconciler.plan.Plan` whose actions are
in the order apply runs them: streams (origins first), consumers, consumer deletes, stream deletes.
Planning consults no grant: it says what each action would change and what it needs
(:class:`~jsops.reconciler.permissions.Need`), and leaves the alternatives a grant decides (a
takeover, a migration instead of a recreate, the consumers of a recreated stream) beside it;
:func:`jsops.reconciler.plan.authorize.authorize` judges the plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from jsops.linter import EffectiveConsumer, EffectiveStream, Kind

from ..configs import NO_EXTRA, Config
from ..diff import Change, diff_configs
from ..live import (
    ESTATE,
    RECREATE_PREFIX,
    REPO,
    RESUME,
    LiveConsumer,
    LiveState,
    LiveStream,
    owned,
    recreate_intents,
)
from ..permissions import PREVENTED_DELETE, Blocker, Grants, Need, Permission, Refusal, delete_prevented
from ..vocabulary import ActionKind, ChangeClass
from .apis import pause_action, pause_changes, reset_action
from .authorize import authorize
from .closure import close, rename_note, rename_of
from .decide import decide
from .desired import Desired, hold_start, stamp
from .losses import estate_mark, interest_action, interest_update_loss, keep_intents, limit_loss, need, resume_action
from .migration import abandoned, busy_streams, migration_action, wants_migration
from .model import Choice, Intent, PlanOptions
from .moved import looks_moved, moved_create, moved_delete, moved_from, moved_note, same_filters
from .ordering import stream_order
from .ownership import bookkeeping, owned_action, protect
from .planset import Draft, Plan

__all__ = ["build_plan", "plan_changes"]


@dataclass
class _Run:
    """One plan being built."""

    live: LiveState
    opt: PlanOptions
    choices: list[Choice] = field(default_factory=list)
    recreated: set[str] = field(
        default_factory=set
    )  # streams recreated (if authorized): their consumers are created again
    # streams migrated (or whose migration is blocked): their consumers are part of the migration
    migrated: set[str] = field(default_factory=set)
    consumers: list[Desired] = field(default_factory=list)
    wanted: set[str] = field(default_factory=set)  # the stream names the manifests declare


def build_plan(
    desired: list[Desired],
    live: LiveState,
    options: PlanOptions | None = None,
    *,
    target: str = "",
    grants: Grants | None = None,
) -> Plan:
    """The actions that make ``live`` match ``desired``, in the order apply runs them, judged by
    ``grants`` (default: the flags of ``options``) and closed (what a blocked action keeps stays)."""
    opt = options or PlanOptions()
    draft = plan_changes(desired, live, opt, target=target)
    return close(decide(draft, authorize(draft, grants if grants is not None else opt.grants(), live)), live)


def plan_changes(
    desired: list[Desired], live: LiveState, options: PlanOptions | None = None, *, target: str = ""
) -> Draft:
    """What would change: a choice per object that makes ``live`` match ``desired``, in the order
    apply runs them, with what each needs and what planning refuses beside it; no grant is consulted
    (:func:`~jsops.reconciler.plan.authorize.authorize` judges them, then
    :func:`~jsops.reconciler.plan.decide.decide` and :func:`~jsops.reconciler.plan.closure.close`)."""
    run = _Run(live, options or PlanOptions())
    streams = {d.name: d for d in desired if d.kind == Kind.STREAM}
    run.wanted = set(streams)
    consumers = run.consumers = [d for d in desired if d.kind == Kind.CONSUMER]
    for name in stream_order({n: d.stream_config for n, d in streams.items()}):
        act = _stream_action(run, streams[name])
        if act is not None:
            run.choices.append(act)
    run.choices.extend(abandoned(set(streams), live, run.opt))  # migrations the manifests no longer ask for
    for d in consumers:
        act = _consumer_action(run, d)
        if act is not None:
            run.choices.append(act)
    _prune(run, set(streams), {(d.stream, d.name) for d in consumers})  # every owned object that left the manifests
    return Draft(target, live.fingerprint(), tuple(run.choices))


def _plural(n: int, word: str = "message") -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _stream_action(run: _Run, d: Desired) -> Choice | None:
    live, opt, name = run.live, run.opt, d.name
    cur = live.streams.get(name)
    config = estate_mark(stamp(d.stream_config, d.file, d.context, opt.estate, opt.repo), cur, opt)
    if name in live.unknown:
        run.recreated.discard(name)
        unknown = Refusal(
            Blocker.UNKNOWN,
            "the stream did not answer (no leader, or a move in progress); its state is unknown, plan again later",
        )
        return Choice(Intent(ActionKind.UPDATE, Kind.STREAM, name, None, [], None, config)).refuse(unknown)
    if wants_migration(d, live):
        return _migrate(run, d, config)
    if cur is None:
        old = rename_of(name, config, live, run.wanted)
        return Choice(
            Intent(
                ActionKind.CREATE, Kind.STREAM, name, None, [], rename_note(old) if old is not None else None, config
            )
        )
    changes = diff_configs("Stream", cur.config, d.config) + bookkeeping(cur.config, d, opt)
    act = owned_action("Stream", name, None, cur.config, changes, opt, keep_intents(config, cur.config), cur.extra)
    if act is None:
        return None
    why = protect(act, d, cur.config)
    if why is not None:
        return act.refuse(why)
    if act.refused is not None:
        return act
    kind = act.intent.action
    if kind == ActionKind.RECREATE:
        act = act.map(lambda i: _recreate_stream(run, i, cur))
        act = replace(act, lossless=_migrate(run, d, config, act.intent))  # where migrate is granted, instead
    elif kind in (ActionKind.UPDATE, ActionKind.ADOPT):
        act = act.map(lambda i: interest_update_loss(limit_loss(i, cur, d.stream_config, live), live, d.stream_config))
        if {"placement", "num_replicas"} <= {c.path for c in act.intent.changes}:
            act = act.map(lambda i: i.noted("applied in two steps: replicas first, then the move"))
    return act


def _migrate(run: _Run, d: Desired, config: EffectiveStream, recreate: Intent | None = None) -> Choice:
    """A migration that keeps every message instead of a recreate (or for a rename): its consumers
    are created by it, at their positions (:mod:`jsops.reconciler.plan.migration`)."""
    if recreate is None:
        run.migrated.add(d.name)
    consumers = {
        c.name: estate_mark(stamp(c.consumer_config, c.file, c.context, run.opt.estate, run.opt.repo), None, run.opt)
        for c in run.consumers
        if c.stream == d.name
    }
    return migration_action(d, config, consumers, run.live, run.opt, recreate)


def _recreate_stream(run: _Run, act: Intent, cur: LiveStream) -> Intent:
    """A stream recreate that says what it loses and what it needs; its consumers are created again with it."""
    holds = cur.messages
    consequence = (
        f"the stream is deleted and created again: {_plural(holds, 'stored message')} {'are' if holds != 1 else 'is'} lost"
        + (
            f", and its {cur.consumer_count} consumer{'s are' if cur.consumer_count != 1 else ' is'} deleted (those in the manifests are created again)"
            if cur.consumer_count
            else ""
        )
    )
    held = f"the stream holds {_plural(holds)}; " if holds > 0 else ""
    needs = (Need(Permission.RECREATE),) + ((Need(Permission.DATA_LOSS, held, always=True),) if holds > 0 else ())
    run.recreated.add(act.name)
    return replace(act, consequence=consequence, needs=needs, data_loss=holds or None)


def _consumer_action(run: _Run, d: Desired) -> Choice | None:
    live, opt = run.live, run.opt
    cur = live.consumers.get((d.stream or "", d.name))
    config = estate_mark(stamp(d.consumer_config, d.file, d.context, opt.estate, opt.repo), cur, opt)
    if d.stream in live.unknown or d.stream in run.migrated:
        return None
    if d.stream in run.recreated:
        kept = _kept_consumer(run, d, cur, config)
        extra = (
            cur.extra if cur is not None else NO_EXTRA
        )  # its fields this jsops does not know are created again with it
        again = Intent(
            ActionKind.CREATE,
            Kind.CONSUMER,
            d.name,
            d.stream,
            [],
            "created again with its recreated stream",
            config,
            extra=extra,
        )
        return Choice(again, recreated_with=d.stream, kept=kept)
    return _kept_consumer(run, d, cur, config)


def _kept_consumer(run: _Run, d: Desired, cur: LiveConsumer | None, config: EffectiveConsumer) -> Choice | None:
    """A consumer's action when its stream stays (is not recreated)."""
    live, opt = run.live, run.opt
    stream_cfg = live.streams[d.stream].config if d.stream in live.streams else None
    intents = recreate_intents(stream_cfg) if stream_cfg is not None else {}
    if cur is None:
        return _new_consumer(run, d, config, intents.get(d.name))
    changes = pause_changes(diff_configs("Consumer", cur.config, d.config) + bookkeeping(cur.config, d, opt), live)
    wanted = config
    if RESUME in cur.config.metadata:
        # recreated at its old position, or reset: an update keeps that start (the server cannot change it)
        config = hold_start(config, cur.config)
    leftover = intents.get(d.name)
    if leftover is not None and owned(cur.config):  # a recreate finished, but its record was not cleared
        changes.append(
            Change.of(
                "Consumer",
                f"stream.metadata.{RECREATE_PREFIX}{d.name}",
                leftover,
                None,
                ChangeClass.IN_PLACE,
                "jsops clears the record of a finished recreate from the stream",
            )
        )
    act = owned_action("Consumer", d.name, d.stream, cur.config, changes, opt, config, cur.extra)
    if act is None:
        return None
    why = protect(act, d, cur.config)
    if why is not None:
        return act.refuse(why)
    if act.refused is not None:
        return act
    if act.intent.action == ActionKind.RECREATE:
        act = act.map(lambda i: reset_action(i, cur, wanted, live, opt) or _recreate_consumer(run, i, cur))
    elif act.intent.action in (ActionKind.UPDATE, ActionKind.ADOPT):
        act = act.map(lambda i: interest_update_loss(i, live, d.consumer_config))
    return act.map(pause_action)


def _new_consumer(run: _Run, d: Desired, config: EffectiveConsumer, recorded: dict[str, Any] | None) -> Choice:
    """A consumer's create: resuming an interrupted recreate (its ``recorded`` intent), a rename (created at
    the old name's position), or a plain create (noted when it looks like a rename)."""
    live, opt = run.live, run.opt
    if recorded is not None and opt.keep_position:
        return Choice(resume_action(d, config, recorded))
    declared = [(c.stream, c.name) for c in run.consumers]
    old = moved_from(d, live, declared)
    if old is not None:
        return Choice(moved_create(d, config, old, opt.keep_position))
    looks = looks_moved(d, config, live, declared)
    note = moved_note(looks) if looks is not None else None
    return Choice(Intent(ActionKind.CREATE, Kind.CONSUMER, d.name, d.stream, [], note, config))


def _recreate_consumer(run: _Run, act: Intent, cur: LiveConsumer) -> Intent:
    opt = run.opt
    if opt.keep_position and (cur.ack_floor > 0 or cur.config.deliver_policy == "new"):
        consequence = (
            f"the consumer is deleted and created again at its position (from stream sequence {cur.ack_floor + 1}, "
            "after its ack floor); unacknowledged messages are delivered again"
        )
    else:
        consequence = "consumer position and pending acks are lost"
    return interest_action(replace(act, consequence=consequence, needs=(Need(Permission.RECREATE),)), run.live, cur)


def _prune(run: _Run, wanted_streams: set[str], wanted_consumers: set[tuple[str | None, str]]) -> None:
    """Deletes of the owned objects the manifests no longer declare (in ``--prune``'s scope):
    consumers first, then streams (mirrors and sources before their origins). Each needs the prune
    permission (and the data-loss one when it removes messages); the plan accounts for every owned
    object that left the manifests, and blocks those that cannot be shown to come from this
    repository. A consumer of a stream deleted is part of that delete (:attr:`Choice.deleted_with`)."""
    live, opt = run.live, run.opt
    listed: set[str] = set()
    stream_deletes: list[Choice] = []
    busy = busy_streams(run.choices, live)  # a migration deletes them itself
    migratable = {a.intent.name for a in run.choices if a.lossless is not None}  # and one authorize may choose
    for name in reversed(stream_order({n: s.config for n, s in live.streams.items()})):
        s = live.streams[name]
        if name in wanted_streams or name in busy or not _left(opt, s.config):
            continue
        holds = s.messages
        held = f"the stream holds {_plural(holds)}; " if holds > 0 else ""
        act = Intent(
            ActionKind.DELETE,
            Kind.STREAM,
            name,
            None,
            [],
            f"the stream and its {_plural(holds, 'stored message')} are deleted"
            + (f", with its {_plural(s.consumer_count, 'consumer')}" if s.consumer_count else ""),
            data_loss=holds or None,
            needs=(Need(Permission.PRUNE, _LEFT),)
            + ((Need(Permission.DATA_LOSS, held, always=True),) if holds > 0 else ()),
        )
        listed.add(name)
        why = _protect_delete(s.config, opt)
        stream_deletes.append(Choice(act).refuse(why) if why is not None else Choice(act))
    declared = [(d.stream, d.name) for d in run.consumers]
    renamed = {  # consumers renamed (jsops.io/renamed-from), created now or in an earlier apply
        (d.stream or "", d.renamed_from or ""): d for d in run.consumers if moved_from(d, live, declared) is not None
    }
    for key in sorted(live.consumers):
        c = live.consumers[key]
        if key in renamed and key[0] not in busy:
            run.choices.append(_moved_delete(run, c, renamed[key].name, renamed[key].consumer_config))
            continue
        if key in wanted_consumers or key[0] in busy or not _left(opt, c.config):
            continue
        gone = Intent(ActionKind.DELETE, Kind.CONSUMER, key[1], key[0], [], "the consumer and its position are deleted")
        why = _protect_delete(c.config, opt)
        if why is not None:
            choice = Choice(gone).refuse(why)
        else:
            gone = need(interest_action(gone, live, c), Need(Permission.PRUNE, _LEFT))
            choice = Choice(
                replace(gone, needs=tuple(sorted(gone.needs, key=lambda n: n.permission != Permission.PRUNE)))
            )  # the prune first
        choice = replace(choice, deleted_with=key[0] if key[0] in listed else None)
        if key[0] in migratable:  # the migration, where chosen, deletes it with the old stream
            choice = replace(choice, recreated_with=key[0], kept=choice)
        run.choices.append(choice)
    run.choices.extend(stream_deletes)


def _moved_delete(run: _Run, old: LiveConsumer, new: str, config: EffectiveConsumer) -> Choice:
    """The delete that ends a consumer rename: no prune needed. On an interest stream apply deletes a consumer
    holding unacknowledged messages only with the data-loss grant (its check right before the delete cannot
    tell that the new consumer holds them): the plan says so, and whether a message would really be lost."""
    why = _protect_delete(old.config, run.opt)
    gone = moved_delete(old, new)
    if why is not None:
        return Choice(gone).refuse(why)
    gone = interest_action(gone, run.live, old)
    if gone.data_loss and same_filters(old.config, config):
        gone = gone.noted(f"{new} reads the same subjects from {old.name}'s position: it holds their interest")
    return Choice(gone)


def _protect_delete(config: Config, opt: PlanOptions) -> Refusal | None:
    """Why jsops must not make a delete whatever is granted (None: it may)."""
    if not opt.prunable(config):
        return Refusal(Blocker.PROTECTION, _UNMARKED)
    if delete_prevented(config.metadata):
        return Refusal(Blocker.PROTECTION, PREVENTED_DELETE)
    return None


_LEFT = "left the manifests; "
_UNMARKED = (
    "left the manifests, but it records neither an estate nor the repository it was applied from, so jsops cannot "
    "show it comes from this one: not pruned (delete it by hand, or put its manifest back and apply once to record it)"
)


def _left(opt: PlanOptions, config: Config) -> bool:
    """Whether an owned object the manifests do not declare is this run's to account for: one
    ``--prune`` may delete, or one of this scope that records no repository (jsops before 0.2)."""
    if opt.prunable(config):
        return True
    meta = config.metadata
    if not (opt.estates and opt.estate is None and opt.repo is not None) or meta.get(REPO) or meta.get(ESTATE):
        return False
    return replace(opt, repo=None).prunable(config)
