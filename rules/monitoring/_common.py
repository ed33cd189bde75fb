"""Helpers shared by the monitoring rules (``rules/monitoring/``)."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter.api import Resource, Rule, RuleContext, ValueKind, Violation, monitor_keys, monitor_metadata

__all__ = ["MonitorMetadataRule"]


class MonitorMetadataRule(Rule):
    """A rule over an object's ``io.nats.monitor.*`` metadata: :meth:`scan` gets its entries (key
    without the prefix -> value) when it has any, and the keys natscli knows for its kind."""

    def check(self, resource: Resource, ctx: RuleContext) -> Iterable[Violation]:
        entries = monitor_metadata(getattr(resource.config, "metadata", None))
        return list(self.scan(resource, entries, monitor_keys(resource.kind))) if entries else ()

    def scan(self, resource: Resource, entries: dict[str, str], known: dict[str, ValueKind]) -> Iterable[Violation]:
        """The findings for the entries of ``resource``'s monitoring metadata."""
        return ()
