"""JS209 consumer-push-max-waiting."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerPushMaxWaiting(api.ConsumerRule):
    """A push consumer sets max_waiting, a pull-only setting.

    ## What it does
    Reports a consumer with a `deliver_subject` and a positive `max_waiting` (the server turns a
    negative value into 0 before it checks).

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10080, "consumer in push mode can not set
    max waiting"): `max_waiting` bounds the queue of pull requests, which push consumers do not
    have.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit, stream: ORDERS}
    spec: {deliver_subject: deliver.audit, max_waiting: 512}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit, stream: ORDERS}
    spec: {deliver_subject: deliver.audit}
    ```

    ## Fix
    Safe: remove `max_waiting`.
    """

    code = "JS209"
    name = "consumer-push-max-waiting"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.deliver_subject and ctx.effective(resource).max_waiting != 0:
            yield api.Violation(
                resource,
                ("max_waiting",),
                "max_waiting is a pull-consumer setting; nats-server rejects it on a push consumer",
                server_error_code=api.ErrCode.CONSUMER_PUSH_MAX_WAITING,
                fix=api.FixSuggestion.safe("remove max_waiting"),
            )


RULE = ConsumerPushMaxWaiting
