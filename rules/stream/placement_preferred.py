"""JS120 stream-placement-preferred."""

from __future__ import annotations

from collections.abc import Iterator

from linter.api import FixSuggestion, Resource, Rule, RuleContext, Severity, Violation, stream_config


class StreamPlacementPreferred(Rule):
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
    severity = Severity.ERROR
    kinds = frozenset({"Stream"})

    def check(self, resource: Resource, ctx: RuleContext) -> Iterator[Violation]:
        p = stream_config(resource).placement
        if p is not None and p.preferred:
            yield Violation(
                resource, ("placement", "preferred"),
                "placement.preferred is not permitted in a stream config; nats-server rejects this stream",
                server_error_code=10052,
                fix=FixSuggestion("safe", "remove placement.preferred"),
            )


RULE = StreamPlacementPreferred
