"""JS212 consumer-workqueue-requires-explicit-ack."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import parent_effective


class ConsumerWorkqueueRequiresExplicitAck(api.ConsumerRule):
    """A consumer of a workqueue stream does not use explicit acks.

    ## What it does
    On a stream with `retention: workqueue`, reports a consumer whose effective `ack_policy` is not
    `explicit` (or `flow_control`). A pull consumer with `ack_policy: none` is refused first with
    err_code 10084 ("consumer in pull mode requires explicit ack policy on workqueue stream"); any
    other case (push with `none`, or `all`) with err_code 10098 ("workqueue stream requires
    explicit ack"). In the NATS API JSON dialect an omitted `ack_policy` means `none`.

    ## Why is this bad?
    nats-server refuses to create the consumer: a workqueue stream deletes each message when it is
    acknowledged, so every message needs its own ack.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: JOBS}
    spec: {subjects: ["jobs.>"], retention: workqueue}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: worker, stream: JOBS}
    spec: {ack_policy: all}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: JOBS}
    spec: {subjects: ["jobs.>"], retention: workqueue}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: worker, stream: JOBS}
    spec: {ack_policy: explicit}
    ```

    ## Fix
    Unsafe: set `ack_policy: explicit`; the application must then ack every message.
    """

    code = "JS212"
    applies_to = (
        api.CREATE_ONLY
    )  # the server checks a workqueue consumer's ack policy only when it creates the consumer
    name = "consumer-workqueue-requires-explicit-ack"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.SOMETIMES

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        ack = cfg.ack_policy or "none"
        if ack == "explicit" or ack == "flow_control":
            return
        eff = ctx.effective(resource)
        stream = parent_effective(resource, ctx)
        if stream is None or stream.retention != "workqueue":
            return
        fix = api.FixSuggestion.unsafe("set ack_policy to explicit")
        if ack == "none" and not eff.deliver_subject:
            code = api.ErrCode.CONSUMER_PULL_REQUIRES_ACK
        elif eff.direct or eff.sourcing:
            return
        else:
            code = api.ErrCode.CONSUMER_WQ_REQUIRES_EXPLICIT_ACK
        yield api.Violation(
            resource,
            ("ack_policy",),
            f"ack_policy {ack} on workqueue stream {resource.stream!r}; nats-server requires explicit acks there",
            server_error_code=code,
            fix=fix,
        )


RULE = ConsumerWorkqueueRequiresExplicitAck
