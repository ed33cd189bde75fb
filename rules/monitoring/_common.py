"""Helpers shared by the monitoring rules (``rules/monitoring/``)."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import api

__all__ = ["MonitorMetadataRule"]


class MonitorMetadataRule(api.Rule):
    """A rule over an object's ``io.nats.monitor.*`` metadata: :meth:`scan` gets its entries (key
    without the prefix -> value) when it has any, and the keys natscli knows for its kind."""

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        entries = api.monitor_metadata(getattr(resource.config, "metadata", None))
        return list(self.scan(resource, entries, api.monitor_keys(resource.kind))) if entries else ()

    def scan(
        self, resource: api.Resource, entries: dict[str, str], known: dict[str, api.ValueKind]
    ) -> Iterable[api.Violation]:
        """The findings for the entries of ``resource``'s monitoring metadata."""
        return ()
