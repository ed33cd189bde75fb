"""JS103 stream-description-too-long."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamDescriptionTooLong(api.StreamRule):
    """A stream description longer than 4096 bytes.

    ## What it does
    Measures the stream's `description` in bytes (UTF-8), as nats-server does.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "stream description is too
    long, maximum allowed is 4096").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      description: "%s"
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      description: "Orders placed in the web shop; see the runbook for details."
    ```

    ## Fix
    Safe: shorten the description to at most 4096 bytes and keep long documentation elsewhere
    (link to it from the description or from `metadata`).
    """

    code = "JS103"
    name = "stream-description-too-long"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        desc = cfg.description
        if desc and len(desc) > api.MAX_DESCRIPTION_LEN // 4 and (n := api.go_len(desc)) > api.MAX_DESCRIPTION_LEN:
            yield api.Violation(
                resource,
                ("description",),
                f"description is {n} bytes long, the maximum is {api.MAX_DESCRIPTION_LEN}; "
                "nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                fix=api.FixSuggestion.safe(f"shorten the description to at most {api.MAX_DESCRIPTION_LEN} bytes"),
            )


StreamDescriptionTooLong.__doc__ = (StreamDescriptionTooLong.__doc__ or "") % ("x" * 4097)
RULE = StreamDescriptionTooLong
