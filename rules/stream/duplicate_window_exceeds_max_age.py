"""JS102 stream-duplicate-window-exceeds-max-age."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamDuplicateWindowExceedsMaxAge(api.StreamRule):
    """A stream's duplicate_window is longer than its max_age.

    ## What it does
    Compares the effective `duplicate_window` with `max_age` when `max_age` is set.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "duplicates window can not
    be larger then max age"): a message cannot be remembered for de-duplication longer than it is
    kept.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 1m, duplicate_window: 2m}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 1m, duplicate_window: 1m}
    ```

    ## Fix
    Safe (`jsops lint --fix`): set `duplicate_window` to `max_age`. Leaving `duplicate_window` out also works: the server
    then caps its 2m default to `max_age`.
    """

    code = "JS102"
    name = "stream-duplicate-window-exceeds-max-age"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        eff = ctx.effective(resource)
        max_age = eff.max_age
        dup = eff.duplicate_window
        if max_age > 0 and dup > max_age:
            yield api.Violation(
                resource,
                ("duplicate_window",),
                f"duplicate_window {api.format_duration(dup)} is larger than max_age {api.format_duration(max_age)}; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                fix=api.FixSuggestion.safe(
                    f"set duplicate_window to {api.format_duration(max_age)}",
                    (api.Edit.set(("duplicate_window",), max_age, duration=True),),
                ),
            )


RULE = StreamDuplicateWindowExceedsMaxAge
