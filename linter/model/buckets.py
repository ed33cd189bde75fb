"""Key-Value and Object Store buckets, and the stream each one really is.

A bucket is a stream the client library builds from a small bucket config. The functions here are
pure (no nats import): :func:`kv_stream` / :func:`object_stream` give the StreamConfig dict
(JetStream API snake_case) that a client sends for a bucket, as the Go client
(``nats.go/jetstream``: ``prepareKeyValueConfig``, ``prepareObjectStoreConfig``; what natscli,
NACK and terraform use) or nats-py (``create_key_value``, ``create_object_store``) builds it;
:func:`bucket_of_stream` recognises a live stream that a bucket config reproduces, for export.

Facts read from the clients' sources (never copied):

- Go KV: ``KV_<b>``, subjects ``$KV.<b>.>``, ``max_msgs_per_subject`` = history (default 1,
  at most 64), ``max_bytes``/``max_msg_size`` 0 -> -1, ``max_msgs``/``max_consumers`` -1,
  ``allow_rollup_hdrs``, ``deny_delete``, ``allow_direct``, ``discard: new``, duplicate window
  2m or the TTL if shorter, ``compression: s2`` for ``compression: true``; a limit marker TTL sets
  ``allow_msg_ttl`` and ``subject_delete_marker_ttl`` (refused by the client below API level 1,
  i.e. before nats-server 2.11). A mirror names ``KV_<origin>`` and sets ``mirror_direct`` (no
  subjects); a source of another bucket gets a ``$KV.<origin>.> -> $KV.<b>.>`` subject transform
  unless it already has transforms (then it is kept as given, name unchanged).
- nats-py KV: the same, except ``allow_direct`` only when ``direct`` is given, ``allow_msg_ttl``
  is always sent (servers before 2.11 ignore it), and placement, compression, metadata, mirror
  and sources are not sent at all.
- Object Store (both): ``OBJ_<b>``, subjects ``$O.<b>.C.>`` and ``$O.<b>.M.>``, ``discard: new``,
  ``allow_rollup_hdrs``, ``allow_direct``, ``max_bytes`` 0 -> -1; nats-py sends
  ``max_consumers: 0`` (the server stores -1) and no compression or metadata.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from ..jsonvalue import JsonObject
from ..semantics import catalog
from .config import Duration, Placement, Republish, Size, StreamSource, SubjectTransform, _Model
from .records.record import StrictBool, StrictInt, StrictStr

__all__ = [
    "KeyValueConfig",
    "ObjectStoreConfig",
    "BucketConfig",
    "BUCKET_KINDS",
    "KV_PREFIX",
    "OBJ_PREFIX",
    "KV_MAX_HISTORY",
    "VALID_BUCKET",
    "VALID_KEY",
    "kv_stream",
    "object_stream",
    "bucket_stream",
    "bucket_kind_of",
    "bucket_of_stream",
    "BUCKET_FIELDS",
    "bucket_suggestion",
]

KV_PREFIX = "KV_"
OBJ_PREFIX = "OBJ_"
KV_MAX_HISTORY = 64
DUPLICATE_WINDOW = 120_000_000_000  # 2 minutes, in ns
VALID_BUCKET = re.compile(r"^[a-zA-Z0-9_-]+$")
VALID_KEY = re.compile(r"^[-/_=.a-zA-Z0-9]+$")
BUCKET_KINDS = ("KeyValue", "ObjectStore")
Client = Literal["go", "nats-py"]


class KeyValueConfig(_Model):
    """A Key-Value bucket as the clients' KeyValueConfig names its fields."""

    bucket: StrictStr | None = None
    description: StrictStr | None = None
    max_value_size: Size | None = None
    history: StrictInt | None = None
    ttl: Duration | None = None
    max_bytes: Size | None = None
    storage: Literal["file", "memory"] | None = None
    replicas: StrictInt | None = None
    placement: Placement | None = None
    republish: Republish | None = None
    mirror: StreamSource | None = None
    sources: list[StreamSource] | None = None
    compression: StrictBool | None = None
    metadata: dict[StrictStr, StrictStr] | None = None
    limit_marker_ttl: Duration | None = None
    direct: StrictBool | None = None  # nats-py's option; the Go client always allows direct gets
    # Per-key TTLs without limit markers: nats-py always turns message TTLs on; the Go client only
    # with a limit_marker_ttl. Once on, the server cannot turn it off (a recreate).
    allow_msg_ttl: StrictBool | None = None


class ObjectStoreConfig(_Model):
    """An Object Store bucket as the clients' ObjectStoreConfig names its fields."""

    bucket: StrictStr | None = None
    description: StrictStr | None = None
    ttl: Duration | None = None
    max_bytes: Size | None = None
    storage: Literal["file", "memory"] | None = None
    replicas: StrictInt | None = None
    placement: Placement | None = None
    compression: StrictBool | None = None
    metadata: dict[StrictStr, StrictStr] | None = None


BucketConfig = KeyValueConfig | ObjectStoreConfig

# Stream field -> the bucket field it comes from (for findings that point at the manifest, and the plan).
BUCKET_FIELDS: dict[str, dict[str, str]] = {kind: catalog.bucket_names(kind) for kind in BUCKET_KINDS}
"""Bucket kind -> stream field -> the bucket config field that sets it (the field catalog's)."""


# Names people write for a bucket's fields that are neither the bucket's nor its stream's: natscli's flags
# (`nats kv add --max-bucket-size`, `nats object add --max-bucket-size`).
_ALIASES = {"max_bucket_size": "max_bytes", "bucket_size": "max_bytes", "max_history": "history"}


def bucket_suggestion(model: type[object], word: str) -> str | None:
    """For an unknown field ``word`` in a bucket config of ``model``: the bucket field meant (``ttl`` for
    ``max_age``, ``history`` for ``max_msgs_per_subject``, ``max_bytes`` for natscli's max bucket size),
    with what it is; None when ``model`` is not a bucket config or nothing is meant."""
    if model is KeyValueConfig:
        kind, fields = "KeyValue", KeyValueConfig.model_fields
    elif model is ObjectStoreConfig:
        kind, fields = "ObjectStore", ObjectStoreConfig.model_fields
    else:
        return None
    key = re.sub(r"(?<!^)(?=[A-Z])", "_", word).lower().replace("-", "_")
    named = BUCKET_FIELDS[kind].get(key)
    if named is not None and named != key and named in fields:
        article = "an" if kind[0] in "AEIOU" else "a"
        return f"; did you mean {named!r}? ({article} {kind}'s {named} sets its stream's {key})"
    alias = _ALIASES.get(key)
    if alias is not None and alias in fields:
        return f"; did you mean {alias!r}? (the {kind} config's name for it)"
    return None


def _dump(model: Any) -> dict[str, Any]:
    out: dict[str, Any] = model.model_dump(exclude_none=True, mode="json")
    return out


def _limit(v: int | None) -> int:
    return -1 if not v else v


def _kv_source(src: StreamSource, bucket: str, mirror: bool) -> dict[str, Any]:
    out = _dump(src)
    name = out.get("name") or ""
    if mirror:
        if not name.startswith(KV_PREFIX):
            out["name"] = KV_PREFIX + name
        return out
    if out.get("subject_transforms"):
        return out
    origin = name[len(KV_PREFIX) :] if name.startswith(KV_PREFIX) else name
    out["name"] = KV_PREFIX + origin
    if src.external is None or origin != bucket:
        out["subject_transforms"] = [_dump(SubjectTransform(src=f"$KV.{origin}.>", dest=f"$KV.{bucket}.>"))]
    return out


def kv_stream(cfg: KeyValueConfig, bucket: str, *, client: Client = "go") -> JsonObject:
    """The StreamConfig the client sends for a Key-Value bucket (``bucket`` overrides ``cfg.bucket``)."""
    ttl = cfg.ttl or 0
    out: JsonObject = {"name": KV_PREFIX + bucket}
    if cfg.description:
        out["description"] = cfg.description
    out["subjects"] = [f"$KV.{bucket}.>"]
    out["max_msgs_per_subject"] = cfg.history if cfg.history and cfg.history > 0 else 1
    out["max_bytes"] = _limit(cfg.max_bytes)
    out["max_age"] = ttl
    out["max_msg_size"] = _limit(cfg.max_value_size)
    out["max_msgs"] = -1
    out["max_consumers"] = -1
    out["storage"] = cfg.storage or "file"
    out["num_replicas"] = cfg.replicas or 1
    out["allow_rollup_hdrs"] = True
    out["deny_delete"] = True
    out["discard"] = "new"
    out["duplicate_window"] = ttl if 0 < ttl < DUPLICATE_WINDOW else DUPLICATE_WINDOW
    if cfg.republish is not None:
        out["republish"] = _dump(cfg.republish)
    marker = cfg.limit_marker_ttl or 0
    if client == "nats-py":
        if cfg.direct is not None:
            out["allow_direct"] = cfg.direct
        out["allow_msg_ttl"] = True
        if marker > 0:
            out["subject_delete_marker_ttl"] = marker
        return out
    if cfg.placement is not None:
        out["placement"] = _dump(cfg.placement)
    out["allow_direct"] = cfg.direct is not False  # the Go client always allows direct gets; `direct: false` opts out
    if cfg.compression:
        out["compression"] = "s2"
    if marker or cfg.allow_msg_ttl:
        out["allow_msg_ttl"] = True
    if marker:
        out["subject_delete_marker_ttl"] = marker
    if cfg.metadata:
        out["metadata"] = dict(cfg.metadata)
    if cfg.mirror is not None:
        out.pop("subjects")
        out["mirror"] = _kv_source(cfg.mirror, bucket, True)
        out["mirror_direct"] = True
    elif cfg.sources:
        out["sources"] = [_kv_source(s, bucket, False) for s in cfg.sources]
    return out


def object_stream(cfg: ObjectStoreConfig, bucket: str, *, client: Client = "go") -> JsonObject:
    """The StreamConfig the client sends for an Object Store bucket."""
    out: JsonObject = {"name": OBJ_PREFIX + bucket}
    if cfg.description:
        out["description"] = cfg.description
    out["subjects"] = [f"$O.{bucket}.C.>", f"$O.{bucket}.M.>"]
    out["max_age"] = cfg.ttl or 0
    out["max_bytes"] = _limit(cfg.max_bytes)
    out["storage"] = cfg.storage or "file"
    out["num_replicas"] = cfg.replicas or 1
    if cfg.placement is not None:
        out["placement"] = _dump(cfg.placement)
    out["discard"] = "new"
    out["allow_rollup_hdrs"] = True
    out["allow_direct"] = True
    if client == "nats-py":
        out["max_consumers"] = 0
        return out
    if cfg.compression:
        out["compression"] = "s2"
    if cfg.metadata:
        out["metadata"] = dict(cfg.metadata)
    return out


def bucket_stream(kind: str, cfg: BucketConfig, bucket: str, *, client: Client = "go") -> JsonObject:
    if kind == "KeyValue":
        assert isinstance(cfg, KeyValueConfig)
        return kv_stream(cfg, bucket, client=client)
    assert isinstance(cfg, ObjectStoreConfig)
    return object_stream(cfg, bucket, client=client)


def bucket_kind_of(name: str, subjects: list[str] | None) -> tuple[str, str] | None:
    """``(kind, bucket)`` when a stream's name and subjects are those of a bucket."""
    subs = list(subjects or [])
    if name.startswith(KV_PREFIX):
        b = name[len(KV_PREFIX) :]
        if VALID_BUCKET.match(b) and subs in ([f"$KV.{b}.>"], []):
            return "KeyValue", b
    if name.startswith(OBJ_PREFIX):
        b = name[len(OBJ_PREFIX) :]
        if VALID_BUCKET.match(b) and sorted(subs) == sorted([f"$O.{b}.C.>", f"$O.{b}.M.>"]):
            return "ObjectStore", b
    return None


# The stream fields a bucket spec may set, in the order the spec writes them; and, for some, the
# values that are the client's defaults (left out). Any other field is left out when it is empty.
_SPEC_ORDER = (
    "description",
    "max_msg_size",
    "max_msgs_per_subject",
    "max_age",
    "max_bytes",
    "storage",
    "num_replicas",
    "placement",
    "republish",
    "subject_delete_marker_ttl",
    "mirror",
    "sources",
    "allow_direct",
    "allow_msg_ttl",
    "compression",
    "metadata",
)
_CLIENT_DEFAULTS: dict[str, tuple[object, ...]] = {
    "max_msg_size": (-1, 0),
    "max_msgs_per_subject": (1, 0, -1),
    "max_bytes": (-1, 0),
    "storage": ("file",),
    "num_replicas": (1, 0),
}
_SKIP = object()


def _spec_value(name: str, config: dict[str, Any]) -> object:
    """What a bucket spec writes for the live stream field ``name`` (_SKIP: nothing, the client's default)."""
    if name == "allow_direct":
        return False if config.get(name) is False else _SKIP
    if name == "allow_msg_ttl":  # implied by a limit marker TTL
        return True if config.get(name) and not config.get("subject_delete_marker_ttl") else _SKIP
    if name == "compression":
        return True if config.get(name) == "s2" else _SKIP
    defaults = _CLIENT_DEFAULTS.get(name)
    if defaults is not None:
        value = config.get(name, defaults[0])
        return _SKIP if value in defaults else value
    return config.get(name) or _SKIP


def bucket_of_stream(config: dict[str, Any]) -> tuple[str, str, dict[str, Any]] | None:
    """``(kind, bucket, spec)`` for a live stream config whose shape a bucket builds, else None.

    The spec holds only the bucket fields that differ from the client's defaults (durations and
    sizes as integers). Callers check the round trip: :func:`bucket_stream` of the spec, made
    effective, must equal the live stream, or the stream is exported as a stream."""
    hit = bucket_kind_of(str(config.get("name") or ""), config.get("subjects"))
    if hit is None:
        return None
    kind, b = hit
    names = BUCKET_FIELDS[kind]
    spec: dict[str, Any] = {}
    for name in _SPEC_ORDER:
        if name in names:
            value = _spec_value(name, config)
            if value is not _SKIP:
                spec[names[name]] = value
    return kind, b, spec
