"""JS128 stream-template-owner."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter.api import (
    ErrCode,
    FixAvailability,
    FixSuggestion,
    RuleContext,
    Severity,
    StreamConfig,
    StreamResource,
    StreamRule,
    Violation,
    field_decoded,
)


class StreamTemplateOwner(StreamRule):
    """A stream manifest names a stream template in template_owner.

    ## What it does
    Flags a non-empty `template_owner` for a target release that decodes the field (before 2.14).

    ## Why is this bad?
    Only the server sets `template_owner`, on the streams a stream template creates. nats-server 2.10-2.12
    refuse a create naming one (err_code 10049, "stream not owned by template") and an update naming one
    (10052, "stream configuration update can not be owned by a template"); measured on 2.10.26, 2.11.11
    and 2.12.8. From 2.14 stream templates are gone and the field itself is unknown (10025, JS311).
    The examples assume the target `{server_version: "2.12.0"}`.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 24h, template_owner: ORDERS_TEMPLATE}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 24h}
    ```

    ## Fix
    Safe: remove `template_owner` (a stream a manifest declares is owned by no template).
    """

    code = "JS128"
    name = "stream-template-owner"
    severity = Severity.ERROR
    fix_availability = FixAvailability.ALWAYS
    example_target = {"server_version": "2.12.0"}

    def check_stream(self, resource: StreamResource, c: StreamConfig, ctx: RuleContext) -> Iterator[Violation]:
        if c.template_owner and field_decoded("Stream", "template_owner", ctx.release):
            yield Violation(
                resource,
                ("template_owner",),
                f"template_owner names the stream template {c.template_owner!r}, which only the server sets; "
                "nats-server rejects this stream",
                server_error_code=ErrCode.STREAM_CREATE,
                fix=FixSuggestion.safe("remove template_owner"),
            )


RULE = StreamTemplateOwner
