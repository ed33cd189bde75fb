"""JS202 consumer-name-too-long."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerNameTooLong(api.ConsumerRule):
    """A durable consumer's name is longer than 255 bytes.

    ## What it does
    Measures the durable name (UTF-8 bytes, as the server counts) against nats-server's
    `JSMaxNameLen` of 255. A non-durable `name` of that length is reported too: the server has no
    check for it, but the consumer's store directory cannot be created.

    ## Why is this bad?
    nats-server refuses to create the consumer: err_code 10102 ("consumer name is too long, maximum
    allowed is 255") for a durable, and err_code 10012 ("error creating store for consumer") for a
    named ephemeral on a file-backed stream.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipperxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx, stream: ORDERS}
    spec: {filter_subject: orders.shipped}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {filter_subject: orders.shipped}
    ```

    ## Fix
    Unsafe: choose a shorter name. A new name is a new consumer.
    """

    code = "JS202"
    name = "consumer-name-too-long"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        durable = cfg.durable_name
        name = cfg.name or ""
        if len(durable or name) * 4 <= api.MAX_NAME_LEN:
            return
        if durable:
            size = api.go_len(durable)
            if size > api.MAX_NAME_LEN:
                yield api.Violation(
                    resource,
                    ("durable_name",),
                    f"durable name is {size} bytes long, more than the server's maximum of {api.MAX_NAME_LEN}; nats-server rejects this consumer",
                    server_error_code=api.ErrCode.CONSUMER_NAME_TOO_LONG,
                    fix=api.FixSuggestion.unsafe(f"shorten the name to at most {api.MAX_NAME_LEN} bytes"),
                )
            return
        size = api.go_len(name)
        if size > api.MAX_NAME_LEN and not cfg.mem_storage:
            parent = ctx.stream_of(resource)
            if parent is not None and ctx.effective(parent).storage == "memory":
                return
            yield api.Violation(
                resource,
                ("name",),
                f"consumer name is {size} bytes long, more than {api.MAX_NAME_LEN}; nats-server cannot create the consumer's store",
                server_error_code=api.ErrCode.CONSUMER_CREATE,
                fix=api.FixSuggestion.unsafe(f"shorten the name to at most {api.MAX_NAME_LEN} bytes"),
            )


RULE = ConsumerNameTooLong
