"""In-place changes that delete the stored messages of an interest stream (issue 21 item 9).

An ``interest`` stream keeps a message only while some consumer is interested in it: nats-server
removes, as soon as an update is applied, the messages no consumer will take any more.

- **Retention ``limits`` -> ``interest``**: every stored message no consumer has pending goes. At
  least the largest pending count of one consumer stays, so the loss is at most ``messages`` minus
  that (all of them when the stream has no consumer).
- **A consumer's narrower filter**: the messages of the subjects its old filter took and its new
  filter does not go, unless another consumer still wants them. Counted per subject from the
  server (``STREAM.INFO`` with ``subjects_filter``); another consumer counts as still wanting a
  subject of its filter only while it has acknowledged none of the stored messages (its ack floor
  is below the stream's first sequence); otherwise the count is an upper bound.

Pure counting (:func:`retention_loss`, :func:`filter_loss`) and the measurements the plan and
apply's last check take on the server (:func:`ameasure_subjects`, :func:`measure_filter_loss`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from jsops.linter import EffectiveConsumer, EffectiveStream, is_subset_match

from .live import LiveConsumer, LiveState, LiveStream, consumer_from_info

if TYPE_CHECKING:
    from .client import JsClient
    from .configs import Config

__all__ = [
    "Wanted",
    "filters",
    "filter_loss",
    "filters_narrowed",
    "retention_loss",
    "measure_filter_loss",
    "ameasure_subjects",
]

SUBJECT_PAGES = 100  # per-subject counts read at most this many pages per stream


def filters(config: EffectiveConsumer) -> list[str]:
    """A consumer's filters (``[]``: every subject of its stream)."""
    if config.filter_subjects:
        return [f for f in config.filter_subjects if f]
    one = config.filter_subject
    return [one] if one else []


def _takes(subject: str, fs: Iterable[str]) -> bool:
    fl = list(fs)
    return not fl or any(is_subset_match(subject, f) for f in fl)


def filters_narrowed(live_cfg: EffectiveConsumer, desired: EffectiveConsumer) -> bool:
    return sorted(filters(live_cfg)) != sorted(filters(desired))


def retention_loss(s: LiveStream, desired: EffectiveStream, live: LiveState) -> int:
    """Stored messages a change of retention to ``interest`` removes (an upper bound; 0 when the
    retention does not change to interest)."""
    if desired.retention != "interest" or s.config.retention == "interest" or s.messages <= 0:
        return 0
    pending = [c.pending for (stream, _), c in live.consumers.items() if stream == s.name]
    return max(0, s.messages - max(pending, default=0))


def filter_loss(s: LiveStream, c: LiveConsumer, desired: EffectiveConsumer, live: LiveState) -> int:
    """Stored messages of interest stream ``s`` that consumer ``c``'s new filters (``desired``)
    leave to no consumer, so that the server removes them (an upper bound; see the module)."""
    if s.config.retention != "interest" or s.messages <= 0 or not filters_narrowed(c.config, desired):
        return 0
    old, new = filters(c.config), filters(desired)
    counts = live.subject_counts.get(s.name)
    if counts is None:  # not measured: every message it has not acknowledged
        return min(s.messages, c.pending)
    others = [
        filters(o.config)
        for (stream, name), o in live.consumers.items()
        if stream == s.name and name != c.name and o.ack_floor < s.first_seq
    ]
    lost = sum(
        n
        for subject, n in counts.items()
        if _takes(subject, old) and not _takes(subject, new) and not any(_takes(subject, f) for f in others)
    )
    return min(s.messages, lost, c.pending)  # it holds interest only in what it has not acknowledged


async def ameasure_subjects(client: JsClient, stream: str) -> dict[str, int] | None:
    """The stored messages per subject of ``stream`` (None: more subjects than are read)."""
    out: dict[str, int] = {}
    offset = 0
    for _ in range(SUBJECT_PAGES):
        resp = await client.arequest(f"STREAM.INFO.{stream}", {"subjects_filter": ">", "offset": offset})
        st = resp.get("state") or {}
        subjects = st.get("subjects") or {}
        if not subjects:
            return out
        out.update({str(k): int(v) for k, v in subjects.items()})
        offset += len(subjects)
        if len(out) >= int(st.get("num_subjects") or 0):
            return out
    return None


class Wanted(Protocol):
    """An object as the manifests want it (:class:`jsops.reconciler.plan.Desired`, which the plan builds with
    the losses counted here): what measuring a change of filters reads of it."""

    @property
    def kind(self) -> str: ...  # "Stream" | "Consumer"

    @property
    def stream(self) -> str | None: ...  # a consumer's stream

    @property
    def name(self) -> str: ...

    @property
    def config(self) -> Config: ...


def measure_filter_loss(client: JsClient, live: LiveState, desired: Iterable[Wanted]) -> None:
    """Fill ``live.subject_counts`` for the interest streams where a desired consumer changes the
    filters of a live one."""
    from .client import JsApiError

    wanted = set()
    for d in desired:
        if d.kind != "Consumer":
            continue
        s, c = live.streams.get(d.stream or ""), live.consumers.get((d.stream or "", d.name))
        if (
            s is not None
            and c is not None
            and isinstance(d.config, EffectiveConsumer)
            and s.config.retention == "interest"
            and s.messages > 0
            and filters_narrowed(c.config, d.config)
        ):
            wanted.add(s.name)
    for name in sorted(wanted):
        try:
            counts = client.run(ameasure_subjects(client, name))
        except JsApiError:
            continue  # not measured: the plan counts every unacknowledged message of the consumer
        if counts is not None:
            live.subject_counts[name] = counts


async def _live_of(client: JsClient, stream: str) -> tuple[LiveStream, LiveState] | None:
    """The stream and its consumers read again (None: the stream is gone)."""
    from .client import JsApiError
    from .errors import ErrCode
    from .live import stream_from_info

    try:
        s = stream_from_info(await client.astream_info(stream))
        infos = await client.alist_consumers(stream) if s.consumer_count else []
    except JsApiError as exc:
        if exc.err_code == ErrCode.STREAM_NOT_FOUND:
            return None
        raise
    state = LiveState(streams={stream: s})
    for info in infos:
        c = consumer_from_info(stream, info)
        state.consumers[(stream, c.name)] = c
    return s, state


async def aupdate_loss(client: JsClient, stream: str, name: str, config: EffectiveStream | EffectiveConsumer) -> int:
    """What an update of a stream (``kind`` Stream, ``name`` == ``stream``) or of a consumer to
    ``config`` would remove from interest stream ``stream`` now: read right before the request."""
    got = await _live_of(client, stream)
    if got is None:
        return 0
    s, state = got
    if isinstance(config, EffectiveStream):
        return retention_loss(s, config, state)
    c = state.consumers.get((stream, name))
    if c is None or s.config.retention != "interest" or not filters_narrowed(c.config, config):
        return 0
    counts = await ameasure_subjects(client, stream)
    if counts is not None:
        state.subject_counts[stream] = counts
    return filter_loss(s, c, config, state)
