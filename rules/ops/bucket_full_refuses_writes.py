"""JS460 ops-bucket-full-refuses-writes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jsops.linter import api


class OpsBucketFullRefusesWrites(api.Rule):
    """A Key-Value or Object Store bucket with `max_bytes` and no `ttl`: once full, every write is refused.

    ## What it does
    Flags a bucket (`kind: KeyValue` or `kind: ObjectStore`, native or NACK) that sets `max_bytes`
    but no `ttl`. Plain streams are not flagged: this is about the stream the client builds for a
    bucket, which always has `discard: new`.

    ## Why is this bad?
    A bucket's stream discards new messages when it is full, not old ones: when `max_bytes` is
    reached, nats-server refuses every put with `maximum bytes exceeded` (err_code 10077, verified
    on nats-server 2.15.1) until keys are purged or deleted and compacted. Without a `ttl` nothing
    frees space on its own; `history` only bounds the revisions of each key, not the number of keys.
    The writers of the bucket start failing all at once, typically long after it was created.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: KeyValue
    metadata: {name: sessions}
    spec: {history: 5, max_bytes: 64MiB}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: KeyValue
    metadata: {name: sessions}
    spec: {history: 5, max_bytes: 64MiB, ttl: 7d}
    ```

    ## Fix
    No automatic fix: set `ttl` to how long a value is needed, or size `max_bytes` for the number of
    keys times `history` times the value size, and keep an eye on the bucket's bytes.
    """

    code = "JS460"
    name = "ops-bucket-full-refuses-writes"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    groups = frozenset({"buckets"})
    kinds = frozenset({"Stream"})

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        if resource.bucket is None:
            return ()
        cfg: Any = resource.config
        max_bytes = cfg.max_bytes or 0
        if max_bytes <= 0 or (cfg.max_age or 0) > 0:
            return ()
        bucket = resource.name.split("_", 1)[1]
        return (
            api.Violation(
                resource,
                ("max_bytes",),
                f"{resource.bucket} {bucket!r} has max_bytes {api.format_size(max_bytes)} and no ttl: a bucket discards new "
                "writes, so once it is full every put is refused (maximum bytes exceeded, 10077) until keys are purged",
                fix=api.FixSuggestion.unsafe(
                    "set ttl to how long a value is needed, or size max_bytes for keys x history x value size"
                ),
            ),
        )


RULE = OpsBucketFullRefusesWrites
