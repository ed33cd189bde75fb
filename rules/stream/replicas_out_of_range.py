"""JS105 stream-replicas-out-of-range."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamReplicasOutOfRange(api.StreamRule):
    """A stream's num_replicas is negative or above 5.

    ## What it does
    Checks `num_replicas` against the range nats-server accepts: 0 (meaning 1) to 5.

    ## Why is this bad?
    nats-server refuses to create or update the stream: above 5 with err_code 10052 ("maximum
    replicas is 5"), below 0 with err_code 10133 ("replicas count cannot be negative").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], num_replicas: 7}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], num_replicas: 5}
    ```

    ## Fix
    Set `num_replicas` between 1 and 5 (1 or 3 are the usual choices; the cluster must have at
    least that many JetStream servers).
    """

    code = "JS105"
    name = "stream-replicas-out-of-range"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    bucket_words = True

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        r = cfg.num_replicas
        if r is None:
            return
        if r > api.MAX_REPLICAS:
            yield api.Violation(
                resource,
                ("num_replicas",),
                f"{resource.word('num_replicas')} {r} is above the maximum of {api.MAX_REPLICAS}; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                fix=api.FixSuggestion.unsafe(f"set {resource.word('num_replicas')} to {api.MAX_REPLICAS} or fewer"),
            )
        elif r < 0:
            yield api.Violation(
                resource,
                ("num_replicas",),
                f"{resource.word('num_replicas')} {r} is negative; nats-server rejects this stream",
                server_error_code=api.ErrCode.REPLICAS_COUNT_CANNOT_BE_NEGATIVE,
                fix=api.FixSuggestion.unsafe(f"set {resource.word('num_replicas')} to 1 or more"),
            )


RULE = StreamReplicasOutOfRange
