"""Migrations that keep every message (``jsops apply --migrate``): what the plan says and decides.

A rename (``jsops.io/renamed-from: OLD`` on the new stream's manifest) or a change the server
refuses in place (storage, ...: :mod:`jsops.linter.semantics.updates`) is planned as one ``migrate``
action instead of a delete and a create:

1. the new stream is created as a **mirror** of the old one (a mirror keeps the origin's sequence
   numbers, gaps and first sequence included: checked on 2.10.26, 2.11.11, 2.12.8, 2.14.6, 2.15.1);
   an interest stream is mirrored with ``limits`` retention (without consumers it would keep nothing);
2. once it has caught up, every message is compared (subject, headers, data) by digest;
3. every consumer declared on the new stream is created on the copy at its old position (ack floor
   kept: the sequences are the same; on a work queue at the first message, its position);
4. cut-over: the old stream's subjects are moved to a placeholder (publishers get *no responders*
   from then on), the mirror takes the last messages, they are compared, the copy drops what the
   old stream no longer holds, the consumers are moved to where the old ones are now, and the copy
   is **promoted** (an update that removes ``mirror`` and sets the subjects and retention:
   nats-server 2.12+; 2.10 and 2.11 refuse it with 10055): no publish is acknowledged while no
   consumer holds it;
5. the old stream is deleted.

What cannot be carried without loss (per retention, downstream mirrors and sources, limits below
what the stream holds) is refused here, in the plan: :mod:`jsops.reconciler.plan.migration_checks`.
The fields of the old stream and of the consumers it moves that this jsops does not know (a newer
nats-server's, at any depth) are carried, as the server has them when each leg starts, and the plan
names them: carried rather than refused, because a server that refuses one on the mirror gets it with
the promotion instead, and one it refuses there too is undone by the migration's rollback (nothing is
lost), while a refusal in the plan would block every migration of a stream a newer release has touched.

A change that keeps the name goes through a temporary stream (``NAME`` => ``NAME_JSOPS_MIGRATING``
=> ``NAME``): two cut-overs. The steps run in :mod:`jsops.reconciler.migration_steps`; their state is recorded
on the server (metadata ``io.jsops.migration`` on the stream being built), so that a re-run after
a kill resumes from it. Pure: nothing here sends a request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from jsops.linter import EffectiveConsumer, EffectiveStream, Kind, format_size, parse_version

from ..dataloss import limit_losses, loss_total
from ..diff import Change, diff_configs
from ..live import MIGRATION, LiveState, LiveStream, owned
from ..permissions import Blocker, Need, Permission, Refusal
from ..render_migration import consumer_lines
from ..vocabulary import ActionKind, ChangeClass
from .desired import Desired
from .migration_checks import copy_refusal, reset_consumers
from .migration_server import server_refusal, withheld
from .migration_spec import ConsumerMove, MigrationSpec
from .model import Choice, Intent, PlanOptions

__all__ = [
    "PROMOTE_SINCE",
    "abandoned",
    "TEMP_SUFFIX",
    "MigrationSpec",
    "busy_streams",
    "migration_action",
    "migration_record",
    "placeholder",
    "temp_name",
    "wants_migration",
]

TEMP_SUFFIX = "_JSOPS_MIGRATING"
# The first release that promotes a mirror (an update removing ``mirror``): 2.10.26 and 2.11.11
# answer 10055 "stream mirror configuration can not be updated"; 2.12.8, 2.14.6, 2.15.1 accept it.
PROMOTE_SINCE = (2, 12, 0)


def temp_name(name: str) -> str:
    """The temporary stream a migration that keeps the name goes through."""
    return name + TEMP_SUFFIX


def placeholder(name: str) -> str:
    """The one subject the old stream keeps during and after its cut-over (publishers' subjects
    are free for the new stream)."""
    return f"_jsops.migrating.{name}"


def migration_record(meta: Mapping[str, object] | None) -> dict[str, Any] | None:
    """The migration recorded in a live stream's metadata (``io.jsops.migration``), or None."""
    raw = (meta or {}).get(MIGRATION)
    if not isinstance(raw, str):
        return None
    try:
        rec = json.loads(raw)
    except ValueError:
        return None
    return (
        rec if isinstance(rec, dict) and isinstance(rec.get("from"), str) and isinstance(rec.get("to"), str) else None
    )


def _source(d: Desired, live: LiveState) -> tuple[str, str | None, bool] | None:
    """(source, temporary stream, in progress) of the migration ``d`` wants or has in progress
    on the server; None when it wants none."""
    cur = live.streams.get(d.name)
    rec = migration_record(cur.config.metadata) if cur is not None else None
    tmp = temp_name(d.name)
    if rec is not None:
        return (d.name, tmp, True) if rec["from"] == tmp else (rec["from"], None, True)
    temp = live.streams.get(tmp)
    temp_rec = migration_record(temp.config.metadata) if temp is not None else None
    if temp_rec is not None and temp_rec.get("final") == d.name:
        return d.name, tmp, True
    old = d.renamed_from
    if old and old != d.name and cur is None and old in live.streams:
        return old, None, False
    return None


def wants_migration(d: Desired, live: LiveState) -> bool:
    """Whether ``d`` is a rename to carry out or a migration in progress (a recreate-class change
    becomes one through :func:`migration_action` only with ``--migrate``)."""
    return _source(d, live) is not None


def _plural(n: int, word: str = "message") -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _refusal(
    src: LiveStream | None, d: Desired, live: LiveState, opt: PlanOptions, fresh: bool, declared: set[str]
) -> Refusal | None:
    """Why this release (the server's refusal) or these streams (jsops's safety rules) cannot
    migrate without loss (None: they can)."""
    version = parse_version(opt.server_version)
    if version is not None and version < PROMOTE_SINCE:
        return Refusal(
            Blocker.SERVER_REFUSAL,
            f"nats-server {opt.server_version} cannot promote a mirror (it refuses an update removing 'mirror' with 10055; "
            "2.12+ can): a migration that keeps every message and sequence needs 2.12 or later. "
            "Upgrade first, or use --allow-recreate --allow-data-loss",
        )
    why = _unsafe(src, d, live, fresh, declared)
    return Refusal(Blocker.PROTECTION, why) if why is not None else None


def _unsafe(src: LiveStream | None, d: Desired, live: LiveState, fresh: bool, declared: set[str]) -> str | None:
    """Why these streams cannot be migrated without loss (None: they can)."""
    new = d.stream_config
    if new.mirror is not None or new.sources:
        return "the new stream is a mirror or sources other streams; jsops migrates only streams that take their own subjects"
    if src is None or not fresh:
        return None
    if not owned(src.config):
        return f"{src.name} is not managed by jsops; adopt it first (--adopt {src.name})"
    if src.config.mirror is not None or src.config.sources:
        return (
            f"{src.name} is a mirror or sources other streams; jsops migrates only streams that take their own subjects"
        )
    if src.config.sealed:
        return f"{src.name} is sealed: its subjects cannot be moved"
    if (why := copy_refusal(src, new, declared, live)) is not None:
        return why
    losses = limit_losses(src, new, live.read_at, live.limit_loss.get(src.name))
    if losses:
        return (
            f"the new stream's limits would drop up to {loss_total(src, losses)} of the {_plural(src.messages)} it copies "
            f"({', '.join(x.limit for x in losses)}); raise them, or migrate first and tighten after"
        )
    return None


def _bytes(n: int) -> str:
    text = format_size(n)
    return f"{text} bytes" if text.isdigit() else text


def _moves(spec: MigrationSpec, src: LiveStream | None, live: LiveState) -> list[ConsumerMove]:
    """Each consumer's part in the migration: those declared on the new stream and those of the old one
    that are not (deleted with it), where they are now (``src``: None when the migration is under way)."""
    old = spec.source
    mine = {c.name: c for (s, _), c in live.consumers.items() if s == old}
    work_queue = src is not None and src.config.retention == "workqueue"
    out = []
    for name in sorted(set(spec.consumers) | set(mine)):
        cur = mine.get(name)
        if name not in spec.consumers:
            fate = "deleted"
        elif name in spec.reset:
            fate = "reset"
        elif cur is None and src is not None:
            fate = "new"
        else:
            fate = "first" if work_queue else "position"
        unknown = tuple(cur.extra.paths()) if cur is not None and fate != "deleted" else ()
        floor = cur.ack_floor if cur is not None else None
        out.append(ConsumerMove(name, fate, floor, cur.pending if cur is not None else 0, unknown))
    return out


def _steps(spec: MigrationSpec, src: LiveStream | None, live: LiveState, config: EffectiveStream) -> str:
    """The plan's account of a migration: steps, data moved, window, each consumer's story, acks and publishers."""
    old, new = spec.source, spec.target
    size = f"{_plural(spec.messages)}, {_bytes(spec.bytes)}"
    window = (
        "tens of milliseconds (2 stream updates, the last messages copied and compared, consumers moved along; measured "
        "under steady publishing on 2.15.1: median 18 ms standalone, 37 ms on a 3-node cluster, up to 200 ms on a busy host): "
        "publishers get "
        "'no responders' (a JetStream publish fails at once and can be retried; on a cluster one in flight as the subjects "
        "move may time out instead; a core-NATS publish without reply is dropped)"
    )
    retention = src.config.retention if src is not None else "limits"
    moves = _moves(spec, src, live)
    stories = consumer_lines(old, new, spec.via, moves, retention == "interest")
    cost = f"every message is compared by SHA-256 (subject, headers, data): 2 MSG.GET requests per sequence ({2 * spec.messages}+)"
    if spec.via is None:
        lines = [
            f"migration without loss (mirror, sequence numbers kept; {size} from {old}):",
            f"1. create {new} as a mirror of {old} and wait until it has caught up; {cost}",
            f"2. cut-over: {old}'s subjects are moved away, {new} takes the last messages, drops what {old} no longer holds, "
            f"gets its consumers (3.) and is promoted with its subjects; window: {window}",
            f"3. the consumers are created on {new} before it takes the subjects, each as below",
            f"4. {old} is deleted"
            + (" with the consumers not declared on the new stream" if any(m.fate == "deleted" for m in moves) else ""),
            *stories,
        ]
    else:
        tmp = spec.via
        lines = [
            f"migration without loss through {tmp} (mirrors, sequence numbers kept; {size}, copied twice):",
            f"1. {old} => {tmp}: mirror, compare, consumers, cut-over, delete {old}; {cost}",
            f"2. {tmp} => {old} with the new config: the same steps, then {tmp} is deleted",
            f"each cut-over window: {window}",
            *stories,
        ]
    later = {r.field: r for c in (spec.via_config, config) if c is not None for r in withheld(c)}
    if later:
        said = ", ".join(f"{r.field} (err_code {int(r.err_code)})" for r in later.values())
        them = "it" if len(later) == 1 else "them"
        lines.append(
            f"a mirror cannot have {said}: each copy is created without {them} and gets {them} when it is promoted"
        )
    if src is not None and (carried := src.extra.paths()):
        lines.append(
            f"fields of {old} this jsops does not know (a newer nats-server's) are carried as the server has them: {', '.join(carried)}"
        )
    if src is None:
        lines.insert(1, "resumes the migration recorded on the server")
    return "\n".join(lines)


def migration_action(
    d: Desired,
    config: EffectiveStream,
    consumers: dict[str, EffectiveConsumer],
    live: LiveState,
    opt: PlanOptions,
    recreate: Intent | None = None,
) -> Choice:
    """The ``migrate`` action for ``d`` (desired ``config`` with its bookkeeping, ``consumers``: its
    desired consumers, configs as apply sends them), or a ``blocked`` one that says why."""
    source, via, running = _source(d, live) or (d.name, temp_name(d.name), False)
    fresh = not running
    src = live.streams.get(source)
    reset, skipped = (
        reset_consumers(src, consumers, live) if src is not None and fresh and not opt.keep_position else ([], 0)
    )
    spec = MigrationSpec(
        source,
        d.name,
        via,
        _via_config(src, via, live),
        consumers,
        src.messages if src is not None else 0,
        src.bytes if src is not None else 0,
        tuple(reset),
    )
    what = f"renamed from {source}" if via is None else "a change the server cannot make in place"
    if running:
        what = f"a migration from {source} is in progress on the server"
    act = Intent(
        ActionKind.MIGRATE,
        Kind.STREAM,
        d.name,
        None,
        _migration_changes(d, src if fresh else None, recreate),
        _steps(spec, src if fresh else None, live, config),
        config,
        migration=spec,
        needs=(Need(Permission.MIGRATE, f"{what}; "),),
    )
    refused, code = _migration_refusal(src, d, live, opt, fresh, via, set(consumers))
    if refused is not None:
        unsent = [replace(c, consequence=c.consequence.split(";")[0]) if c.consequence else c for c in act.changes]
        act = replace(act, consequence="not migrated: nothing is sent (the reason above)", changes=unsent)
        return Choice(act).refuse(replace(refused, said=f"{what}: {refused.said}"), code)
    if spec.reset and skipped:
        said = (
            f"{what}: --reset-position starts {', '.join(spec.reset)} at the manifest's start, which skips up to "
            f"{_plural(skipped)} of an interest stream (removed once no consumer wants them); "
        )
        act = replace(act, data_loss=skipped, needs=act.needs + (Need(Permission.DATA_LOSS, said, tier=1),))
    return Choice(act)


def _via_config(src: LiveStream | None, via: str | None, live: LiveState) -> EffectiveStream | None:
    """The temporary stream of a two-leg migration that starts now: the old config under another name,
    with the subjects it had before a cut-over that may have started (recorded on the temporary stream);
    None for a rename, a migration without its source or one recorded on the source."""
    if via is None or src is None or migration_record(src.config.metadata) is not None:
        return None
    temp = live.streams.get(via)
    rec = migration_record(temp.config.metadata) if temp is not None else None
    subjects = rec.get("subjects") if rec is not None else None
    kept = tuple(str(x) for x in subjects) if isinstance(subjects, list) else src.config.subjects
    return src.config._replace(name=via, subjects=kept)


def _migration_changes(d: Desired, src: LiveStream | None, recreate: Intent | None) -> list[Change]:
    """What a migration changes: a recreate's changes, said as migrated, when it stands for one; else the
    difference from its source (``src``: None when the migration is under way)."""
    if recreate is not None:
        return [
            replace(
                c,
                consequence=f"{c.consequence.split(';')[0]}; "
                "migrated instead: messages and consumer positions are kept",
            )
            if c.cls == ChangeClass.RECREATE
            else c
            for c in recreate.changes
        ]
    if src is None:
        return []
    return [c for c in diff_configs("Stream", src.config, d.config) if c.path != "name"]


def _migration_refusal(
    src: LiveStream | None,
    d: Desired,
    live: LiveState,
    opt: PlanOptions,
    fresh: bool,
    via: str | None,
    declared: set[str],
) -> tuple[Refusal | None, int | None]:
    """Why the migration cannot be made (None: it can) and the server's error code when the server
    refuses it: this release's or jsops's safety rules (:func:`_refusal`), then the server's own checks of
    the change."""
    refused = _refusal(src, d, live, opt, fresh, declared)
    if refused is not None or src is None or not fresh:
        return refused, None
    block = server_refusal(src.config, d.stream_config, via, parse_version(opt.server_version))
    if block is None:
        return None, None
    return Refusal(Blocker.SERVER_REFUSAL, block.said), block.err_code


BEFORE_PROMOTION = ("copy", "cutover")  # the steps of a leg whose copy can still be dropped without loss


def abandoned(wanted: set[str], live: LiveState, opt: PlanOptions) -> list[Choice]:
    """Migrations in progress on the server that the manifests no longer ask for (the stream they
    build is not declared: a rename reverted, say): before the promotion, a rollback (the old stream
    gets its subjects back, the copy is deleted: it holds nothing the old stream does not); after
    it, blocked with the way to finish."""
    out = []
    for name, s in sorted(live.streams.items()):
        rec = migration_record(s.config.metadata)
        if rec is None or str(rec.get("final") or name) in wanted or name in wanted:
            continue
        old, step = rec["from"], str(rec.get("step"))
        src = live.streams.get(old)
        act = Intent(
            ActionKind.MIGRATE,
            Kind.STREAM,
            name,
            None,
            [],
            f"the manifests no longer declare {name}: the unfinished migration from {old} (step {step!r}) is rolled "
            f"back: {old} gets its subjects back and the copy {name} ({_plural(s.messages)}, all still in {old}) is "
            "deleted with the consumers made on it; nothing is lost",
            s.config,
            migration=MigrationSpec(old, name, rollback=True),
        )
        if src is None or step not in BEFORE_PROMOTION:
            choice = Choice(replace(act, consequence="not rolled back: nothing is sent (the reason above)")).refuse(
                Refusal(
                    Blocker.PROTECTION,
                    f"the unfinished migration from {old} to {name} is past its promotion ({name} takes the subjects and may "
                    f"hold new messages): it cannot be rolled back; declare {name} again (jsops.io/renamed-from: {old}) and "
                    "apply --migrate to finish it",
                )
            )
        else:
            rollback = f"a migration from {old} is in progress on the server and the manifests no longer ask for it; rolling it back "
            choice = Choice(replace(act, needs=(Need(Permission.MIGRATE, rollback),)))
        out.append(choice)
    return out


def busy_streams(actions: list[Choice], live: LiveState) -> set[str]:
    """Live streams a migration (planned, blocked or in progress) owns: never pruned on their own."""
    out: set[str] = set()
    for a in actions:
        m = a.intent.migration
        if m is not None:
            out.update(n for n in (m.source, m.via) if n is not None)
    for name, s in live.streams.items():
        rec = migration_record(s.config.metadata)
        if rec is not None:
            out.update((name, rec["from"]))
    return out
