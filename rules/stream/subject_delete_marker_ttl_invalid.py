"""JS111 stream-subject-delete-marker-ttl-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import duration_floor_violations


class StreamSubjectDeleteMarkerTtlInvalid(api.StreamRule):
    """A stream's subject_delete_marker_ttl is negative or shorter than 1s.

    ## What it does
    Checks `subject_delete_marker_ttl`: 0 turns markers off, otherwise it must be at least 1s.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "subject delete marker TTL
    must be at least 1 second" or "... must not be negative").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: SESSIONS}
    spec: {subjects: ["session.>"], max_age: 1h, subject_delete_marker_ttl: 500ms}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: SESSIONS}
    spec: {subjects: ["session.>"], max_age: 1h, subject_delete_marker_ttl: 1m, allow_msg_ttl: true, allow_rollup_hdrs: true}
    ```

    ## Fix
    Set `subject_delete_marker_ttl` to 1s or more, or leave it out. A bare integer is read as
    nanoseconds: write a unit.
    """

    code = "JS111"
    name = "stream-subject-delete-marker-ttl-invalid"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.SOMETIMES
    bucket_words = True

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        return duration_floor_violations(
            resource,
            "subject_delete_marker_ttl",
            cfg.subject_delete_marker_ttl,
            api.SECOND,
            short_fix=api.FixSuggestion.safe(f"set {resource.word('subject_delete_marker_ttl')} to 1s"),
        )


RULE = StreamSubjectDeleteMarkerTtlInvalid
