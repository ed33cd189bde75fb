"""JS229 consumer-direct-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerDirectInvalid(api.ConsumerRule):
    """A consumer sets `direct: true`, which only the server's own sourcing consumers can use.

    ## What it does
    Reports `direct: true` on a consumer without a `deliver_subject` (a pull consumer) or on a
    durable one: every consumer a manifest declares is one of them.

    ## Why is this bad?
    nats-server refuses to create the consumer, on every supported release: err_code 10090
    ("consumer direct requires a push based consumer") for a pull consumer, 10091 ("consumer direct
    requires an ephemeral consumer") for a durable push consumer. Direct consumers are the
    ephemeral push consumers a mirror or a source creates on its origin stream.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {direct: true}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {}
    ```

    ## Fix
    Safe: remove `direct`; to copy a stream, declare a stream with `mirror` or `sources`.
    """

    code = "JS229"
    name = "consumer-direct-invalid"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if not cfg.direct:
            return
        fix = api.FixSuggestion.safe("remove direct")
        if not cfg.deliver_subject:
            yield api.Violation(
                resource,
                ("direct",),
                "direct is for the server's own push consumers; nats-server rejects it on a pull consumer",
                server_error_code=api.ErrCode.CONSUMER_DIRECT_REQUIRES_PUSH,
                fix=fix,
            )
        elif cfg.durable_name:
            yield api.Violation(
                resource,
                ("direct",),
                "direct is for the server's own ephemeral consumers; nats-server rejects it on a durable consumer",
                server_error_code=api.ErrCode.CONSUMER_DIRECT_REQUIRES_EPHEMERAL,
                fix=fix,
            )


RULE = ConsumerDirectInvalid
