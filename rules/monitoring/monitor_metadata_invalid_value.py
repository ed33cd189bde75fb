"""JS444 ops-monitor-metadata-invalid-value."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import MonitorMetadataRule


class OpsMonitorMetadataInvalidValue(MonitorMetadataRule):
    """An io.nats.monitor.* metadata value that `nats server check` cannot parse.

    ## What it does
    For every `io.nats.monitor.*` metadata key that natscli knows for the object's kind (see
    JS443), parses the value the way natscli does (jsm.go's monitor package): `enabled` and `pinned` as Go
    booleans (`true`, `false`, `1`, `0`, `t`, `f`, ...); `lag-critical`, `peer-lag-critical`,
    `msgs-warn` and `msgs-critical` as whole numbers 0 or more; the other counts as whole numbers
    (a sign allowed); `seen-critical`, `peer-seen-critical`, `last-delivery-critical` and
    `last-ack-critical` as durations: a number with a unit for each part (`ns`, `us`, `ms`, `s`,
    `m`, `h`, and `d`, `w`, `M` for 30 days, `y`), or `0`.

    ## Why is this bad?
    natscli stops at the first value it cannot parse. `nats server check stream` then reports
    CRITICAL ("could not configure based on metadata") instead of checking the stream: the
    monitor pages people for a typo and checks nothing else. `nats audit` skips the stream, or
    the remaining consumers of the stream, with only a log line: their checks silently stop.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 30d}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec:
      ack_policy: explicit
      metadata: {io.nats.monitor.last-ack-critical: "300"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 30d}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec:
      ack_policy: explicit
      metadata: {io.nats.monitor.last-ack-critical: 5m}
    ```

    ## Fix
    No automatic fix: write the value in the form the message asks for.
    """

    code = "JS444"
    name = "ops-monitor-metadata-invalid-value"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS

    def scan(
        self, resource: api.Resource, entries: dict[str, str], known: dict[str, api.ValueKind]
    ) -> Iterator[api.Violation]:
        for suffix, value in entries.items():
            value_kind = known.get(suffix)
            if value_kind is None:
                continue
            key = api.MONITOR_PREFIX + suffix
            problem = api.monitor_value_problem(value_kind, value)
            if problem is None:
                continue
            if resource.kind == "Stream":
                effect = (
                    "`nats server check stream` reports CRITICAL instead of checking, and `nats audit` skips the stream"
                )
            else:
                effect = "`nats audit` stops checking this stream's consumers here"
            yield api.Violation(
                resource,
                ("metadata", key),
                f"natscli cannot parse {key} {value!r} ({problem}): {effect}",
                fix=api.FixSuggestion.unsafe(f"write {problem[len('expected ') :]}"),
            )


RULE = OpsMonitorMetadataInvalidValue
