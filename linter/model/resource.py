"""The objects a set of manifests declares, and the estate that holds them.

A :class:`Declaration` is an object as a manifest writes it (kind, name, stream, context, where
it came from) before its config is validated: only the loader sees one. A :class:`Resource` is a
declaration with its validated config, built whole once validation succeeded; rules, plans and
reports only ever see resources. ``Resource`` is generic in its config: :data:`StreamResource`
(``Resource[StreamConfig]``), :data:`ConsumerResource` (``Resource[ConsumerConfig]``) and
:data:`BucketResource` (the stream of a Key-Value or Object Store bucket, ``bucket`` set).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeGuard

from typing_extensions import TypeVar

from ..findings import FieldPath, Finding, ObjectRef
from .config import ConsumerConfig, StreamConfig
from .positions import PosEntry, resolve_position

if TYPE_CHECKING:
    from ..load.templates import Rendered
    from .buckets import BucketConfig

__all__ = [
    "DOCUMENT",
    "ResourceKey",
    "Declaration",
    "Resource",
    "StreamResource",
    "ConsumerResource",
    "BucketResource",
    "is_stream",
    "is_consumer",
    "NackAccount",
    "Estate",
]

# A field path that starts with DOCUMENT names a path of the whole document, not of the config: a
# finding about the manifest's own metadata (an annotation) says ``(DOCUMENT, "metadata",
# "annotations", KEY)``. Never a config field's name.
DOCUMENT = "<document>"

# (context, kind, name, stream): what makes an object unique in an estate.
ResourceKey = tuple[str, str, str, str | None]

ConfigT = TypeVar("ConfigT", bound=StreamConfig | ConsumerConfig, default=StreamConfig | ConsumerConfig, covariant=True)
_C = TypeVar("_C", bound=StreamConfig | ConsumerConfig)


@dataclass(kw_only=True)
class Declaration:
    """A stream or consumer as a manifest declares it, before its config is validated (built by keyword)."""

    kind: str  # "Stream" | "Consumer"
    name: str
    stream: str | None
    file: str
    context: str = "default"
    annotations: dict[str, str] = field(default_factory=dict)
    dialect: str = "native"  # "native", "nack/v1beta2", "nack/v1beta1" or "api"
    document: int = 0  # index of the document in its file
    doc_line: int = 1
    positions: PosEntry | None = None
    spec_path: FieldPath = ("spec",)
    # Config field path -> document path, where a dialect names or places a field differently.
    key_map: dict[FieldPath, FieldPath] = field(default_factory=dict)
    raw: Any = None

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef(self.kind, self.name, self.stream)

    @property
    def labels(self) -> dict[str, str]:
        """The manifest's ``metadata.labels`` (checked string to string by the loaders; {} without)."""
        meta = self.raw.get("metadata") if isinstance(self.raw, Mapping) else None
        labels = meta.get("labels") if isinstance(meta, Mapping) else None
        return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, Mapping) else {}

    @property
    def key(self) -> ResourceKey:
        return (self.context, self.kind, self.name, self.stream)

    def source_path(self, path: FieldPath) -> FieldPath:
        """The document path of a config field path (dialects rename keys), or of a path under
        :data:`DOCUMENT`."""
        if path and path[0] == DOCUMENT:
            return tuple(path[1:])
        for cut in range(len(path), 0, -1):
            hit = self.key_map.get(tuple(path[:cut]))
            if hit is not None:
                return hit + tuple(path[cut:])
        return self.spec_path + tuple(path)

    def locate(self, path: FieldPath = (), *, key: bool = False, document_path: bool = False) -> tuple[int, int]:
        """``(line, column)`` of a config field (``("max_age",)``) or, with ``document_path``, of a
        path in the whole document (``("metadata", "name")``)."""
        full = tuple(path) if document_path else self.source_path(tuple(path))
        pos = resolve_position(self.positions, full, key=key)
        return pos if pos is not None else (self.doc_line, 1)


@dataclass(kw_only=True)
class Resource(Declaration, Generic[ConfigT]):
    """One stream or consumer from a manifest, with its validated config and where it came from."""

    config: ConfigT
    # For the stream of a bucket: "KeyValue" or "ObjectStore", and the bucket's own config
    # (jsops.linter.model.buckets); ``config`` is then the stream the client builds for it.
    bucket: str | None = None
    bucket_config: BucketConfig | None = None

    def word(self, stream_field: str) -> str:
        """The name a message gives a stream field: the bucket's own field for the stream of a bucket
        (``ttl`` for ``max_age``, ``history`` for ``max_msgs_per_subject``), else the field itself."""
        if self.bucket is None:
            return stream_field
        from .buckets import BUCKET_FIELDS

        return BUCKET_FIELDS[self.bucket].get(stream_field, stream_field)

    def words(self, *stream_fields: str) -> list[str]:
        """The names of those of ``stream_fields`` the object's manifest can set (:meth:`word`): all of them for
        a stream, for a bucket only those its config has (a KeyValue has no ``max_msgs``)."""
        if self.bucket is None:
            return list(stream_fields)
        from .buckets import BUCKET_FIELDS

        return [BUCKET_FIELDS[self.bucket][f] for f in stream_fields if f in BUCKET_FIELDS[self.bucket]]

    def label(self) -> str:
        """The object as a message names it: ``stream ORDERS``, or ``KeyValue 'sessions'`` for a bucket's stream."""
        if self.bucket is None:
            return f"{self.kind.lower()} {self.name}"
        return f"{self.bucket} {self.name.split('_', 1)[1]!r}"

    @staticmethod
    def of(
        declared: Declaration, config: _C, *, bucket: str | None = None, bucket_config: BucketConfig | None = None
    ) -> Resource[_C]:
        """The resource a declaration becomes once its config is valid."""
        return Resource(
            kind=declared.kind,
            name=declared.name,
            stream=declared.stream,
            file=declared.file,
            context=declared.context,
            annotations=declared.annotations,
            dialect=declared.dialect,
            document=declared.document,
            doc_line=declared.doc_line,
            positions=declared.positions,
            spec_path=declared.spec_path,
            key_map=declared.key_map,
            raw=declared.raw,
            config=config,
            bucket=bucket,
            bucket_config=bucket_config,
        )


StreamResource = Resource[StreamConfig]
ConsumerResource = Resource[ConsumerConfig]
# The stream of a Key-Value or Object Store bucket: ``bucket`` and ``bucket_config`` are set.
BucketResource = Resource[StreamConfig]


def is_stream(resource: Resource) -> TypeGuard[StreamResource]:
    return resource.kind == "Stream"


def is_consumer(resource: Resource) -> TypeGuard[ConsumerResource]:
    return resource.kind == "Consumer"


@dataclass
class NackAccount:
    """A NACK ``Account`` resource: the servers NACK connects to for the objects that name it in
    ``spec.account``. Its credentials are Kubernetes Secret references, which jsops cannot read."""

    name: str
    file: str
    line: int
    servers: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()  # which of creds / tls / user / token the account takes from Secrets


@dataclass(frozen=True)
class _Index:
    streams: tuple[StreamResource, ...]
    consumers: tuple[ConsumerResource, ...]
    buckets: tuple[BucketResource, ...]
    stream_by_name: dict[tuple[str, str], StreamResource]
    consumers_by_stream: dict[tuple[str, str], tuple[ConsumerResource, ...]]


def _build_index(resources: list[Resource]) -> _Index:
    streams = tuple(r for r in resources if is_stream(r))
    consumers = tuple(r for r in resources if is_consumer(r))
    by_name: dict[tuple[str, str], StreamResource] = {}
    for s in streams:
        by_name.setdefault((s.context, s.name), s)
    by_stream: dict[tuple[str, str], list[ConsumerResource]] = {}
    for c in consumers:
        by_stream.setdefault((c.context, c.stream or ""), []).append(c)
    return _Index(
        streams,
        consumers,
        tuple(s for s in streams if s.bucket),
        by_name,
        {k: tuple(v) for k, v in by_stream.items()},
    )


@dataclass
class Estate:
    """Everything loaded from a set of paths."""

    resources: list[Resource] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    # (context, kind, name, stream) of objects that are declared but failed validation: other
    # objects may still refer to them without a cascade of "not found" findings.
    invalid: set[ResourceKey] = field(default_factory=set)
    # Rendered templates by file (text and line map), for notes on findings whose rendered line
    # maps only roughly onto the template.
    rendered: dict[str, Rendered] = field(default_factory=dict)
    # Documents of other kinds in the same files (Kubernetes Deployments, ConfigMaps, ...): (file, line,
    # "apiVersion kind"), passed over quietly and counted in the summary.
    skipped: list[tuple[str, int, str]] = field(default_factory=list)
    # Files that are not JetStream configs (jsops.linter.load.recognise: package.json, Helm charts and
    # templates, CI workflows, ...): file -> why, passed over without a finding and counted.
    not_jetstream: dict[str, str] = field(default_factory=dict)
    # NACK Account resources by name: the connection a NACK object with ``spec.account`` is routed to
    # (its context is the account's name).
    accounts: dict[str, NackAccount] = field(default_factory=dict)
    # Objects whose stream (or name) came from the file's directory or name (natscli files), for messages.
    named_from_path: set[ResourceKey] = field(default_factory=set)
    # The stream of a bare consumer config (natscli's `nats consumer add STREAM --config FILE`), as the
    # user gives it: (file glob, stream), the first match wins (``--stream`` is the glob ``*``, last).
    consumer_streams: list[tuple[str, str]] = field(default_factory=list)
    # The NACK release whose CRDs NACK files are checked against (``--nack-version``): a tag or minor
    # (jsops.linter.load.nack_releases); None: the newest jsops knows.
    nack_version: str | None = None
    # Bare consumer configs (natscli's `nats consumer add STREAM --config FILE`) whose stream is
    # unknown: consumers with ``stream`` None, kept out of ``resources`` (nothing plans or applies
    # them); the lint engine makes every check of theirs that does not need the stream.
    bare: list[Resource] = field(default_factory=list)
    # Request bodies (API JSON) refused only for unknown fields, without them: what the releases
    # before strict decoding (2.12), which drop unknown fields, receive and judge (release_view).
    lenient: list[Resource] = field(default_factory=list)
    # Files that are not manifests (links out of the tree, files with no manifest in them): no
    # report or later step reads or quotes them.
    opaque: set[str] = field(default_factory=set)
    # Files whose bytes, as the loader read them, hold no suppression marker (``jsops:``,
    # jsops.linter.load.files.SUPPRESSION_MARKER): the engine does not read them again for comments.
    unmarked: set[str] = field(default_factory=set)
    # The indexes below, and the (list identity, length) of ``resources`` they were built for: adding
    # a resource (or replacing the list) rebuilds them on next use.
    _index: _Index | None = field(default=None, init=False, repr=False, compare=False)
    _indexed: tuple[int, int] = field(default=(0, -1), init=False, repr=False, compare=False)

    def add(self, resource: Resource) -> None:
        self.resources.append(resource)
        self._index = None

    def invalidate(self) -> None:
        """Drop the indexes (after changing ``resources`` in place other than by adding)."""
        self._index = None

    def _indexes(self) -> _Index:
        now = (id(self.resources), len(self.resources))
        if self._index is None or self._indexed != now:
            self._index = _build_index(self.resources)
            self._indexed = now
        return self._index

    def streams(self) -> Iterator[StreamResource]:
        return iter(self._indexes().streams)

    def consumers(self) -> Iterator[ConsumerResource]:
        return iter(self._indexes().consumers)

    def buckets(self) -> Iterator[BucketResource]:
        return iter(self._indexes().buckets)

    def stream_of(self, consumer: Resource) -> StreamResource | None:
        """The stream a consumer belongs to, in the consumer's context (None: not declared or invalid)."""
        return self._indexes().stream_by_name.get((consumer.context, consumer.stream or ""))

    def consumers_of(self, stream: Resource) -> tuple[ConsumerResource, ...]:
        """The consumers of a stream, in the stream's context, in load order."""
        return self._indexes().consumers_by_stream.get((stream.context, stream.name), ())
