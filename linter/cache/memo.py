"""Per-object rule results kept between lint runs, reused for the objects whose inputs did not change.

A per-object rule's check of an object reads the object (its file), the run's settings (rules,
options, target, profiles, the build: all in the run's salt, :mod:`jsops.linter.cache.incremental`), and
whatever it asks its :class:`jsops.linter.api.RuleContext` about *other* objects. Checks run with a
:class:`TrackingContext`, which records those reads:

- ``stream_of(consumer)`` and ``origin_of(stream, source)``: the stream found under (context, name);
- ``effective(...)``: what the server's defaults read beyond the config itself (a consumer's
  stream's effective config, a mirror's origin: ``origins[name]``);
- ``cached(key, build)``: the value rules share under ``key`` (built from the estate), by a
  fingerprint of its content (:func:`_encode`: the objects of the estate in it by their own
  fingerprint); a value it cannot describe counts as the whole estate;
- anything else that sees the estate (``ctx.estate``, ``streams()``, ``consumers()``,
  ``consumers_by_stream()``, ``streams_by_context()``, ``stream_index()``): the whole estate, which no
  entry can vouch for (the check runs again on the next run that is not whole-hit).

- ``now()``: the clock (:data:`CLOCK`), which no entry can vouch for either: a check that read it is
  never stored, and a run in which one did stores no estate entry (:attr:`ObjectMemo.clocked`), so
  that a later run with the same files checks it again, at its own time. A rule declared
  ``reads_clock`` is never served from an entry at all (every object is checked, nothing is kept).

Each read is stored with the fingerprint of its answer (the resolved object's file, that file's
content key, document, kind, name, stream and context; or none). An object's stored findings for a
rule are reused only when its file's path and content are unchanged and every read it made gives
the same fingerprint again; otherwise the check runs (tracked) and its entry is replaced. A rule's
own state across objects is not seen: per-object checks must be functions of their object and of
what they read through the context (as built-in rules are; the differential test
``tests/linter/test_lint_results_cache.py`` holds the cached output to the uncached one).
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from ..api import Rule, RuleContext, Violation
from ..findings import Finding
from ..load import Estate, Resource
from ..model.config import StreamConfig
from ..model.target import Target
from .packs import Marshalled
from .results_cache import ResultsCache, finding_of, plain_finding
from .tracking import ALL, CLOCK, Read, TrackingContext

if TYPE_CHECKING:
    from ..model.profiles import Profiles

__all__ = ["CLOCK", "ClockRead", "ObjectMemo", "ObjectResult", "Outcome", "TrackingContext"]

ObjectKey = tuple[str, int, str, str, str | None, str]
"""An object within its file: (context flavour ``r``/``v``, document, kind, name, stream, context)."""

Stored = tuple[list[Any], list[Any], bool]
"""One rule's results on one object as stored: plain findings, (read, fingerprint) pairs, read all."""

Fingerprint = tuple[str, str, int, str, str, str | None, str]
"""An object of the estate as a read's answer: (file, content key, document, kind, name, stream, context)."""

Answer: TypeAlias = Fingerprint | bytes | tuple[str] | bool | None
"""What a read gives: the object's :data:`Fingerprint` (None: no such object), a shared value's
digest, ``("?",)`` a shared value not built yet, False when no entry can rely on it."""

ObjectResult = tuple[str, ObjectKey, str, list[Finding], Stored | None]
"""(file, object, rule code, findings, what to store: None when nothing needs storing)."""


@dataclass(frozen=True)
class ClockRead:
    """A unit's result that says a check read the clock (it crosses a fork as any result does)."""


Outcome = Finding | ObjectResult | ClockRead
"""What a unit of checks gives (:func:`jsops.linter.halves.run_units`)."""


_UNKNOWN = ("?",)  # the answer to a read of a shared value not built yet in this run: never stored


class _Opaque(Exception):
    """A value :func:`_encode` cannot describe."""


def _encode(v: object, digests: dict[str, str], depth: int = 0) -> Marshalled:
    """A plain description of a value rules share (``RuleContext.cached``): scalars with their type,
    containers in their order (sets sorted), records and plain objects by class and attributes,
    objects of the estate by :func:`_fingerprint`; :class:`_Opaque` for anything else."""
    if depth > 60:
        raise _Opaque
    if (
        v is None or isinstance(v, (str, int, float, bytes)) and type(v) in (str, int, float, bytes, bool)
    ):  # exact types: a str enum is an enum
        return (type(v).__name__, v)
    d = depth + 1
    if type(v) is list or type(v) is tuple:
        return (type(v).__name__, tuple(_encode(x, digests, d) for x in v))
    if type(v) is dict:
        return ("dict", tuple((_encode(k, digests, d), _encode(x, digests, d)) for k, x in v.items()))
    if type(v) is set or type(v) is frozenset:
        return ("set", tuple(sorted((_encode(x, digests, d) for x in v), key=repr)))
    return _encode_object(v, digests, d)


def _encode_object(v: object, digests: dict[str, str], d: int) -> Marshalled:
    """:func:`_encode` of what is not a scalar or a container: an object of the estate, an enum
    member, a record or a plain object."""
    t = type(v)
    if isinstance(v, Resource):
        fp = _fingerprint(v, digests)
        if fp is False:
            raise _Opaque
        return ("resource", fp)
    if isinstance(v, Enum):
        return ("enum", f"{t.__module__}.{t.__qualname__}", _encode(v.value, digests, d))
    slots = [n for c in t.__mro__ for n in getattr(c, "__slots__", ())]
    attrs = getattr(v, "__dict__", None)
    if callable(v) or attrs is None and not slots:
        raise _Opaque
    state = dict(attrs or {})
    for n in slots:
        if hasattr(v, n):
            state[n] = getattr(v, n)
    return ("object", f"{t.__module__}.{t.__qualname__}", _encode(state, digests, d))


def _own_read(r: Resource) -> Read | None:
    return ("s", r.context, r.stream) if r.kind == "Consumer" else None


def _fingerprint(r: Resource | None, digests: dict[str, str]) -> Fingerprint | Literal[False] | None:
    if r is None:
        return None
    digest = digests.get(r.file)
    if digest is None:
        return False  # a file the run did not read by content: no entry can rely on it
    return (r.file, digest, r.document, r.kind, r.name, r.stream, r.context)


class _Index:
    """The answers to the reads, for one context's estate (built on first use)."""

    def __init__(self, ctx: RuleContext, digests: dict[str, str]) -> None:
        self.ctx = ctx
        estate = ctx._estate_value if isinstance(ctx, TrackingContext) else ctx.estate
        self.streams = {
            (r.context, r.name): r for r in estate.resources if r.kind == "Stream"
        }  # as RuleContext.stream_index
        self.origins: dict[str, Resource] = {}
        for r in estate.resources:
            if r.kind == "Stream" and isinstance(r.config, StreamConfig):
                self.origins[r.name] = r
        self.digests = digests
        self.known: dict[Read, Answer] = {}

    def answer(self, read: Read) -> Answer:
        if read in self.known:
            return self.known[read]
        out: Answer
        if read[0] == "s":
            out = _fingerprint(self.streams.get((read[1], read[2])), self.digests)
        elif read[0] == "o":
            out = _fingerprint(self.origins.get(read[1]), self.digests)
        elif read[0] == "c":
            store = self.ctx._cache
            if read[1] not in store:
                return _UNKNOWN  # built by the first check that asks for it: the reads after it compare
            try:
                out = hashlib.sha256(marshal.dumps(_encode(store[read[1]], self.digests))).digest()[:16]
            except (_Opaque, ValueError, RecursionError):
                out = False
        else:
            out = False
        self.known[read] = out
        return out


class _Entry:
    """A file's stored results, decoded: its objects (those its run checked) and, per rule, the
    stored results of the objects that had any (findings, or reads of other objects)."""

    def __init__(self, value: object) -> None:
        if not isinstance(value, (tuple, list)):
            raise ValueError("not a file entry")
        objects, owns, rules = value
        self.objects: list[ObjectKey] = [tuple(o) for o in objects]
        self.owns: list[Any] = list(owns)  # the answer to each object's own stream read (a consumer's)
        if len(self.owns) != len(self.objects):
            raise ValueError("objects and their stream answers differ in number")
        self.index: dict[ObjectKey, int] = {o: i for i, o in enumerate(self.objects)}
        self.rules: dict[str, dict[int, Stored]] = {
            str(c): {int(i): s for i, s in per.items()} for c, per in rules.items()
        }


class _State:
    """The objects of one unit's list (one kind, one context): which have no usable entry (their
    checks all run), and per rule which have stored results to judge."""

    def __init__(self) -> None:
        self.misses: list[tuple[int, Resource]] = []
        self.holders: dict[str, list[tuple[int, Resource]]] = {}
        self.where: dict[int, tuple[_Entry, int]] = {}


class ObjectMemo:
    """The per-object results of one run: looked up in, and stored to, a :class:`ResultsCache`.

    A unit of per-object checks is given only the objects that need work: those whose file entry
    is missing or does not hold them (every rule runs), and those whose entry holds a stored result
    for the rule (reused when its reads still give the same answers, else run again). Every other
    object had no finding and read nothing else: nothing to do."""

    def __init__(self, cache: ResultsCache, salt: str, digests: dict[str, str]) -> None:
        self.cache = cache
        self.salt = salt
        self.digests = digests
        self._entries: dict[str, _Entry | None] = {}
        self._indexes: dict[int, _Index] = {}
        self._flavour: dict[int, str] = {}
        self._states: dict[tuple[int, int], _State] = {}
        self._fresh: dict[
            str, dict[ObjectKey, Answer]
        ] = {}  # objects every rule checks, by file: their own stream answer
        self._updates: dict[str, list[tuple[ObjectKey, str, Stored | None]]] = {}  # results to store, by file
        # A check read the clock in this run: its result holds at this instant only (no estate entry).
        self.clocked = False

    def context(self, estate: Estate, target: Target, profiles: Profiles | None, flavour: str) -> TrackingContext:
        ctx = TrackingContext(estate, target, profiles)
        self._flavour[id(ctx)] = flavour
        return ctx

    def file_key(self, file: str) -> str | None:
        digest = self.digests.get(file)
        if digest is None:
            return None
        return hashlib.sha256(f"{self.salt}\0{file}\0{digest}".encode()).hexdigest()

    def _entry(self, file: str) -> _Entry | None:
        if file in self._entries:
            return self._entries[file]
        key = self.file_key(file)
        value = self.cache.file(key) if key is not None else None
        entry = None
        if value is not None:
            try:
                entry = _Entry(value)
            except Exception:  # an entry of another shape: a miss
                entry = None
        self._entries[file] = entry
        return entry

    def object_key(self, r: Resource, ctx: RuleContext) -> ObjectKey:
        return (self._flavour.get(id(ctx), "r"), r.document, r.kind, r.name, r.stream, r.context)

    def _state(self, ctx: RuleContext, objects: Sequence[Resource]) -> _State:
        state = self._states.get((id(ctx), id(objects)))
        if state is not None:
            return state
        state = self._states[(id(ctx), id(objects))] = _State()
        for pos, r in enumerate(objects):
            entry = self._entry(r.file)
            key = self.object_key(r, ctx)
            index = entry.index.get(key) if entry is not None else None
            own = self._own_answer(r, ctx)
            if entry is None or index is None or own is False or entry.owns[index] != own:
                state.misses.append((pos, r))
                self._fresh.setdefault(r.file, {})[key] = own
                continue
            state.where[id(r)] = (entry, index)
            for code, per in entry.rules.items():
                if index in per:
                    state.holders.setdefault(code, []).append((pos, r))
        return state

    def _own_answer(self, r: Resource, ctx: RuleContext) -> Answer:
        """The answer to a consumer's read of its own stream (every check of a consumer makes it,
        through its effective config): kept once per object, not with each rule's results."""
        own = _own_read(r)
        return self._index(ctx).answer(own) if own is not None else None

    def _index(self, ctx: RuleContext) -> _Index:
        index = self._indexes.get(id(ctx))
        if index is None:
            index = self._indexes[id(ctx)] = _Index(ctx, self.digests)
        return index

    def _reuse(self, stored: Stored, ctx: RuleContext) -> list[Finding] | None:
        """A stored result's findings when every read it made still has the same answer."""
        try:
            plain, reads, read_all = stored
            if read_all:
                return None
            answers = self._index(ctx)
            for read, fp in reads:
                if answers.answer(tuple(read)) != fp:
                    return None
            return [finding_of(p) for p in plain]
        except Exception:  # a stored value of another shape: run again
            return None

    def estate_unit(
        self, rule: Rule, ctx: RuleContext, check: Callable[[], list[Outcome]]
    ) -> Callable[[Sequence[Resource]], list[Outcome]]:
        """An estate-wide rule's ``check`` as a unit of :func:`jsops.linter.halves.run_units` (never
        split); one that read the clock (or is declared to) says so (:class:`ClockRead`)."""

        def run(_: Sequence[Resource]) -> list[Outcome]:
            before = ctx.clock_reads if isinstance(ctx, TrackingContext) else 0
            out = check()
            if type(rule).reads_clock or isinstance(ctx, TrackingContext) and ctx.clock_reads != before:
                out.append(ClockRead())
            return out

        return run

    def unit(
        self, rule: Rule, ctx: RuleContext, finding: Callable[[Violation], Finding], objects: Sequence[Resource]
    ) -> tuple[Callable[[Sequence[Resource]], list[Outcome]], Sequence[Resource]]:
        """A per-object rule's check as a unit of :func:`jsops.linter.halves.run_units`: the objects
        that need work (see the class), stored results where they hold, tracked checks elsewhere."""
        code, check = rule.code, rule.check
        assert isinstance(ctx, TrackingContext)  # made by :meth:`context`
        if type(rule).reads_clock:
            return self._clocked_unit(rule, ctx, finding), objects
        state = self._state(ctx, objects)
        holders = state.holders.get(code, [])
        items = (
            [r for _, r in sorted(state.misses + holders, key=lambda p: p[0])]
            if holders
            else [r for _, r in state.misses]
        )
        held = {id(r) for _, r in holders}

        def run(todo: Sequence[Resource]) -> list[Outcome]:
            out: list[Outcome] = []
            for r in todo:  # the hot loop of a cold run: one pass per (rule, object)
                was_held = bool(held) and id(r) in held
                if was_held:
                    entry, index = state.where[id(r)]
                    stored = entry.rules[code][index]
                    found = self._reuse(stored, ctx)
                    if found is not None:
                        out.append((r.file, self.object_key(r, ctx), code, found, stored))
                        continue
                reads: list[Read] = []
                ctx._reads = reads
                try:
                    found = [finding(v) for v in check(r, ctx)]
                finally:
                    ctx._reads = None
                if CLOCK in reads:  # what it found holds at this instant only: nothing is kept
                    out.append(ClockRead())
                    if found or was_held:
                        out.append((r.file, self.object_key(r, ctx), code, found, None))
                    continue
                fresh = self._stored(found, reads, ctx, _own_read(r)) if found or reads else None
                if fresh is not None or was_held:
                    out.append((r.file, self.object_key(r, ctx), code, found, fresh))
            return out

        return run, items

    def _clocked_unit(
        self, rule: Rule, ctx: TrackingContext, finding: Callable[[Violation], Finding]
    ) -> Callable[[Sequence[Resource]], list[Outcome]]:
        """A ``reads_clock`` rule's check of every object, as a cold run makes it: never served from
        an entry, never stored; a check that read the clock says so (:class:`ClockRead`)."""
        check = rule.check

        def run(todo: Sequence[Resource]) -> list[Outcome]:
            out: list[Outcome] = []
            for r in todo:
                reads: list[Read] = []
                ctx._reads = reads
                try:
                    out.extend(finding(v) for v in check(r, ctx))
                finally:
                    ctx._reads = None
                if CLOCK in reads:
                    out.append(ClockRead())
            return out

        return run

    def _stored(self, found: list[Finding], reads: list[Read], ctx: RuleContext, own: Read | None) -> Stored | None:
        """What to store of one check: None when it found nothing and read nothing but its own
        stream (``own``: that answer is kept with the object, see :meth:`_own_answer`)."""
        if not found and not reads:
            return None
        read_all = ALL in reads
        pairs: list[Any] = []
        if not read_all:
            answers = self._index(ctx)
            for read in dict.fromkeys(reads):
                if read == own:
                    continue
                fp = answers.answer(read)
                if fp is False:
                    read_all = True
                    break
                pairs.append((read, fp))
        if not found and not pairs and not read_all:
            return None
        return ([plain_finding(f) for f in found], [] if read_all else pairs, read_all)

    def collect(self, results: Iterable[Outcome]) -> list[Finding]:
        """The findings, in order; the per-object results are kept for :meth:`save`, and whether a
        check read the clock in :attr:`clocked`."""
        findings: list[Finding] = []
        updates: dict[str, list[tuple[ObjectKey, str, Stored | None]]] = {}
        self._updates = updates
        for item in results:
            if isinstance(item, Finding):
                findings.append(item)
                continue
            if isinstance(item, ClockRead):
                self.clocked = True
                continue
            file, key, code, found, stored = item
            findings.extend(found)
            updates.setdefault(file, []).append((key, code, stored))
        return findings

    def save(self) -> None:
        """Put the entry of every file whose results changed into the cache (the others are kept as read)."""
        updates = self._updates
        for file in {*updates, *self._fresh}:
            key = self.file_key(file)
            if key is None:
                continue
            old = self._entries.get(file)
            objects = list(old.objects) if old is not None else []
            owns = list(old.owns) if old is not None else []
            index = dict(old.index) if old is not None else {}
            rules = {c: dict(per) for c, per in old.rules.items()} if old is not None else {}
            for o, own in self._fresh.get(file, {}).items():  # checked by every rule: their old results go
                i = index.setdefault(o, len(objects))
                if i == len(objects):
                    objects.append(o)
                    owns.append(own)
                else:
                    owns[i] = own
                    for per in rules.values():
                        per.pop(i, None)
            for o, code, stored in updates.get(file, ()):
                i = index[o]  # every object with results is in the entry or fresh
                if stored is None:
                    rules.get(code, {}).pop(i, None)
                else:
                    rules.setdefault(code, {})[i] = stored
            self.cache.put_file(key, (objects, owns, {c: per for c, per in rules.items() if per}))
