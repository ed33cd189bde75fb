"""NATS API JSON files as natscli writes and reads them: ``nats stream info --json`` and ``nats
consumer info --json`` output (``config`` wrapped), a bare StreamConfig or ConsumerConfig (as
``nats stream add --config`` reads it), or a ``$JS.API.CONSUMER.CREATE`` body (``stream_name`` and
``config``). The API takes durations and sizes as integers only."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from fnmatch import fnmatchcase
from functools import cache
from typing import Any

from ..findings import FieldPath, ObjectRef
from ..model.positions import Pos, resolve_position
from ..model.resource import Estate
from ..semantics import catalog
from ..semantics.catalog import Unit
from ..semantics.errcodes import ErrCode
from ..semantics.units import UnitError, parse_duration, parse_size
from ._envelope import declared_in
from .documents import ParsedDocument
from .envelopes import consumer_envelope, stream_envelope
from .messages import MAX_NAME_LENGTH, dotted, finding, kind_of, shown, too_long
from .validation import admit

__all__ = ["load_api", "given_stream", "stream_unknown", "config_kind", "own_fields", "KINDS"]


KINDS: tuple[str, ...] = ("Consumer", "Stream", "KeyValue", "ObjectStore")
"""The config kinds a document declares, in the order a tie between them is read as."""


@cache
def own_fields(kind: str) -> frozenset[str]:
    """The top-level fields of ``kind``'s config (by the field catalog) that no other of :data:`KINDS`
    has: ``deliver_subject`` and ``flow_control`` only a consumer, ``subjects`` only a stream,
    ``history`` only a KeyValue bucket."""
    others = {name for other in KINDS if other != kind for name in catalog.record(other).names()}
    return frozenset(name for name in catalog.record(kind).names() if name not in others)


def config_kind(keys: Iterable[Any]) -> str | None:
    """The kind a config without ``apiVersion``/``kind`` declares, by its keys: the kind most of whose
    :func:`own_fields` it has; None when it has none."""
    names = {k for k in keys if isinstance(k, str)}
    hits = [(len(own_fields(kind) & names), kind) for kind in KINDS]
    best = max(n for n, _ in hits)
    return next(kind for n, kind in hits if n == best) if best else None


_BUCKET_HINT = "jsops reads buckets as `kind: {kind}` manifests (jsops/v1 or NACK)"


def load_api(doc: ParsedDocument, index: int, file: str, estate: Estate) -> None:
    v = doc.value
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    if "config" in v:
        cfg = v["config"]
        spec_path: FieldPath = ("config",)
        if not isinstance(cfg, dict):
            pos = resolve_position(doc.positions, ("config",)) or start
            estate.findings.append(
                finding(
                    "invalid-field",
                    f"config must be a mapping, got {kind_of(cfg)}",
                    file,
                    *pos,
                    None,
                    ErrCode.INVALID_JSON,
                )
            )
            return
        kind = "Consumer" if "stream_name" in v else config_kind(cfg)
        is_consumer = kind == "Consumer"
        lenient = is_consumer and consumer_envelope(doc, file, estate)
    else:
        cfg = v
        spec_path = ()
        kind = config_kind(cfg) or ("Stream" if "name" in v else None)
        is_consumer = kind == "Consumer"
        lenient = False
    if kind in ("KeyValue", "ObjectStore"):
        what = f"a {kind} bucket config without apiVersion/kind: {_BUCKET_HINT.format(kind=kind)}"
        estate.findings.append(finding("unknown-kind", what, file, *start))
        return
    if kind is None and not spec_path:
        estate.findings.append(
            finding(
                "unknown-kind",
                "not a manifest: no apiVersion/kind, and not a NATS API StreamConfig or ConsumerConfig",
                file,
                *start,
            )
        )
        return
    if is_consumer:
        _load_api_consumer(doc, index, file, estate, dict(cfg), spec_path, start, lenient)
    else:
        _load_api_stream(doc, index, file, estate, dict(cfg), spec_path, start)


def _load_api_consumer(
    doc: ParsedDocument,
    index: int,
    file: str,
    estate: Estate,
    cfg: dict[str, Any],
    spec_path: FieldPath,
    start: Pos,
    lenient: bool = False,
) -> None:
    found = _consumer_stream(doc, file, estate, spec_path, start)
    if found is None:
        return
    stream, how = found
    named = _consumer_name(doc, file, estate, cfg, spec_path, start, stream)
    if named is None:
        return
    declared = declared_in(
        doc, index, file, kind="Consumer", name=named, stream=stream, dialect="api", spec_path=spec_path
    )
    if how == "unknown":
        units_ok = _api_unit_strings(cfg, "Consumer", spec_path, doc, file, estate)
        bare = admit(declared, cfg, estate, units_ok)
        if bare is not None:
            estate.resources.pop()  # admitted last; kept apart: nothing plans a consumer without its stream
            estate.invalidate()
            estate.bare.append(bare)
        return
    if how:
        if how == "directory":
            estate.named_from_path.add(declared.key)
        whence = "its directory's name" if how == "directory" else "as given (--stream or consumer-streams)"
        estate.findings.append(
            finding(
                "name-from-path",
                f"consumer {shown(named)!r} names no stream (as `nats consumer add --output` writes it): "
                f"it belongs to stream {shown(stream)!r}, {whence}",
                file,
                *start,
                declared.ref,
            )
        )
    units_ok = _api_unit_strings(cfg, "Consumer", spec_path, doc, file, estate)
    admit(declared, cfg, estate, units_ok, lenient)


def _consumer_stream(
    doc: ParsedDocument, file: str, estate: Estate, spec_path: FieldPath, start: Pos
) -> tuple[str | None, str] | None:
    """The stream an API consumer config belongs to and how it was found: ``""`` its ``stream_name``,
    ``given`` (--stream, consumer-streams), ``directory`` (its directory's name) or ``unknown`` (None);
    None when its ``stream_name`` is not a valid name (said in a finding)."""
    stream = doc.value.get("stream_name") if spec_path else None
    how = ""
    if stream is None:
        # `nats consumer add STREAM --config FILE` names the stream on the command line, so the file
        # `nats consumer add --output` writes does not: the user gives it (--stream, consumer-streams),
        # or else the file's directory may be named after it (checked once the estate is loaded).
        # Without either (or with a directory no manifest declares as a stream: check_estate), the
        # stream is unknown: the consumer is checked without it (Estate.bare).
        stream = given_stream(file, estate.consumer_streams)
        how = "given"
        if stream is None:
            stream = _name_from(os.path.basename(os.path.dirname(file)))
            how = "directory" if stream is not None else "unknown"
    if stream is None or isinstance(stream, str) and stream and len(stream) <= MAX_NAME_LENGTH:
        return stream, how
    pos = resolve_position(doc.positions, ("stream_name",)) or start
    what = (
        too_long("stream_name", stream)
        if isinstance(stream, str) and stream
        else f"stream_name must be a non-empty string, got {kind_of(stream)}"
    )
    # Not a string: the body does not decode (10025, every release).
    estate.findings.append(
        finding("invalid-field", what, file, *pos, None, None if isinstance(stream, str) else ErrCode.INVALID_JSON)
    )
    return None


def _consumer_name(
    doc: ParsedDocument,
    file: str,
    estate: Estate,
    cfg: dict[str, Any],
    spec_path: FieldPath,
    start: Pos,
    stream: str | None,
) -> str | None:
    """An API consumer config's name (``durable_name``, ``name``, or a bare config's file name, said in a
    finding); None when it has no valid one (said in a finding)."""
    name_field = "durable_name" if cfg.get("durable_name") else "name"
    name = cfg.get(name_field)
    if name is None and not spec_path:
        # `nats consumer add STREAM [NAME] --config FILE`: the name is on the command line too (or the
        # server names an ephemeral consumer); shown under the file's name.
        name = _name_from(os.path.splitext(os.path.basename(file))[0])
        if name is not None:
            estate.findings.append(
                finding(
                    "name-from-path",
                    "consumer config has no durable_name or name (natscli takes it on the command line): "
                    f"shown as {shown(name)!r} after its file",
                    file,
                    *start,
                    ObjectRef("Consumer", name, stream),
                )
            )
    if not isinstance(name, str) or not name:
        pos = resolve_position(doc.positions, spec_path) or start
        estate.findings.append(
            finding("invalid-field", "consumer config has neither durable_name nor name", file, *pos)
        )
        return None
    if len(name) > MAX_NAME_LENGTH:
        pos = resolve_position(doc.positions, spec_path + (name_field,)) or start
        estate.findings.append(finding("invalid-field", too_long(name_field, name), file, *pos))
        return None
    return name


def _load_api_stream(
    doc: ParsedDocument, index: int, file: str, estate: Estate, cfg: dict[str, Any], spec_path: FieldPath, start: Pos
) -> None:
    if not spec_path:  # the body of a stream request: its envelope keys are not config fields
        stream_envelope(cfg, doc, file, estate)
    name = cfg.get("name")
    if name is None and not spec_path:
        # `nats stream add NAME --config FILE`: the name is on the command line; take the file's.
        name = _name_from(os.path.splitext(os.path.basename(file))[0])
        if name is not None:
            cfg["name"] = name
            estate.findings.append(
                finding(
                    "name-from-path",
                    f"stream config has no name (natscli takes it on the command line): named {shown(name)!r} after its file",
                    file,
                    *start,
                    ObjectRef("Stream", name, None),
                )
            )
    if not isinstance(name, str) or not name:
        pos = resolve_position(doc.positions, spec_path) or start
        estate.findings.append(
            finding(
                "invalid-field",
                'stream config has no name (natscli takes it on the command line: name the file after the stream, ORDERS.json, or add "name")',
                file,
                *pos,
            )
        )
        return
    if len(name) > MAX_NAME_LENGTH:
        pos = resolve_position(doc.positions, spec_path + ("name",)) or start
        estate.findings.append(finding("invalid-field", too_long("name", name), file, *pos))
        return
    declared = declared_in(doc, index, file, kind="Stream", name=name, stream=None, dialect="api", spec_path=spec_path)
    units_ok = _api_unit_strings(cfg, "Stream", spec_path, doc, file, estate)
    admit(declared, cfg, estate, units_ok)


_PATH_NAME = re.compile(r"^[A-Za-z0-9_-]{1,255}$")


def given_stream(file: str, pairs: list[tuple[str, str]]) -> str | None:
    """The stream the user gives for a bare consumer config: the first ``(glob, stream)`` whose glob
    matches the file's path (a glob without ``/`` matches its name; ``*`` matches every file)."""
    path = os.path.normpath(file).replace(os.sep, "/")
    for pattern, stream in pairs:
        pat = os.path.normpath(pattern).replace(os.sep, "/") if "/" in pattern else pattern
        if fnmatchcase(path if "/" in pat else path.rsplit("/", 1)[-1], pat) or (
            "/" in pat and fnmatchcase(os.path.abspath(file).replace(os.sep, "/"), pat)
        ):
            return stream
    return None


def stream_unknown(file: str, skipped: Sequence[tuple[str, str]] | None) -> str:
    """What jsops says of a bare consumer config whose stream is unknown (JS024: a layout question,
    not a server's): checked without its stream, ``skipped`` the checks (code, name) that need it
    and were not made; None: not checked at all (a plan checks only what it sends)."""
    directory = _name_from(os.path.basename(os.path.dirname(os.path.abspath(file))))
    where = f", and its directory {shown(directory)!r} is not a declared stream" if directory else ""
    if skipped is None:
        done = "not checked or planned"
    elif skipped:
        names = ", ".join(f"{code} {name}" for code, name in skipped)
        done = f"checked without it; skipped {len(skipped)} check{'s' if len(skipped) != 1 else ''} that need{'s' if len(skipped) == 1 else ''} the stream: {names}"
    else:
        done = "checked without it (no check needed the stream)"
    return (
        f"consumer config names no stream (natscli takes it on the command line){where}: {done}; "
        "give the stream with `jsops lint --stream STREAM` or `consumer-streams: {GLOB: STREAM}` in .jsops.yaml, "
        'keep the file in a directory named after it, or use the $JS.API.CONSUMER.CREATE body {"stream_name": "STREAM", "config": {...}}'
    )


def _name_from(text: str) -> str | None:
    """A stream name taken from a file or directory name, if it is a plain valid one."""
    return text if _PATH_NAME.match(text) and text not in (".", "..") else None


_UNIT_WORDS = {Unit.DURATION: "duration", Unit.DURATIONS: "duration", Unit.SIZE: "size"}


@cache
def _api_units(kind: str) -> dict[tuple[str, ...], str]:
    """Duration and size fields of a kind's config, by the field catalog (``"*"``: a list index)."""
    return {path: _UNIT_WORDS[unit] for path, unit in catalog.unit_paths(kind).items() if unit in _UNIT_WORDS}


def _api_unit_strings(
    cfg: dict[str, Any], kind: str, res_path: FieldPath, doc: ParsedDocument, file: str, estate: Estate
) -> bool:
    """The NATS API reads durations as integer nanoseconds and sizes as integer bytes; the server
    rejects strings like "7d" or "10GiB" (which the native and NACK dialects accept). Reports them
    and removes them from ``cfg`` so the model does not report them again."""
    ok = True
    for pattern, unit in _api_units(kind).items():
        for path, value in _walk(cfg, pattern):
            if not isinstance(value, str):
                continue
            ok = False
            label = dotted(res_path + path)
            try:
                exact = parse_duration(value) if unit == "duration" else parse_size(value)
                hint = f"; write {exact}"
            except UnitError:
                hint = ""
            what = "durations in integer nanoseconds" if unit == "duration" else "sizes in integer bytes"
            pos = resolve_position(doc.positions, res_path + path) or (doc.line, 1)
            # A JSON string where the server's Go struct has an integer: the body does not decode (10025).
            estate.findings.append(
                finding(
                    "invalid-field",
                    f"{label}: the NATS API takes {what}, got {kind_of(value)}{hint}",
                    file,
                    *pos,
                    None,
                    ErrCode.INVALID_JSON,
                )
            )
            _drop(cfg, path)
    return ok


def _walk(value: Any, pattern: tuple[str, ...], here: FieldPath = ()) -> Iterator[tuple[FieldPath, Any]]:
    if not pattern:
        yield here, value
        return
    step, rest = pattern[0], pattern[1:]
    if step == "*":
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield from _walk(item, rest, here + (i,))
    elif isinstance(value, dict) and step in value:
        yield from _walk(value[step], rest, here + (step,))


def _drop(cfg: dict[str, Any], path: FieldPath) -> None:
    """Remove ``path`` from ``cfg``, copying the containers on the way (the document is not changed)."""
    head = path[0]
    if not isinstance(head, str):
        return  # a config's keys are strings: nothing there
    if len(path) == 1:
        cfg.pop(head, None)
        return
    child = cfg.get(head)
    if isinstance(child, dict):
        cfg[head] = dict(child)
        _drop(cfg[head], path[1:])
    elif isinstance(child, list):
        cfg[head] = list(child)
        if isinstance(path[1], int) and len(path) == 2:
            cfg.pop(head)  # a list with one bad item: drop the list
        elif isinstance(path[1], int) and isinstance(child[path[1]], dict):
            item = dict(child[path[1]])
            _drop(item, path[2:])
            cfg[head][path[1]] = item
