"""Live state as native manifests: one file per stream, holding the stream and its durable consumers."""

from __future__ import annotations

import io
import json
import os
import re
from typing import Any

from linter.buckets import BUCKET_KINDS, KeyValueConfig, ObjectStoreConfig, bucket_of_stream, bucket_stream
from linter.effective import effective_stream
from linter.model.config import StreamConfig

from .diff import BOOKKEEPING_KEYS, diff_configs
from .live import RESUME, LiveState

__all__ = ["export_documents", "write_export", "go_duration"]

_STREAM_DURATIONS = {("max_age",), ("duplicate_window",), ("subject_delete_marker_ttl",), ("consumer_limits", "inactive_threshold")}
_CONSUMER_DURATIONS = {("ack_wait",), ("idle_heartbeat",), ("inactive_threshold",), ("max_expires",), ("priority_timeout",)}
_UNITS = (("h", 3_600_000_000_000), ("m", 60_000_000_000), ("s", 1_000_000_000), ("ms", 1_000_000))


def go_duration(ns: int) -> str | int:
    """A Go duration string equal to ``ns`` nanoseconds (or ``ns`` itself when none is exact)."""
    if ns <= 0 or ns % 1_000_000:
        return ns
    parts, rest = [], ns
    for unit, size in _UNITS:
        if rest >= size:
            parts.append(f"{rest // size}{unit}")
            rest %= size
    return "".join(parts)


def _clean_metadata(cfg: dict[str, Any]) -> None:
    meta = cfg.get("metadata")
    if isinstance(meta, dict):
        kept = {k: v for k, v in meta.items() if not k.startswith("_nats.") and k not in BOOKKEEPING_KEYS}
        if kept:
            cfg["metadata"] = kept
        else:
            cfg.pop("metadata")


def _durations(cfg: dict[str, Any], paths: set[tuple[str, ...]]) -> None:
    for path in paths:
        holder: Any = cfg
        for p in path[:-1]:
            holder = holder.get(p) if isinstance(holder, dict) else None
        if isinstance(holder, dict) and isinstance(holder.get(path[-1]), int) and not isinstance(holder.get(path[-1]), bool):
            holder[path[-1]] = go_duration(holder[path[-1]])


def _stream_spec(config: dict[str, Any]) -> dict[str, Any]:
    cfg = json.loads(json.dumps(config))
    cfg.pop("name", None)
    _clean_metadata(cfg)
    _durations(cfg, _STREAM_DURATIONS)
    return cfg


def _consumer_spec(config: dict[str, Any]) -> dict[str, Any]:
    cfg = json.loads(json.dumps(config))
    meta = cfg.get("metadata") or {}
    resume = meta.get(RESUME)
    if resume and cfg.get("deliver_policy") == "by_start_sequence":
        try:
            start = json.loads(resume)
        except ValueError:
            start = None
        if isinstance(start, dict):
            for f in ("deliver_policy", "opt_start_seq", "opt_start_time"):
                cfg.pop(f, None)
                if start.get(f) is not None:
                    cfg[f] = start[f]
    cfg.pop("name", None)
    cfg.pop("durable_name", None)
    _clean_metadata(cfg)
    _durations(cfg, _CONSUMER_DURATIONS)
    if isinstance(cfg.get("backoff"), list):
        cfg["backoff"] = [go_duration(v) if isinstance(v, int) else v for v in cfg["backoff"]]
    return cfg


_BUCKET_DURATIONS = {("ttl",), ("limit_marker_ttl",)}


def bucket_document(name: str, config: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any] | None:
    """A native KeyValue/ObjectStore manifest for a live stream that is a bucket's stream: its name
    and subjects are a bucket's, and the stream the Go client builds from the recovered bucket
    config equals the live one field by field (else the stream is exported as a stream)."""
    live = json.loads(json.dumps(config))
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
    if diff_configs("Stream", live, rebuilt):
        return None
    _durations(spec, _BUCKET_DURATIONS)
    return {"apiVersion": "jsops/v1", "kind": kind, "metadata": {**meta, "name": bucket}, "spec": spec}


def export_documents(live: LiveState, context: str = "default") -> dict[str, list[dict[str, Any]]]:
    """File name -> native manifest documents. Ephemeral consumers are left out."""
    files: dict[str, list[dict[str, Any]]] = {}
    used: set[str] = set()
    for name in sorted(live.streams):
        s = live.streams[name]
        meta: dict[str, Any] = {"name": name}
        if context != "default":
            meta["context"] = context
        docs = [bucket_document(name, s.config, meta) or {"apiVersion": "jsops/v1", "kind": "Stream", "metadata": meta, "spec": _stream_spec(s.config)}]
        for (stream, cname), c in sorted(live.consumers.items()):
            if stream != name or not c.config.get("durable_name"):
                continue
            cmeta: dict[str, Any] = {"name": cname, "stream": name}
            if context != "default":
                cmeta["context"] = context
            docs.append({"apiVersion": "jsops/v1", "kind": "Consumer", "metadata": cmeta, "spec": _consumer_spec(c.config)})
        base = re.sub(r"[^A-Za-z0-9_-]", "_", name) or "stream"
        fname, n = f"{base}.yaml", 1
        while fname.lower() in used:
            n += 1
            fname = f"{base}-{n}.yaml"
        used.add(fname.lower())
        files[fname] = docs
    return files


def write_export(live: LiveState, out_dir: str, context: str = "default") -> list[str]:
    """Write :func:`export_documents` under ``out_dir``; returns the paths written."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.default_flow_style = False
    yaml.width = 4096
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for fname, docs in export_documents(live, context).items():
        buf = io.StringIO()
        buf.write("# Exported by jsops from the live server.\n")
        yaml.dump_all(docs, buf)
        path = os.path.join(out_dir, fname)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(buf.getvalue())
        os.replace(tmp, path)
        written.append(path)
    return written
