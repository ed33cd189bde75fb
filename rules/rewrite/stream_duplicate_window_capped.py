"""JS322 rewrite-stream-duplicate-window-capped."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class RewriteStreamDuplicateWindowCapped(api.StreamRule):
    """A stream leaves duplicate_window out and the server's 2m default gets capped.

    ## What it does
    Flags a stream (not a mirror or sourcing stream, which get no window) without
    `duplicate_window` whose effective window is not the documented 2m default: nats-server caps
    the default to `max_age` when that is shorter, and to the server's
    `limits.duplicate_window` when the target gives one. Shows the effective value. A window
    written in the manifest is never changed: one that is too long is refused (JS102, JS312).

    ## Why is this bad?
    De-duplication covers a shorter time than the 2m a reader expects, and because the window is
    recomputed on every update, changing `max_age` later silently changes it too.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: TICKS}
    spec: {subjects: ["ticks.>"], max_age: 30s}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: TICKS}
    spec: {subjects: ["ticks.>"], max_age: 30s, duplicate_window: 30s}
    ```

    ## Fix
    Safe: write the effective `duplicate_window`.
    """

    code = "JS322"
    name = "rewrite-stream-duplicate-window-capped"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if c.duplicate_window or c.mirror is not None or c.sources or resource.bucket is not None:
            return  # a bucket's client sets its duplicate window: nothing to write in the bucket
        dup = ctx.effective(resource).duplicate_window
        if 0 < dup < api.STREAM_DEFAULT_DUPLICATE_WINDOW:
            why = "max_age" if dup == (c.max_age or 0) else "the server's duplicate_window limit"
            yield api.Violation(
                resource,
                ("duplicate_window",) if c.max_age is None else ("max_age",),
                f"no duplicate_window: nats-server stores duplicate_window: {api.format_duration(dup)} (its 2m default capped to {why})",
                fix=api.FixSuggestion.safe(f"write duplicate_window: {api.format_duration(dup)}"),
                key=True,
            )


RULE = RewriteStreamDuplicateWindowCapped
