"""JS107 stream-duplicate-window-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import duration_floor_violations

MIN_WINDOW = 100 * api.MILLISECOND


class StreamDuplicateWindowInvalid(api.StreamRule):
    """A stream's duplicate_window is negative or shorter than 100ms.

    ## What it does
    Checks an explicit `duplicate_window`: 0 (or leaving it out) means the server default,
    otherwise it must be at least 100ms. A window larger than `max_age` is JS102's business.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "duplicates window can not
    be negative" or "duplicates window needs to be >= 100ms").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], duplicate_window: 10ms}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], duplicate_window: 2m}
    ```

    ## Fix
    Set `duplicate_window` to 100ms or more, or leave it out for the server default (2m, capped
    to `max_age`). A bare integer is read as nanoseconds: write a unit.
    """

    code = "JS107"
    name = "stream-duplicate-window-invalid"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if resource.bucket is not None:
            return iter(())  # a bucket's client sets the window from its ttl: JS106 reports a ttl that short
        return duration_floor_violations(
            resource,
            "duplicate_window",
            cfg.duplicate_window,
            MIN_WINDOW,
            negative_fix=api.FixSuggestion.safe("remove duplicate_window to use the server default"),
            short_fix=api.FixSuggestion.safe("set duplicate_window to 100ms"),
        )


RULE = StreamDuplicateWindowInvalid
