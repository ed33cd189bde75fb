"""What a rule reports before the engine places it: a :class:`Violation` (a resource, the path of the field at
fault, the message, the server's err_code when it would refuse), the helpers that build one, and the typed
config of the resource a rule looks at. Re-exported by :mod:`jsops.linter.api`."""

from __future__ import annotations

from dataclasses import dataclass

from .findings import FieldPath, FixSuggestion, Severity
from .load import Resource
from .model.config import ConsumerConfig, StreamConfig

__all__ = ["Violation", "consumer_config", "pedantic_rejection", "stream_config", "where"]


@dataclass(frozen=True)
class Violation:
    resource: Resource
    path: FieldPath
    message: str
    server_error_code: int | None = None
    fix: FixSuggestion | None = None
    key: bool = False  # point at the field's key rather than its value
    # The finding's severity when it differs from the rule's (a field an older release drops silently: a warning); the config's still wins.
    severity: Severity | None = None


def pedantic_rejection(resource: Resource, path: FieldPath, what: str, code: int) -> Violation:
    """The finding for ``what`` nats-server refuses (err_code ``code``) only when requests are
    pedantic (``Target.pedantic``), worded for the resource's kind."""
    return Violation(
        resource,
        path,
        f"{what}; with pedantic requests nats-server rejects this {resource.kind.lower()}",
        server_error_code=code,
    )


def stream_config(resource: Resource) -> StreamConfig:
    """The typed config of a stream resource (``TypeError`` for a consumer)."""
    cfg = resource.config
    if not isinstance(cfg, StreamConfig):
        raise TypeError(f"{resource.kind} {resource.name} is not a stream")
    return cfg


def consumer_config(resource: Resource) -> ConsumerConfig:
    """The typed config of a consumer resource (``TypeError`` for a stream)."""
    cfg = resource.config
    if not isinstance(cfg, ConsumerConfig):
        raise TypeError(f"{resource.kind} {resource.name} is not a consumer")
    return cfg


def where(resource: Resource, path: FieldPath = ()) -> str:
    """``file:line`` of a resource's field, for messages that point at another object."""
    line, _ = resource.locate(path)
    return f"{resource.file}:{line}"
