"""JS207 consumer-description-too-long."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerDescriptionTooLong(api.ConsumerRule):
    """A consumer's description is longer than 4096 bytes.

    ## What it does
    Measures `description` in UTF-8 bytes, as nats-server does.

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10107, "consumer description is too long,
    maximum allowed is 4096").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec:
      description: "Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders. Ships orders."
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {description: "Ships orders; see the runbook for details."}
    ```

    ## Fix
    Unsafe: shorten the description to at most 4096 bytes (keep long documentation elsewhere and
    link to it).
    """

    code = "JS207"
    name = "consumer-description-too-long"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        text = cfg.description
        if not text or len(text) * 4 <= api.MAX_DESCRIPTION_LEN:
            return
        size = api.go_len(text)
        if size > api.MAX_DESCRIPTION_LEN:
            yield api.Violation(
                resource,
                ("description",),
                f"description is {size} bytes long, more than the server's maximum of {api.MAX_DESCRIPTION_LEN}",
                server_error_code=api.ErrCode.CONSUMER_DESCRIPTION_TOO_LONG,
                fix=api.FixSuggestion.unsafe(f"shorten the description to at most {api.MAX_DESCRIPTION_LEN} bytes"),
            )


RULE = ConsumerDescriptionTooLong
