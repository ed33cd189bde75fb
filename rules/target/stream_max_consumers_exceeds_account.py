"""JS316 target-stream-max-consumers-exceeds-account."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class TargetStreamMaxConsumersExceedsAccount(api.StreamRule):
    """A stream's max_consumers is above the target account's max_consumers.

    ## What it does
    When the target gives the account's `max_consumers`, compares the stream's `max_consumers`
    with it (both must be positive). The examples assume the target `{account: {max_consumers: 10}}`.

    ## Why is this bad?
    nats-server refuses to create the stream (err_code 10026, "maximum consumers limit reached").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_consumers: 100}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_consumers: 10}
    ```

    ## Fix
    Safe: lower `max_consumers` to the account's limit (or leave it out: the account limit
    applies).
    """

    code = "JS316"
    name = "target-stream-max-consumers-exceeds-account"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    example_target = {"account": {"max_consumers": 10}}

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        limit = ctx.target.account.max_consumers
        code = api.refusals.stream_max_consumers_refusal(ctx.effective(resource), limit)
        if code is not None:
            yield api.Violation(
                resource,
                ("max_consumers",),
                f"max_consumers {cfg.max_consumers} is above the account's max_consumers of {limit}; nats-server rejects this stream",
                server_error_code=code,
                fix=api.FixSuggestion.safe(f"set max_consumers to {limit}"),
            )


RULE = TargetStreamMaxConsumersExceedsAccount
