"""JS314 target-consumer-max-batch-exceeds-limit."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class TargetConsumerMaxBatchExceedsLimit(api.ConsumerRule):
    """A pull consumer's max_batch is above the server's `jetstream.limits.max_request_batch`.

    ## What it does
    When the target gives the server's `limits.max_request_batch`, compares a pull consumer's
    `max_batch` with it. (An unset `max_batch` takes the limit.) The examples assume the target
    `{limits: {max_request_batch: 50}}`.

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10125, "consumer max request batch
    exceeds server limit").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: worker, stream: ORDERS}
    spec: {max_batch: 500}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: worker, stream: ORDERS}
    spec: {max_batch: 50}
    ```

    ## Fix
    Safe: set `max_batch` to the server limit, or leave it out.
    """

    code = "JS314"
    name = "target-consumer-max-batch-exceeds-limit"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    example_target = {"limits": {"max_request_batch": 50}}

    def check_consumer(
        self, resource: api.ConsumerResource, config: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        limit = ctx.target.limits.max_request_batch or 0
        cfg = config
        batch = cfg.max_batch or 0
        if limit > 0 and not cfg.deliver_subject and batch > limit:
            yield api.Violation(
                resource,
                ("max_batch",),
                f"max_batch {batch} exceeds the server's max_request_batch of {limit}; nats-server rejects this consumer",
                server_error_code=api.ErrCode.CONSUMER_MAX_REQUEST_BATCH_EXCEEDED,
                fix=api.FixSuggestion.safe(f"set max_batch to {limit}"),
            )


RULE = TargetConsumerMaxBatchExceedsLimit
