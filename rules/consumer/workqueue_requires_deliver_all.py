"""JS226 consumer-workqueue-requires-deliver-all."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import parent_effective


class ConsumerWorkqueueRequiresDeliverAll(api.ConsumerRule):
    """A consumer of a workqueue stream does not start from the first message.

    ## What it does
    On a stream with `retention: workqueue`, reports a consumer whose `deliver_policy` is not `all`.

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10101, "consumer must be deliver all on
    workqueue stream"): every message in a work queue is work to do, and it stays until a consumer
    takes it.

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
    spec: {deliver_policy: new}
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
    spec: {deliver_policy: all}
    ```

    ## Fix
    Safe: remove `deliver_policy` (or set it to `all`), together with any start option. To skip old
    work, purge the stream instead.
    """

    code = "JS226"
    applies_to = (
        api.CREATE_ONLY  # the server checks a workqueue consumer's deliver policy only when it creates the consumer
    )
    name = "consumer-workqueue-requires-deliver-all"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        policy = cfg.deliver_policy
        if not policy or policy == "all" or cfg.direct or cfg.sourcing:
            return
        stream = parent_effective(resource, ctx)
        if stream is None or stream.retention != "workqueue":
            return
        yield api.Violation(
            resource,
            ("deliver_policy",),
            f"deliver_policy {policy} on workqueue stream {resource.stream!r}; nats-server requires deliver_policy all",
            server_error_code=api.ErrCode.CONSUMER_WQ_CONSUMER_NOT_DELIVER_ALL,
            fix=api.FixSuggestion.safe("set deliver_policy to all"),
        )


RULE = ConsumerWorkqueueRequiresDeliverAll
