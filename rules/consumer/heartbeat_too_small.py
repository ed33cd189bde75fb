"""JS211 consumer-heartbeat-too-small."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

MIN_HEARTBEAT = 100 * api.MILLISECOND


class ConsumerHeartbeatTooSmall(api.ConsumerRule):
    """A push consumer's idle_heartbeat is shorter than 100ms.

    ## What it does
    Reports a push consumer whose positive `idle_heartbeat` is below 100ms.

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10083, "consumer idle heartbeat needs to
    be >= 100ms").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit, stream: ORDERS}
    spec: {deliver_subject: deliver.audit, idle_heartbeat: 50ms}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit, stream: ORDERS}
    spec: {deliver_subject: deliver.audit, idle_heartbeat: 5s}
    ```

    ## Fix
    Safe: set `idle_heartbeat` to 100ms (seconds are usual).
    """

    code = "JS211"
    name = "consumer-heartbeat-too-small"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if not cfg.deliver_subject or not cfg.idle_heartbeat:
            return
        hb = ctx.effective(resource).idle_heartbeat
        if 0 < hb < MIN_HEARTBEAT:
            yield api.Violation(
                resource,
                ("idle_heartbeat",),
                f"idle_heartbeat {api.format_duration(hb)} is shorter than 100ms; nats-server rejects this consumer",
                server_error_code=api.ErrCode.CONSUMER_SMALL_HEARTBEAT,
                fix=api.FixSuggestion.safe("set idle_heartbeat to 100ms"),
            )


RULE = ConsumerHeartbeatTooSmall
