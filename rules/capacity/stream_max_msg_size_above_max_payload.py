"""JS442 ops-stream-max-msg-size-above-max-payload."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import api


class OpsStreamMaxMsgSizeAboveMaxPayload(api.Rule):
    """A stream's max_msg_size is larger than the target server's max_payload.

    ## What it does
    When the jsops target gives the server's `max_payload`, flags a stream whose `max_msg_size`
    is larger. Silent when the target does not give `max_payload`. nats-server accepts such a
    stream (it does not compare the two), so no server rejection rule covers it.

    ## Why is this bad?
    Every message reaches the stream as a core NATS publish. A publish larger than
    `max_payload` (headers included) is refused by the client library, or, if sent anyway, the
    server answers with a maximum payload violation and closes the connection; JetStream never
    sees it. The stream's larger limit can never be used; it documents a message size
    the system does not carry, and publishers sized to it fail.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: UPLOADS}
    spec: {subjects: ["uploads.>"], max_msg_size: 8MiB}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: UPLOADS}
    spec: {subjects: ["uploads.>"], max_msg_size: 1MiB}
    ```

    ## Fix
    Safe (`jsops lint --fix`): set `max_msg_size` to the target's `max_payload` (nothing larger can
    arrive anyway). Raising `max_payload` in the server config is the other way; the NATS docs
    advise against payloads above a few MiB.
    """

    code = "JS442"
    name = "ops-stream-max-msg-size-above-max-payload"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    bucket_words = True
    kinds = frozenset({"Stream"})
    example_target = {"max_payload": "1MiB"}

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        max_payload = ctx.target.max_payload
        if max_payload is None or max_payload <= 0:
            return ()
        size = ctx.effective_stream(resource).max_msg_size
        if size <= max_payload:
            return ()
        return (
            api.Violation(
                resource,
                ("max_msg_size",),
                f"{resource.word('max_msg_size')} {api.format_size(size)} is larger than the target's max_payload {api.format_size(max_payload)}: no publish can be that large",
                fix=api.FixSuggestion.safe(
                    f"set {resource.word('max_msg_size')} to {api.format_size(max_payload)}",
                    # natively as a readable size; NACK wants plain integers
                    (
                        api.Edit.set(
                            ("max_msg_size",),
                            api.format_size(max_payload) if resource.dialect == "native" else max_payload,
                        ),
                    ),
                ),
            ),
        )


RULE = OpsStreamMaxMsgSizeAboveMaxPayload
