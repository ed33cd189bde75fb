"""JS321 rewrite-stream-subjects-default."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class RewriteStreamSubjectsDefault(api.StreamRule):
    """A stream without subjects, mirror or sources: the server listens on its name.

    ## What it does
    Flags a stream that sets no `subjects` (or an empty list) and is neither a mirror nor sources
    other streams, and shows the effective value: nats-server quietly sets `subjects` to
    `[<stream name>]`.

    ## Why is this bad?
    The stream captures messages published to a subject nobody wrote down (and that may collide
    with another stream or an application's subjects later); the stored config differs from the
    manifest, which reads as drift.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {max_age: 7d}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["ORDERS"], max_age: 7d}
    ```

    ## Fix
    Safe: write the effective subjects (`[<stream name>]`) or the subjects you mean.
    """

    code = "JS321"
    name = "rewrite-stream-subjects-default"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if c.subjects or c.mirror is not None or c.sources:
            return
        yield api.Violation(
            resource,
            ("subjects",),
            f"no subjects: nats-server stores subjects: [{resource.name!r}] (the stream name)",
            fix=api.FixSuggestion.safe(f"write subjects: [{resource.name!r}]"),
            key=True,
        )


RULE = RewriteStreamSubjectsDefault
