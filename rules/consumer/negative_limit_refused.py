"""JS228 consumer-negative-limit-refused."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

# field -> (err_code, the server's words), in the order the server checks them
_PULL_LIMITS = (
    ("max_waiting", api.ErrCode.CONSUMER_MAX_WAITING_NEGATIVE, "consumer max waiting needs to be positive"),
    ("max_batch", api.ErrCode.CONSUMER_MAX_REQUEST_BATCH_NEGATIVE, "consumer max request batch needs to be > 0"),
    (
        "max_expires",
        api.ErrCode.CONSUMER_MAX_REQUEST_EXPIRES_TOO_SMALL,
        "consumer max request expires needs to be >= 1ms",
    ),
)


class ConsumerNegativeLimitRefused(api.ConsumerRule):
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
    kind: Consumer
    metadata: {name: worker, stream: ORDERS}
    spec: {ack_policy: explicit, max_waiting: -1}
    ```

    ## Use instead
    ```yaml
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
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    example_target = {"server_version": "2.11.11"}

    def check_consumer(
        self, resource: api.ConsumerResource, config: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        release = api.target_release(ctx.target)
        cfg = config
        if release >= api.NORMALISE_NEGATIVE_LIMITS or cfg.deliver_subject:
            return
        for field, code, words in _PULL_LIMITS:
            value = getattr(cfg, field, None)
            if value is not None and value < 0:
                yield api.Violation(
                    resource,
                    (field,),
                    f"{field} is negative; nats-server {api.format_version(release)} rejects it ({words}); "
                    f"{api.format_version(api.NORMALISE_NEGATIVE_LIMITS)}+ treats it as unset",
                    server_error_code=code,
                    fix=api.FixSuggestion.safe(f"remove {field}"),
                )


RULE = ConsumerNegativeLimitRefused
