"""JS446 ops-duration-implausibly-small."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsops.linter import api

PLAUSIBLE = 100 * api.MILLISECOND  # below this, none of these fields does what anyone wants
FIELDS = {
    "Stream": ("max_age", "duplicate_window"),
    "Consumer": ("ack_wait", "idle_heartbeat", "inactive_threshold", "max_expires"),
}
EFFECT = {
    "max_age": "messages expire as soon as they are stored",
    "duplicate_window": "no retry is ever recognised as a duplicate",
    "ack_wait": "every message is redelivered before a handler can ack it",
    "idle_heartbeat": "heartbeats flood the client",
    "inactive_threshold": "the consumer is deleted as soon as it is idle",
    "max_expires": "every pull request expires at once",
    "backoff": "redeliveries come back at once",
}


def _raw(resource: api.Resource, path: api.FieldPath) -> Any:
    """The value as written in the document (before units were parsed), or None."""
    node = resource.raw
    for key in resource.source_path(path):
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
        else:
            return None
    return node


def _meant(raw: object) -> list[str]:
    """What a bare number was probably meant to be: seconds, or milliseconds when it looks like them."""
    if not isinstance(raw, int) or isinstance(raw, bool) or raw <= 0:
        return []
    out = [f"{raw}s"]
    if raw >= 1000 and raw % 1000 == 0:
        out.append(f"{api.format_duration(raw * api.MILLISECOND)} (if {raw} was milliseconds)")
    return out


class OpsDurationImplausiblySmall(api.Rule):
    """A duration far too small for its field: usually a bare number read as nanoseconds.

    ## What it does
    Flags `ack_wait`, `backoff` steps, `idle_heartbeat`, `inactive_threshold`, `max_expires`,
    `max_age` and `duplicate_window` set to a positive value below 100ms. A bare integer is
    nanoseconds (the JetStream API's unit): `ack_wait: 30` is 30ns, not 30s. NACK's CRD default
    `ackWait: 1ns` is flagged too.

    ## Why is this bad?
    nats-server accepts most of these values and then behaves uselessly: an ack wait of 30ns
    redelivers every message at once, a backoff of nanoseconds retries in a tight loop, an
    inactive threshold of nanoseconds deletes the consumer as soon as it is idle. The fields it
    rejects below 100ms (`max_age`, `duplicate_window`, `idle_heartbeat`) are reported as errors by
    other rules; this one says which unit was probably meant.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: billing, stream: ORDERS}
    spec: {ack_wait: 30, max_deliver: 5}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: billing, stream: ORDERS}
    spec: {ack_wait: 30s, max_deliver: 5}
    ```

    ## Fix
    Unsafe (`--fix --unsafe-fixes`): a bare number `N` becomes `Ns` (the message also names `N`
    milliseconds when that reads as a round duration). Other values: write the duration with its
    unit.
    """

    code = "JS446"
    name = "ops-duration-implausibly-small"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.SOMETIMES
    bucket_words = True  # the label is the field as the manifest spells it (a bucket's ttl)
    kinds = frozenset({"Stream", "Consumer"})

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterator[api.Violation]:
        cfg = resource.config
        paths: list[tuple[str] | tuple[str, int]] = [(f,) for f in FIELDS[resource.kind]]
        if resource.kind == "Consumer":
            paths += [("backoff", i) for i in range(len(api.consumer_config(resource).backoff or []))]
        for path in paths:
            if not resource.words(path[0]):
                continue  # a field a bucket's client sets itself (the duplicate window follows ttl): ttl is checked
            value = getattr(cfg, path[0], None)
            if len(path) == 2 and isinstance(value, list):
                value = value[path[1]]
            if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < PLAUSIBLE:
                continue
            yield self._violation(resource, path, value)

    def _violation(self, resource: api.Resource, path: tuple[str] | tuple[str, int], value: int) -> api.Violation:
        src = resource.source_path(path)
        key = src[-1] if len(path) == 1 else src[-2]
        name = key if isinstance(key, str) else path[0]  # as the manifest spells it (NACK: ackWait)
        label = name if len(path) == 1 else f"{name}[{path[1]}]"
        raw = _raw(resource, path)
        meant = _meant(raw)
        effect = EFFECT[path[0]]
        if meant:
            what = f"{label}: {raw} is {api.format_duration(value)}: a bare number is nanoseconds (the API's unit)"
            hint = " or ".join(meant)
            fix = api.FixSuggestion.unsafe(
                f"write {label}: {meant[0]}" + (f" (or {meant[1]})" if len(meant) > 1 else ""),
                (api.Edit.set(path, meant[0]),),
            )
            return api.Violation(resource, path, f"{what}, so {effect}; did you mean {hint}?", fix=fix)
        nack_default = resource.dialect.startswith("nack") and path == ("ack_wait",) and value == 1
        what = f"{label} {api.format_duration(value)} is implausibly small" + (
            " (NACK's CRD default ackWait is 1ns)" if nack_default else ""
        )
        advice = (
            "remove ackWait (the server default is 30s) or set it, e.g. 30s"
            if nack_default
            else f"write {label} with the unit you meant, e.g. 30s"
        )
        return api.Violation(resource, path, f"{what}: {effect}", fix=api.FixSuggestion.unsafe(advice))


RULE = OpsDurationImplausiblySmall
