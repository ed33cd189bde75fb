"""JS443 ops-monitor-metadata-unknown-key."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from jsops.linter import api

from ._common import MonitorMetadataRule


class OpsMonitorMetadataUnknownKey(MonitorMetadataRule):
    """An io.nats.monitor.* metadata key that `nats server check` does not know for this kind of object.

    ## What it does
    Checks every `metadata` key of a stream or consumer that starts with `io.nats.monitor.`
    against the keys natscli's monitoring reads (jsm.go's monitor package: `nats server check
    stream` reads a stream's keys, `nats audit` reads stream and consumer keys once
    `io.nats.monitor.enabled` is true; Synadia Insights reads the same keys). Streams: `enabled`, `lag-critical`, `seen-critical`, `min-sources`, `max-sources`,
    `peer-expect`, `peer-lag-critical`, `peer-seen-critical`, `msgs-warn`, `msgs-critical`,
    `subjects-warn`, `subjects-critical`. Consumers: `enabled`, `outstanding-ack-critical`,
    `waiting-critical`, `unprocessed-critical`, `last-delivery-critical`, `last-ack-critical`,
    `redelivery-critical`, `pinned`. A stream key on a consumer (or the other way round) is
    unknown too; the message says so, and suggests the closest known key for a typo.

    ## Why is this bad?
    natscli ignores keys it does not know, without a word. The threshold the key was meant to
    set is never checked, so the alert the team relies on never fires.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_BACKUP}
    spec:
      mirror: {name: ORDERS}
      metadata: {io.nats.monitor.lag_critical: "200"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_BACKUP}
    spec:
      mirror: {name: ORDERS}
      metadata: {io.nats.monitor.lag-critical: "200"}
    ```

    ## Fix
    No automatic fix. Rename the key to the one natscli reads (the message suggests it), or
    remove it.
    """

    code = "JS443"
    name = "ops-monitor-metadata-unknown-key"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS

    def scan(
        self, resource: api.Resource, entries: dict[str, str], known: dict[str, api.ValueKind]
    ) -> Iterator[api.Violation]:
        kind = resource.kind.lower()
        for suffix in entries:
            if suffix in known:
                continue
            key = api.MONITOR_PREFIX + suffix
            other = api.MONITOR_CONSUMER_KEYS if resource.kind == "Stream" else api.MONITOR_STREAM_KEYS
            if suffix in other:
                hint = f"; it is a {'consumer' if resource.kind == 'Stream' else 'stream'} key"
                advice = f"move it to the {'consumer' if resource.kind == 'Stream' else 'stream'} or remove it"
            else:
                close = difflib.get_close_matches(suffix, list(known), n=1, cutoff=0.6)
                hint = f"; did you mean {api.MONITOR_PREFIX}{close[0]}?" if close else ""
                advice = f"rename it to {api.MONITOR_PREFIX}{close[0]}" if close else "remove it"
            yield api.Violation(
                resource,
                ("metadata", key),
                f"natscli's {kind} monitoring does not know metadata key {key!r} and ignores it{hint}",
                fix=api.FixSuggestion.unsafe(advice),
                key=True,
            )


RULE = OpsMonitorMetadataUnknownKey
