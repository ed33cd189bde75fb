"""JS120 stream-placement-preferred."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamPlacementPreferred(api.StreamRule):
    """A stream config sets placement.preferred.

    ## What it does
    Flags `placement.preferred` in a stream config.

    ## Why is this bad?
    `preferred` is for the stream leader step-down request, not for stream configs: nats-server
    refuses to create or update the stream (err_code 10052, "preferred server not permitted in
    placement").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      placement: {tags: [ssd], preferred: nats-1}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      placement: {tags: [ssd]}
    ```

    ## Fix
    Safe: remove `placement.preferred`. To move leadership to a server, use
    `nats stream cluster step-down --preferred <server>` after the stream exists.
    """

    code = "JS120"
    name = "stream-placement-preferred"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        p = cfg.placement
        if p is not None and p.preferred:
            yield api.Violation(
                resource,
                ("placement", "preferred"),
                "placement.preferred is not permitted in a stream config; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                fix=api.FixSuggestion.safe("remove placement.preferred"),
            )


RULE = StreamPlacementPreferred
