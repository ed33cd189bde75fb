"""JS323 rewrite-stream-ttl-rollup-forced."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class RewriteStreamTtlRollupForced(api.StreamRule):
    """subject_delete_marker_ttl or allow_msg_schedules quietly turn on TTLs and roll-ups.

    ## What it does
    Flags a stream with `subject_delete_marker_ttl` whose manifest does not turn on
    `allow_msg_ttl` and `allow_rollup_hdrs`, or with `allow_msg_schedules` without
    `allow_rollup_hdrs`. nats-server then stores `allow_msg_ttl: true`, `allow_rollup_hdrs: true`
    and `deny_purge: false`, overriding the manifest. The finding shows the effective values.

    ## Why is this bad?
    Roll-up headers let any publisher purge a subject, and a `deny_purge: true` in the manifest is
    silently dropped; the stored config differs from the manifest, which reads as drift.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: STATE}
    spec: {subjects: ["state.>"], subject_delete_marker_ttl: 1m, deny_purge: true}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: STATE}
    spec: {subjects: ["state.>"], subject_delete_marker_ttl: 1m, allow_msg_ttl: true, allow_rollup_hdrs: true}
    ```

    ## Fix
    Safe: write the effective values (`allow_msg_ttl: true`, `allow_rollup_hdrs: true`, no
    `deny_purge`).
    """

    code = "JS323"
    name = "rewrite-stream-ttl-rollup-forced"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        sdm = (c.subject_delete_marker_ttl or 0) >= api.SECOND  # shorter: refused, JS111
        schedules = bool(c.allow_msg_schedules)
        if not sdm and not schedules:
            return
        if c.mirror is not None:
            return  # refused (JS118)
        changed = []
        if sdm and not c.allow_msg_ttl:
            changed.append("allow_msg_ttl: true")
        if not c.allow_rollup_hdrs:
            changed.append("allow_rollup_hdrs: true")
            if c.deny_purge:
                changed.append("deny_purge: false")
        if not changed:
            return
        cause = "subject_delete_marker_ttl" if sdm else "allow_msg_schedules"
        yield api.Violation(
            resource,
            (cause,),
            f"{cause} makes nats-server store {', '.join(changed)}",
            fix=api.FixSuggestion.safe("write " + ", ".join(changed)),
            key=True,
        )


RULE = RewriteStreamTtlRollupForced
