"""JS228 consumer-negative-limit-refused."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter.api import (
    NORMALISE_NEGATIVE_LIMITS,
    ConsumerConfig,
    ConsumerResource,
    ConsumerRule,
    ErrCode,
    FixAvailability,
    FixSuggestion,
    RuleContext,
    Severity,
    Violation,
    format_version,
    target_release,
)

# field -> (err_code, the server's words), in the order the server checks them
_PULL_LIMITS = (
    ("max_waiting", ErrCode.CONSUMER_MAX_WAITING_NEGATIVE, "consumer max waiting needs to be positive"),
    ("max_batch", ErrCode.CONSUMER_MAX_REQUEST_BATCH_NEGATIVE, "consumer max request batch needs to be > 0"),
    ("max_expires", ErrCode.CONSUMER_MAX_REQUEST_EXPIRES_TOO_SMALL, "consumer max request expires needs to be >= 1ms"),
)


class ConsumerNegativeLimitRefused(ConsumerRule):
    """A pull consumer sets a negative max_waiting, max_batch or max_expires on a release older than 2.12.

    ## What it does
    When the target's `server_version` is older than 2.12, reports a pull consumer whose
    `max_waiting`, `max_batch` or `max_expires` is negative. From 2.12 the server turns these
    into 0 (unset) and this rule is silent.

    ## Why is this bad?
    nats-server 2.10 and 2.11 refuse the consumer (err_code 10087 "consumer max waiting needs to
    be positive", 10114 "consumer max request batch needs to be > 0", 10115 "consumer max request
    expires needs to be >= 1ms"): a manifest written for 2.12+ fails on the older fleet. The
    examples assume the target `{server_version: "2.11.11"}`.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"]}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: worker, stream: ORDERS}
    spec: {ack_policy: explicit, max_waiting: -1}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"]}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: worker, stream: ORDERS}
    spec: {ack_policy: explicit}
    ```

    ## Fix
    Safe: remove the field (unset means the server's default on every release).
    """

    code = "JS228"
    name = "consumer-negative-limit-refused"
    severity = Severity.ERROR
    fix_availability = FixAvailability.ALWAYS
    example_target = {"server_version": "2.11.11"}

    def check_consumer(
        self, resource: ConsumerResource, config: ConsumerConfig, ctx: RuleContext
    ) -> Iterator[Violation]:
        release = target_release(ctx.target)
        cfg = config
        if release >= NORMALISE_NEGATIVE_LIMITS or cfg.deliver_subject:
            return
        for field, code, words in _PULL_LIMITS:
            value = getattr(cfg, field, None)
            if value is not None and value < 0:
                yield Violation(
                    resource,
                    (field,),
                    f"{field} is negative; nats-server {format_version(release)} rejects it ({words}); "
                    f"{format_version(NORMALISE_NEGATIVE_LIMITS)}+ treats it as unset",
                    server_error_code=code,
                    fix=FixSuggestion.safe(f"remove {field}"),
                )


RULE = ConsumerNegativeLimitRefused
