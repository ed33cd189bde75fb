"""A consumer renamed (terraform's ``moved``): ``jsops.io/renamed-from: OLD`` on a consumer's manifest.

nats-server cannot rename a consumer. A rename is a create of the new name at the old consumer's position
(from the stream sequence after its ack floor, read when the plan is made) and then the delete of the old
one, in the order apply runs them (consumer puts before consumer deletes): the plan shows the pair as one
move, the delete needs no ``--prune`` (the annotation asks for it) and is no data loss on an interest stream
when the new consumer reads the same subjects (it takes over their interest). Without the annotation, a
create beside an owned consumer that left the manifests with the same config but its name says it looks
like a rename, and how to declare it.
"""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import EffectiveConsumer, Kind

from ..diff import normalise
from ..live import LiveConsumer, LiveState, owned
from ..permissions import RENAMED_FROM
from ..vocabulary import ActionKind
from .desired import Desired, resume_config
from .model import Intent

__all__ = ["moved_from", "looks_moved", "moved_create", "moved_delete", "moved_note", "same_reading", "same_filters"]

_IDENTITY = ("name", "durable_name")


def _left(live: LiveState, stream: str | None, name: str, declared: Iterable[tuple[str | None, str]]) -> bool:
    return (stream or "", name) in live.consumers and (stream, name) not in set(declared)


def moved_from(d: Desired, live: LiveState, declared: Iterable[tuple[str | None, str]]) -> LiveConsumer | None:
    """The live consumer ``d`` is renamed from (its annotation): an owned consumer of the same stream the
    manifests no longer declare; None when there is none."""
    old = d.renamed_from
    if d.kind != Kind.CONSUMER or not old or old == d.name or not _left(live, d.stream, old, declared):
        return None
    cur = live.consumers[(d.stream or "", old)]
    return cur if owned(cur.config) else None


def _reading(config: EffectiveConsumer) -> dict[str, object]:
    return {k: v for k, v in normalise("Consumer", config).items() if k not in _IDENTITY}


def same_filters(a: EffectiveConsumer, b: EffectiveConsumer) -> bool:
    """Whether two consumers read the same subjects of their stream (the same filters)."""
    x, y = normalise("Consumer", a), normalise("Consumer", b)
    return all(x.get(k) == y.get(k) for k in ("filter_subject", "filter_subjects"))


def same_reading(a: EffectiveConsumer, b: EffectiveConsumer) -> bool:
    """Whether two consumer configs are the same but their names (what they read, and how)."""
    return _reading(a) == _reading(b)


def looks_moved(
    d: Desired, config: EffectiveConsumer, live: LiveState, declared: Iterable[tuple[str | None, str]]
) -> LiveConsumer | None:
    """The owned consumer that left the manifests that a new consumer ``d`` (``config``) looks renamed from:
    the only one of its stream with the same config but its name; None otherwise."""
    keys = set(declared)
    found = [
        c
        for (stream, name), c in live.consumers.items()
        if stream == (d.stream or "")
        and name != d.name
        and (d.stream, name) not in keys
        and owned(c.config)
        and same_reading(c.config, config)
    ]
    return found[0] if len(found) == 1 else None


def moved_note(old: LiveConsumer) -> str:
    """What the plan says of a create that looks like a rename of ``old``."""
    return (
        f"looks like a rename of {old.stream}/{old.name} (it left the manifests; the same config but its name): "
        f"to keep its position, annotate this consumer's manifest with {RENAMED_FROM}: {old.name}"
    )


def _start(old: LiveConsumer) -> int | None:
    """The stream sequence the new consumer starts at: after the old one's ack floor (None: the old one has
    acknowledged nothing and starts where the manifest says)."""
    if old.ack_floor > 0 or old.config.deliver_policy == "new":
        return old.ack_floor + 1
    return None


def moved_create(d: Desired, config: EffectiveConsumer, old: LiveConsumer, keep_position: bool) -> Intent:
    """The create of the new name, at the old consumer's position unless ``keep_position`` is off."""
    seq = _start(old) if keep_position else None
    where = (
        f"created at its position (from stream sequence {seq}, after its ack floor when the plan was made; "
        f"messages acknowledged to {old.name} after that are delivered again)"
        if seq is not None
        else "created where its manifest starts"
        + (" (--reset-position)" if not keep_position else f" ({old.name} has acknowledged nothing)")
    )
    note = f"renamed from {old.stream}/{old.name}: {where}; then {old.stream}/{old.name} is deleted"
    sent = resume_config(config, seq) if seq is not None else config
    return Intent(ActionKind.CREATE, Kind.CONSUMER, d.name, d.stream, [], note, sent)


def moved_delete(old: LiveConsumer, new: str) -> Intent:
    """The delete of the old name, once the new one exists (no prune: the rename asks for it)."""
    return Intent(
        ActionKind.DELETE,
        Kind.CONSUMER,
        old.name,
        old.stream,
        [],
        f"renamed to {old.stream}/{new}: the consumer is deleted once {new} holds its position",
        replaced_by=new,
    )
