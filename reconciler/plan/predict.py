"""Predicted failures: what the server will refuse in a plan, judged against the live estate
before the first request, and what that blocks.

Pure: :func:`predict` walks a :class:`~jsops.reconciler.plan.Plan` in the order apply runs it (stream
puts level by level, origins first; then consumer puts; consumer deletes; stream deletes last:
:mod:`jsops.reconciler.apply`) over a simulated copy of the :class:`~jsops.reconciler.live.LiveState`, and
says, per action, the ``err_code`` nats-server would answer. :func:`refusals` gives the verdicts that
block those actions, and with them everything that depends on them, so that apply never leaves a
state that neither the old nor the new manifests describe:

- a stream put the server refuses blocks its consumers' puts and the mirrors and sources created
  from it;
- it also blocks the deletes it was to replace: a stream delete whose live subjects overlap it
  (the rename ``ORDERS`` -> ``ORDERS_V2`` with ``--prune``), with that stream's consumer deletes;
- a consumer create the server refuses blocks the deletes of the consumers it was to replace
  on a workqueue stream (those whose filters overlap it).

What is predicted: the server checks of :mod:`jsops.linter.semantics.refusals` (the lint rules' too),
each against the estate as it is when the action runs (every code checked on nats-server 2.10.26, 2.11.11,
2.12.8, 2.14.6, 2.15.1): 10065 for a stream create or update against every stream that exists then
(unmanaged, outside the PATHs, owned by another estate, or deleted later in the plan: deletes run last);
10099/10100 for a consumer put against the consumers on its workqueue stream then (consumer deletes run
after consumer puts); 10026 for a consumer create; 10027 and 10028/10047 for a stream create, against the
account's usage (``$JS.API.INFO``) and, for a standalone server whose monitoring port is read (``--monitor``),
against the server's own JetStream storage (``/varz``: ``max_memory``/``max_storage`` and what every account
reserves of them; a stream create that does not fit is refused with 10028/10047, measured on 2.10.26, 2.11.11,
2.12.8, 2.14.6, 2.15.1).

Replicas and placement (10074 on a standalone server, 10005 when a cluster cannot place them) are
judged by the lint gate's rules (JS315, JS317) with the live server's facts (``jsops.reconciler.lintgate``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsops.linter import EffectiveConsumer, EffectiveStream, SubjectIndex, format_size
from jsops.linter.semantics import refusals

from ..errors import ErrCode
from ..live import LiveState
from ..permissions import Blocker, Refusal
from ..verdict import Blocked
from ..vocabulary import ActionKind
from .model import PlanItem
from .ordering import deps, levels
from .planset import Plan

__all__ = [
    "AccountUsage",
    "ServerStorage",
    "Prediction",
    "account_usage",
    "server_storage",
    "predict",
    "predicted_refusals",
]


_PUTS = (ActionKind.CREATE, ActionKind.UPDATE, ActionKind.RECREATE, ActionKind.ADOPT)


@dataclass(frozen=True)
class AccountUsage:
    """The account's JetStream limits and usage (``$JS.API.INFO``); None: unlimited or unknown."""

    streams: int = 0
    # None: not known (2.10 reports an underflowed reservation once a stream without max_bytes
    # exists): then counted from the live streams' max_bytes x replicas, as the server reserves
    reserved_memory: int | None = None
    reserved_storage: int | None = None
    max_streams: int | None = None
    max_consumers: int | None = None
    max_memory: int | None = None
    max_storage: int | None = None


def account_usage(info: Mapping[str, Any]) -> AccountUsage | None:
    """The usage and flat limits of a ``$JS.API.INFO`` answer; None for tiered limits (per replica
    count), which are not predicted."""
    lim = info.get("limits") or {}

    def limit(key: str) -> int | None:
        v = lim.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None

    def count(key: str) -> int:
        v = info.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0

    def reserved(key: str) -> int | None:
        v = info.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**62 else None

    flat = {k: limit(k) for k in ("max_streams", "max_consumers", "max_memory", "max_storage")}
    if all(v is None for v in flat.values()) and info.get("tiers"):
        return None
    return AccountUsage(
        count("streams"),
        reserved("reserved_memory"),
        reserved("reserved_storage"),
        flat["max_streams"] or None,
        flat["max_consumers"] or None,
        flat["max_memory"],
        flat["max_storage"],
    )


@dataclass(frozen=True)
class ServerStorage:
    """A standalone server's JetStream storage (``/varz``): its ``max_memory`` and ``max_storage`` (the
    ``jetstream { max_mem_store, max_file_store }`` it runs with; None: unknown or unlimited) and what every
    account's streams reserve of them (None: not known, as 2.10's underflowed reservation; then counted from
    the live streams, as for the account)."""

    max_memory: int | None = None
    max_storage: int | None = None
    reserved_memory: int | None = None
    reserved_storage: int | None = None


def server_storage(varz: Mapping[str, Any]) -> ServerStorage | None:
    """The JetStream storage of a ``/varz`` answer (``jetstream.config`` and ``jetstream.stats``); None when
    the answer has none (JetStream off, or an answer without them)."""
    js = varz.get("jetstream")
    config = js.get("config") if isinstance(js, Mapping) else None
    if not isinstance(config, Mapping):
        return None
    stats = js.get("stats") if isinstance(js, Mapping) else None
    stats = stats if isinstance(stats, Mapping) else {}

    def number(source: Mapping[str, Any], key: str) -> int | None:
        v = source.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**62 else None

    return ServerStorage(
        number(config, "max_memory") or None,
        number(config, "max_storage") or None,
        number(stats, "reserved_memory"),
        number(stats, "reserved_storage"),
    )


@dataclass(frozen=True)
class Prediction:
    """Why an action will not succeed: ``err_code`` for the server's own refusal; None when it is
    blocked because something it depends on is refused (``blocker`` names that)."""

    reason: str
    err_code: int | None = None
    blocker: str | None = None


def _subjects(config: object) -> list[str]:
    """A stream config's subjects (none for anything else)."""
    return list(config.subjects) if isinstance(config, EffectiveStream) else []


def _filters(config: object) -> list[str]:
    """A consumer config's filters (none for anything else)."""
    if not isinstance(config, EffectiveConsumer):
        return []
    return list(config.filter_subjects) or ([config.filter_subject] if config.filter_subject else [])


def _pair(x: str, y: str) -> str:
    """A colliding pair of subjects, as ``x ~ y`` (``x`` when equal)."""
    return x if x == y else f"{x} ~ {y}"


def _plain(subject: str) -> bool:
    """Every token a literal, ``*``, or a last ``>``: a subject :class:`SubjectIndex` finds every
    collision of (anything else is compared with everything, as before the index)."""
    tokens = subject.split(".")
    last = len(tokens) - 1
    for i, t in enumerate(tokens):
        if not t or (("*" in t or ">" in t) and t != "*" and not (t == ">" and i == last)):
            return False
    return True


class _Subjects:
    """Named subject lists, indexed: which names may hold a subject colliding with a query, in the
    order the names were added (a superset; callers confirm with ``refusals.first_collision``). A name added
    again keeps its place, and its old subjects stay indexed (confirming drops them)."""

    def __init__(self) -> None:
        self.order: dict[str, int] = {}
        self.index: SubjectIndex[str] = SubjectIndex()
        self.loose: set[str] = set()  # names with a subject the index cannot judge: always candidates

    def add(self, name: str, subjects: list[str]) -> None:
        self.order.setdefault(name, len(self.order))
        for subject in subjects:
            if _plain(subject):
                self.index.add(subject, name)
            else:
                self.loose.add(name)

    def candidates(self, subjects: list[str]) -> list[str]:
        """The names that may collide with ``subjects``, in order."""
        if not all(_plain(x) for x in subjects):
            return list(self.order)
        found = set(self.loose)
        for x in subjects:
            found.update(name for _, name in self.index.colliding(x))
        return sorted(found, key=self.order.__getitem__)


@dataclass
class _Sim:
    """The simulated estate while the plan's actions run in apply's order."""

    live: LiveState
    account: AccountUsage | None
    server: ServerStorage | None = None
    streams: dict[str, EffectiveStream] = field(default_factory=dict)
    subjects: _Subjects = field(default_factory=_Subjects)  # the streams' subjects, indexed
    consumers: dict[str, dict[str, EffectiveConsumer]] = field(default_factory=dict)  # stream -> name -> config
    out: dict[int, Prediction] = field(default_factory=dict)
    stream_count: int = 0
    reserved: dict[str, int] = field(default_factory=dict)  # storage -> bytes reserved
    server_reserved: dict[str, int] = field(default_factory=dict)  # storage -> bytes every account reserves
    refused: dict[str, str] = field(default_factory=dict)  # stream put refused or blocked -> the label to name

    def __post_init__(self) -> None:
        for n, s in self.live.streams.items():
            self.put_stream(n, s.config)
        for (stream, name), c in self.live.consumers.items():
            self.consumers.setdefault(stream, {})[name] = c.config
        acc = self.account
        self.stream_count = acc.streams if acc is not None else len(self.live.streams)
        counted = {"memory": 0, "file": 0}
        for st in self.live.streams.values():
            counted["memory" if st.config.storage == "memory" else "file"] += refusals.reserved_by(st.config)
        known = {"memory": acc.reserved_memory if acc else None, "file": acc.reserved_storage if acc else None}
        self.reserved = {k: v if v is not None else counted[k] for k, v in known.items()}
        srv = self.server
        if srv is not None:
            on_server = {"memory": srv.reserved_memory, "file": srv.reserved_storage}
            self.server_reserved = {k: v if v is not None else counted[k] for k, v in on_server.items()}

    def reserve(self, storage: str, n: int) -> None:
        """Account for ``n`` more bytes of ``storage`` reserved (fewer when negative), on the account and the server."""
        self.reserved[storage] += n
        if storage in self.server_reserved:
            self.server_reserved[storage] += n

    def put_stream(self, name: str, config: EffectiveStream) -> None:
        self.streams[name] = config
        self.subjects.add(name, _subjects(config))

    def failed(self, name: str) -> str | None:
        """The label to name when a put depends on stream ``name`` and its put is refused or blocked."""
        return self.refused.get(name)


class _Peers:
    """The stream puts of one level (they run concurrently), their subjects indexed."""

    def __init__(self, actions: list[PlanItem]) -> None:
        self.actions = actions
        self.subjects = _Subjects()
        for i, p in enumerate(actions):
            self.subjects.add(str(i), _subjects(p.config))


def _describe(other: str, deleting: set[str]) -> str:
    if other in deleting:
        return f"live stream {other} (its delete runs only after the creates and updates)"
    return f"live stream {other}"


def _stream_put(sim: _Sim, a: PlanItem, peers: _Peers, deleting: set[str]) -> Prediction | None:
    cfg = _stream_config(a)
    for dep in sorted(deps(cfg)):
        blocker = sim.failed(dep)
        if blocker is not None:
            return Prediction(f"it reads from {blocker}, which is blocked", blocker=blocker)
    if a.action == ActionKind.CREATE:  # the server checks the account's limits before overlaps
        refused = _stream_limits(sim, cfg)
        if refused is not None:
            return refused
    mine = _subjects(cfg)
    others: list[tuple[str, list[str]]] = [
        (n, _subjects(sim.streams[n])) for n in sim.subjects.candidates(mine) if n != a.name
    ]
    concurrent = (peers.actions[int(i)] for i in peers.subjects.candidates(mine))
    others += [(p.name, _subjects(p.config)) for p in concurrent if p is not a and p.name != a.name]
    hit = refusals.stream_overlap(mine, others)
    if hit is not None:
        code, other, x, y = hit
        return Prediction(f"subjects overlap with {_describe(other, deleting)} ({_pair(x, y)})", code)
    return None


def _stream_config(a: PlanItem) -> EffectiveStream:
    """The config a stream put sends."""
    if not isinstance(a.config, EffectiveStream):
        raise TypeError(f"{a.label}: a stream put without a stream config")
    return a.config


def _stream_limits(sim: _Sim, cfg: EffectiveStream) -> Prediction | None:
    acc = sim.account
    if acc is None:
        return _server_storage(sim, cfg)
    storage = "memory" if cfg.storage == "memory" else "file"
    limit = acc.max_memory if storage == "memory" else acc.max_storage
    code = refusals.stream_create_refusal(cfg, sim.stream_count, acc.max_streams, sim.reserved[storage], limit)
    if code == ErrCode.MAXIMUM_STREAMS_LIMIT:
        return Prediction(f"the account holds {sim.stream_count} of its {acc.max_streams} streams (max_streams)", code)
    if code is not None:
        what = "memory" if storage == "memory" else "storage"
        return Prediction(
            f"the account reserves {sim.reserved[storage]} of its {limit} bytes of {what}; this stream needs {refusals.requested(cfg)} more (max_bytes x replicas)",
            code,
        )
    return _server_storage(sim, cfg)


def _server_storage(sim: _Sim, cfg: EffectiveStream) -> Prediction | None:
    """10028/10047 when the stream does not fit the standalone server's own JetStream storage."""
    srv = sim.server
    if srv is None:
        return None
    memory = cfg.storage == "memory"
    storage, limit = ("memory", srv.max_memory) if memory else ("file", srv.max_storage)
    reserved = sim.server_reserved[storage]
    code = refusals.stream_create_refusal(cfg, 0, None, reserved, limit)
    if code is None or limit is None:
        return None
    what = "memory (max_mem_store)" if memory else "file storage (max_file_store)"
    held = f"{format_size(reserved)} of it reserved" if reserved > 0 else "none of it reserved"
    return Prediction(
        f"the server's JetStream {what} is {format_size(limit)}, {held}; "
        f"this stream needs {format_size(refusals.requested(cfg))} (max_bytes x replicas)",
        code,
    )


def _take_resources(sim: _Sim, a: PlanItem) -> None:
    """What a stream put the server accepts takes of the account and the server at once (a stream count, its
    reservation), so that the next put, of the same level too, is judged beside it: apply sends a level's puts
    together, and the one the server would refuse is not sent."""
    cfg = _stream_config(a)
    if a.action == ActionKind.CREATE:
        sim.stream_count += 1
    if a.action == ActionKind.RECREATE and a.name in sim.streams:  # deleted first: its reservation is released
        old = sim.streams[a.name]
        sim.reserve("memory" if old.storage == "memory" else "file", -refusals.reserved_by(old))
    if a.action in (ActionKind.CREATE, ActionKind.RECREATE):
        sim.reserve("memory" if cfg.storage == "memory" else "file", refusals.reserved_by(cfg))


def _commit_stream(sim: _Sim, a: PlanItem) -> None:
    cfg = _stream_config(a)
    if a.action == ActionKind.RECREATE:
        sim.consumers.pop(a.name, None)
    sim.put_stream(a.name, cfg)


def _consumer_put(sim: _Sim, a: PlanItem, batch: dict[str, list[PlanItem]]) -> Prediction | None:
    stream = a.stream or ""
    blocker = sim.failed(stream)
    if blocker is not None:
        return Prediction(f"its stream is blocked ({blocker})", blocker=blocker)
    scfg = sim.streams.get(stream)
    if scfg is None:
        return None
    on_stream = sim.consumers.get(stream) or {}
    exists = a.name in on_stream
    filters = _filters(a.config)
    others: dict[str, EffectiveConsumer] = {n: c for n, c in on_stream.items() if n != a.name}
    acc_max = sim.account.max_consumers if sim.account is not None else None
    code = None if exists else refusals.consumer_create_refusal(scfg, len(others), acc_max)
    if code is not None:
        return Prediction(
            f"stream {stream} has {len(others)} consumers, its limit is {refusals.consumer_limit(scfg, acc_max)} (max_consumers)",
            code,
        )
    if scfg.retention != "workqueue":
        return None
    for peer in batch.get(stream, ()):  # consumer puts run concurrently: an update may still have its old filters
        if peer is not a and peer.name in others and isinstance(peer.config, EffectiveConsumer):
            others[peer.name + " (updated)"] = peer.config
    hit = refusals.workqueue_refusal(filters, ((n, _filters(others[n])) for n in sorted(others)), exists)
    if hit is None:
        return None
    code, name, mine, theirs = hit
    if code == ErrCode.CONSUMER_WQ_MULTIPLE_UNFILTERED:
        return Prediction(f"workqueue stream {stream} already has consumer {name}, and this one has no filter", code)
    return Prediction(
        f"its filter overlaps consumer {name.removesuffix(' (updated)')} of workqueue stream {stream} "
        f"({_pair(mine, theirs) if theirs else '(unfiltered)'}); consumer deletes run after consumer creates",
        code,
    )


def predict(
    plan: Plan, live: LiveState, account: AccountUsage | None = None, server: ServerStorage | None = None
) -> dict[int, Prediction]:
    """Per action index, why it will not succeed, walking the plan in apply's order (``server``: a standalone
    server's own storage, when its monitoring port was read)."""
    sim = _Sim(live, account, server)
    acts = plan.actions
    puts = [i for i, a in enumerate(acts) if a.kind == "Stream" and a.action in _PUTS]
    deleting = {a.name for a in acts if a.kind == "Stream" and a.action == ActionKind.DELETE}
    by_name = {acts[i].name: i for i in puts}
    for level in levels(list(by_name), lambda n: deps(_stream_config(acts[by_name[n]]))):
        peers = _Peers([acts[by_name[n]] for n in level])
        for n in level:
            i = by_name[n]
            p = _stream_put(sim, acts[i], peers, deleting)
            if p is not None:
                sim.out[i] = p
                sim.refused[n] = p.blocker or acts[i].label
            else:
                _take_resources(sim, acts[i])
        for n in level:
            if by_name[n] not in sim.out:
                _commit_stream(sim, acts[by_name[n]])
    batch: dict[str, list[PlanItem]] = {}  # consumer puts by stream
    for a in acts:
        if a.kind == "Consumer" and a.action in _PUTS:
            batch.setdefault(a.stream or "", []).append(a)
    for i, a in enumerate(acts):
        if a.kind == "Consumer" and a.action in _PUTS:
            p = _consumer_put(sim, a, batch)
            if p is not None:
                sim.out[i] = p
            elif isinstance(a.config, EffectiveConsumer):
                sim.consumers.setdefault(a.stream or "", {})[a.name] = a.config
    _dependents(sim, acts)
    return sim.out


def _dependents(sim: _Sim, acts: Sequence[PlanItem]) -> None:
    """The deletes a refused put was to replace, and the consumer deletes of a blocked stream delete."""
    refused_streams = [(acts[i], p) for i, p in sim.out.items() if acts[i].kind == "Stream"]
    refused_consumers = [(acts[i], p) for i, p in sim.out.items() if acts[i].kind == "Consumer"]
    held: set[str] = set()
    for i, a in enumerate(acts):
        if a.kind != "Stream" or a.action != ActionKind.DELETE:
            continue
        old = _subjects(sim.live.streams[a.name].config) if a.name in sim.live.streams else []
        for put, p in refused_streams:
            if refusals.first_collision(_subjects(put.config), old) is not None:
                blocker = p.blocker or put.label
                sim.out[i] = Prediction(f"it is replaced by {put.label}, which is blocked", blocker=blocker)
                held.add(a.name)
                break
    for i, a in enumerate(acts):
        if a.kind != "Consumer" or a.action != ActionKind.DELETE or i in sim.out:
            continue
        if a.stream in held:
            sim.out[i] = Prediction(f"the delete of its stream {a.stream} is blocked", blocker=f"Stream {a.stream}")
            continue
        live = sim.live.consumers.get((a.stream or "", a.name))
        theirs = _filters(live.config if live is not None else None)
        for put, p in refused_consumers:
            if (
                put.stream == a.stream
                and p.err_code in (ErrCode.CONSUMER_WQ_CONSUMER_NOT_UNIQUE, ErrCode.CONSUMER_WQ_MULTIPLE_UNFILTERED)
                and (
                    not theirs
                    or not _filters(put.config)
                    or refusals.first_collision(_filters(put.config), theirs) is not None
                )
            ):
                sim.out[i] = Prediction(f"it is replaced by {put.label}, which is blocked", blocker=put.label)
                break


def predicted_refusals(
    plan: Plan, live: LiveState, account: AccountUsage | None = None, server: ServerStorage | None = None
) -> dict[int, Blocked]:
    """The verdicts of :func:`predict`, by action index: what the server would refuse (with its
    ``err_code``) and what depends on it (:func:`~jsops.reconciler.plan.decide.decide` applies them;
    an action blocked already keeps its reason)."""
    out: dict[int, Blocked] = {}
    for i, p in predict(plan, live, account, server).items():
        if p.err_code is not None:
            said = f"the server would refuse it: {p.reason} (err_code {p.err_code}); nothing is sent for it"
            out[i] = Blocked(Refusal(Blocker.SERVER_REFUSAL, said), p.err_code)
        else:
            said = f"not run: {p.reason}, so that apply leaves the estate as the old or the new manifests describe it"
            out[i] = Blocked(Refusal(Blocker.DEPENDENCY, said))
    return out
