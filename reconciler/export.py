"""Live state as native manifests: one file per stream, holding the stream and its durable consumers."""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import io
import os
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from jsops.linter import (
    EffectiveConsumer,
    EffectiveStream,
    KeyValueConfig,
    LintTarget,
    ObjectStoreConfig,
    bucket_of_stream,
    bucket_stream,
    effective_consumer,
    effective_stream,
    readable_duration,
    readable_size,
)
from jsops.linter.model.config import ConsumerConfig, StreamConfig
from jsops.linter.semantics import catalog
from jsops.linter.semantics.catalog import Unit

from .configs import Extra, config_json
from .diff import BOOKKEEPING_KEYS, diff_configs, restore_start
from .live import RESUME, LiveState

__all__ = ["ExportOptions", "export_documents", "write_export"]


@dataclass(frozen=True)
class ExportOptions:
    """What ``jsops export`` writes. ``minimal``: only the fields whose value differs from what the server
    would store without them, for this target (its release and limits); ``streams``: only the streams
    (or buckets) whose name matches one of these shell patterns (None: every stream)."""

    context: str = "default"
    minimal: LintTarget | None = None
    streams: tuple[str, ...] | None = None

    def wants(self, stream: str) -> bool:
        if self.streams is None:
            return True
        names = {stream, *(stream[len(p) :] for p in ("KV_", "OBJ_") if stream.startswith(p))}
        return any(fnmatch.fnmatchcase(n, pattern) for n in names for pattern in self.streams)


def _minimal(full: dict[str, Any], stores: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    """``full`` without each field the server stores the same value for when it is left out (one at a
    time, in order: a field kept because another depends on it stays)."""
    try:
        want = stores(full)
    except ValueError:
        return full  # a config the model cannot read is written as it is
    out = dict(full)
    for key in list(full):
        if key in ("name", "durable_name"):
            continue
        trial = {k: v for k, v in out.items() if k != key}
        try:
            same = stores(trial) == want
        except ValueError:
            same = False
        if same:
            out = trial
    return out


# Durations and sizes are written as people write them (30s, 64MiB): which fields they are is the catalog's.
_STREAM_DURATIONS = catalog.fields_with_unit("Stream", Unit.DURATION)
_CONSUMER_DURATIONS = catalog.fields_with_unit("Consumer", Unit.DURATION)
_STREAM_SIZES = catalog.fields_with_unit("Stream", Unit.SIZE)
_CONSUMER_SIZES = catalog.fields_with_unit("Consumer", Unit.SIZE)


def _clean_metadata(cfg: dict[str, Any]) -> None:
    meta = cfg.get("metadata")
    if isinstance(meta, dict):
        kept = {k: v for k, v in meta.items() if not k.startswith("_nats.") and k not in BOOKKEEPING_KEYS}
        if kept:
            cfg["metadata"] = kept
        else:
            cfg.pop("metadata")


def _durations(
    cfg: dict[str, Any], paths: Iterable[tuple[str, ...]], fmt: Callable[[int], str | int] = readable_duration
) -> None:
    for path in paths:
        holder: Any = cfg
        for p in path[:-1]:
            holder = holder.get(p) if isinstance(holder, dict) else None
        if (
            isinstance(holder, dict)
            and isinstance(holder.get(path[-1]), int)
            and not isinstance(holder.get(path[-1]), bool)
        ):
            holder[path[-1]] = fmt(holder[path[-1]])


def _tree(value: Any) -> Any:
    """A copy of a decoded JSON value (what ``json.loads(json.dumps(value))`` gives, several times faster)."""
    t = type(value)
    if t is dict:
        return {k: _tree(v) for k, v in value.items()}
    if t is list:
        return [_tree(v) for v in value]
    return value


def _stream_spec(
    config: EffectiveStream, extra: Extra, minimal: LintTarget | None = None, live: LiveState | None = None
) -> dict[str, Any]:
    cfg: dict[str, Any] = _tree(config_json(config, extra))
    if minimal is not None:
        origins = _origins(cfg, live)
        known = _tree(config_json(config))
        cfg = extra.put_into(
            _minimal(known, lambda d: effective_stream(StreamConfig.model_validate(d), target=minimal, origins=origins))
        )
    cfg.pop("name", None)
    _clean_metadata(cfg)
    _durations(cfg, _STREAM_DURATIONS)
    _durations(cfg, _STREAM_SIZES, readable_size)
    return cfg


def _origins(cfg: dict[str, Any], live: LiveState | None) -> dict[str, StreamConfig]:
    """A mirror's origin (its ``allow_direct`` sets the mirror's ``mirror_direct``)."""
    name = (cfg.get("mirror") or {}).get("name")
    if live is None or not isinstance(name, str) or name not in live.streams:
        return {}
    try:
        return {name: StreamConfig.model_validate(config_json(live.streams[name].config))}
    except ValueError:
        return {}


def _consumer_spec(
    config: EffectiveConsumer, extra: Extra, minimal: LintTarget | None = None, stream: EffectiveStream | None = None
) -> dict[str, Any]:
    cfg: dict[str, Any] = _tree(config_json(config, extra))
    meta = cfg.get("metadata") or {}
    resume = meta.get(RESUME)
    if resume and cfg.get("deliver_policy") == "by_start_sequence":
        restore_start(cfg, resume, keep=lambda v: v is not None)
    if minimal is not None:

        def stores(d: dict[str, Any]) -> EffectiveConsumer:
            return effective_consumer(ConsumerConfig.model_validate(d), stream, target=minimal)

        known = {
            k: v for k, v in cfg.items() if k in catalog.CONSUMER
        }  # the start restored above, without the unknown fields
        cfg = extra.put_into(_minimal(known, stores))
    cfg.pop("name", None)
    cfg.pop("durable_name", None)
    _clean_metadata(cfg)
    _durations(cfg, _CONSUMER_DURATIONS)
    _durations(cfg, _CONSUMER_SIZES, readable_size)
    if isinstance(cfg.get("backoff"), list):
        cfg["backoff"] = [
            readable_duration(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in cfg["backoff"]
        ]
    return cfg


_BUCKET_DURATIONS = {kind: catalog.fields_with_unit(kind, Unit.DURATION) for kind in ("KeyValue", "ObjectStore")}
_BUCKET_SIZES = {kind: catalog.fields_with_unit(kind, Unit.SIZE) for kind in ("KeyValue", "ObjectStore")}


def bucket_document(name: str, config: EffectiveStream, meta: dict[str, Any]) -> dict[str, Any] | None:
    """A native KeyValue/ObjectStore manifest for a live stream that is a bucket's stream: its name
    and subjects are a bucket's, and the stream the Go client builds from the recovered bucket
    config equals the live one field by field (else the stream is exported as a stream)."""
    live = _tree(config_json(config))
    _clean_metadata(live)
    hit = bucket_of_stream(live)
    if hit is None:
        return None
    kind, bucket, spec = hit
    model = KeyValueConfig if kind == "KeyValue" else ObjectStoreConfig
    try:
        rebuilt = effective_stream(StreamConfig.model_validate(bucket_stream(kind, model.model_validate(spec), bucket)))
    except ValueError:
        return None
    if diff_configs("Stream", config, rebuilt):
        return None
    _durations(spec, _BUCKET_DURATIONS[kind])
    _durations(spec, _BUCKET_SIZES[kind], readable_size)
    return {"apiVersion": "jsops/v1", "kind": kind, "metadata": {**meta, "name": bucket}, "spec": spec}


def export_documents(live: LiveState, options: ExportOptions | None = None) -> dict[str, list[dict[str, Any]]]:
    """File name -> native manifest documents. Ephemeral consumers are left out."""
    opts = options or ExportOptions()
    context, minimal = opts.context, opts.minimal
    files: dict[str, list[dict[str, Any]]] = {}
    used: set[str] = set()
    by_stream: dict[str, list[tuple[str, Any]]] = {}  # one pass over the consumers, not one per stream
    for (stream, cname), c in sorted(live.consumers.items()):
        by_stream.setdefault(stream, []).append((cname, c))
    for name in sorted(live.streams):
        if not opts.wants(name):
            continue
        s = live.streams[name]
        meta: dict[str, Any] = {"name": name}
        if context != "default":
            meta["context"] = context
        docs = [
            bucket_document(name, s.config, meta)
            or {
                "apiVersion": "jsops/v1",
                "kind": "Stream",
                "metadata": meta,
                "spec": _stream_spec(s.config, s.extra, minimal, live),
            }
        ]
        for cname, c in by_stream.get(name, ()):
            if not c.config.durable_name:
                continue
            cmeta: dict[str, Any] = {"name": cname, "stream": name}
            if context != "default":
                cmeta["context"] = context
            docs.append(
                {
                    "apiVersion": "jsops/v1",
                    "kind": "Consumer",
                    "metadata": cmeta,
                    "spec": _consumer_spec(c.config, c.extra, minimal, s.config),
                }
            )
        base = _file_base(name)
        fname, n = f"{base}.yaml", 1
        while fname.lower() in used:
            n += 1
            fname = f"{base}-{n}.yaml"
        used.add(fname.lower())
        files[fname] = docs
    return files


# A file name may be 255 bytes; stream names may be 255 characters. Longer bases keep their first
# characters and a digest of the whole name (two long names sharing a prefix stay apart).
_MAX_BASE = 255 - len("-999.yaml")


def _file_base(name: str) -> str:
    base = re.sub(r"[^A-Za-z0-9_-]", "_", name) or "stream"
    if len(base) > _MAX_BASE:
        digest = hashlib.sha256(name.encode()).hexdigest()[:16]
        base = f"{base[: _MAX_BASE - 17]}-{digest}"
    return base


def _create_new(directory: str, data: bytes) -> str:
    """A new file in ``directory`` holding ``data``: a fresh random name created exclusively and
    without following links (nothing planted at a guessable name is written through)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = os.path.join(directory, f".jsops-export-{secrets.token_hex(8)}.tmp")
        try:
            fd = os.open(path, flags, 0o644)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            os.unlink(path)
            raise
        return path
    raise FileExistsError(f"cannot create a temporary file in {directory}")


def write_export(live: LiveState, out_dir: str, options: ExportOptions | None = None) -> list[str]:
    """Write :func:`export_documents` under ``out_dir``; returns the paths written.

    All or nothing: every file is first written to a new temporary file (exclusive create, links
    not followed), then each is renamed over its name (a rename replaces a link, never writes
    through it); a failure before the renames removes the temporary files and changes nothing."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.default_flow_style = False
    yaml.width = 4096
    os.makedirs(out_dir, exist_ok=True)
    staged: list[tuple[str, str]] = []
    try:
        for fname, docs in export_documents(live, options).items():
            buf = io.StringIO()
            buf.write("# Exported by jsops from the live server.\n")
            yaml.dump_all(docs, buf)
            staged.append((_create_new(out_dir, buf.getvalue().encode("utf-8")), os.path.join(out_dir, fname)))
    except BaseException:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    written = []
    for tmp, path in staged:
        os.replace(tmp, path)
        written.append(path)
    return written
