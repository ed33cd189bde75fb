"""JS214 consumer-max-expires-too-small."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

MIN_EXPIRES = api.MILLISECOND


class ConsumerMaxExpiresTooSmall(api.ConsumerRule):
    """A pull consumer's max_expires is shorter than 1ms.

    ## What it does
    Reports a pull consumer whose positive `max_expires` is below 1ms (a bare integer is read as
    nanoseconds, so `max_expires: 500` means 500ns).

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10115, "consumer max request expires needs
    to be >= 1ms").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {max_expires: 500}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {max_expires: 30s}
    ```

    ## Fix
    Unsafe: write the duration with a unit (`30s`); the intended value is usually seconds.
    """

    code = "JS214"
    name = "consumer-max-expires-too-small"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        value = cfg.max_expires
        if cfg.deliver_subject or not value or not 0 < value < MIN_EXPIRES:
            return
        yield api.Violation(
            resource,
            ("max_expires",),
            f"max_expires {api.format_duration(value)} is shorter than 1ms; nats-server rejects this consumer",
            server_error_code=api.ErrCode.CONSUMER_MAX_REQUEST_EXPIRES_TOO_SMALL,
            fix=api.FixSuggestion.unsafe(
                f"set max_expires to {api.format_duration(value * api.SECOND) if value * api.SECOND < 2**63 else '1ms'} if seconds were meant"
            ),
        )


RULE = ConsumerMaxExpiresTooSmall
