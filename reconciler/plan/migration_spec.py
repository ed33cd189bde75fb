"""A migration's steps as data (:class:`MigrationSpec`): what it moves, from where, through what, with which
consumers (their configs as records). Planned by :mod:`jsops.reconciler.plan.migration`, carried by the
``migrate`` action (:attr:`jsops.reconciler.plan.model.Intent.migration`), run by
:mod:`jsops.reconciler.migration_steps`; its JSON is a plan's ``migration`` (configs in the server's JSON)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jsops.linter import EffectiveConsumer, EffectiveStream

from ..configs import config_json

__all__ = ["ConsumerMove", "MigrationSpec"]


@dataclass(frozen=True)
class ConsumerMove:
    """What one consumer's migration does, as the plan tells it (text only: not in a plan's JSON).
    ``fate``: ``position`` (created on the new stream at its position), ``first`` (a work queue: at the first
    message, its position), ``reset`` (where its manifest says: --reset-position), ``new`` (declared on the new
    stream, not on the old: where its manifest says), ``deleted`` (on the old stream, not declared on the new);
    ``ack_floor``/``pending``: where it is now (None: it is not on the old stream); ``unknown``: fields of
    its config this jsops does not know, carried as the server has them."""

    name: str
    fate: str
    ack_floor: int | None = None
    pending: int = 0
    unknown: tuple[str, ...] = ()


@dataclass(frozen=True)
class MigrationSpec:
    """What one migration moves: ``source`` -> ``target`` (the same name: through ``via``)."""

    source: str
    target: str
    via: str | None = None
    via_config: EffectiveStream | None = None  # the temporary stream (the old config, renamed)
    consumers: dict[str, EffectiveConsumer] = field(default_factory=dict)  # desired consumers of the target
    messages: int = 0
    bytes: int = 0
    reset: tuple[str, ...] = ()  # consumers created at their manifest's start (--reset-position), not at their position
    rollback: bool = False  # an unfinished migration the manifests no longer ask for: rolled back

    def to_json(self) -> dict[str, Any]:
        """The migration in a plan's JSON (contracts §5): its configs as the server's JSON."""
        if self.rollback:
            return {"from": self.source, "to": self.target, "rollback": True, "consumers": {}}
        out: dict[str, Any] = {
            "from": self.source,
            "to": self.target,
            "consumers": {name: config_json(c) for name, c in self.consumers.items()},
            "messages": self.messages,
            "bytes": self.bytes,
            "strategy": "mirror",
        }
        if self.reset:
            out["reset"] = list(self.reset)
        if self.via is not None:
            out["via"], out["via_config"] = (
                self.via,
                config_json(self.via_config) if self.via_config is not None else None,
            )
        return out

    def steps(self) -> dict[str, Any]:
        """What the migration does, without the counts it was planned with (publishers keep publishing)."""
        return {k: v for k, v in self.to_json().items() if k not in ("messages", "bytes")}
