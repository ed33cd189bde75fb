"""JS116 stream-invalid-subjects."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

_PAIRWISE_MAX = 32


class StreamInvalidSubjects(api.StreamRule):
    """A stream subject that is not a valid subject, or that overlaps another subject of the same stream.

    ## What it does
    Checks every entry of `subjects`: it must be a valid subject (non-empty tokens, `>` only as the
    last token, no whitespace), and no two entries may match a common subject (`orders.*` and
    `orders.created` do; so does the same subject listed twice).

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "invalid subject" or
    "subject \\"orders.*\\" overlaps with \\"orders.created\\""): a message must map to one
    subject filter of a stream without ambiguity.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.*", "orders.created"]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.*"]}
    ```

    ## Fix
    Remove subjects already covered by a wildcard entry, fix empty tokens (`a..b`) and move `>`
    to the end of the subject.
    """

    code = "JS116"
    name = "stream-invalid-subjects"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        subjects = c.subjects
        if not subjects or c.mirror is not None:  # subjects on a mirror: JS118 (10034)
            return
        valid: list[tuple[int, str]] = []
        for i, s in enumerate(subjects):
            if api.is_valid_subject(s):
                valid.append((i, s))
            else:
                yield api.Violation(
                    resource,
                    ("subjects", i),
                    f"{s!r} is not a valid subject; nats-server rejects this stream",
                    server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                )
        if len(valid) < 2:
            return
        if len(valid) <= _PAIRWISE_MAX:
            for k, (j, s) in enumerate(valid):
                for i, earlier in valid[:k]:
                    if api.subjects_collide(earlier, s):
                        yield self._overlap(resource, i, earlier, j, s)
                        break
            return
        index: api.SubjectIndex[int] = api.SubjectIndex()
        for j, s in valid:
            hits = [i for _, i in index.colliding(s)]
            if hits:
                i = min(hits)
                yield self._overlap(resource, i, subjects[i], j, s)
            index.add(s, j)

    @staticmethod
    def _overlap(resource: api.Resource, i: int, earlier: str, j: int, s: str) -> api.Violation:
        what = "is listed twice" if earlier == s else f"overlaps with subjects[{i}] {earlier!r}"
        return api.Violation(
            resource,
            ("subjects", j),
            f"subject {s!r} {what}; nats-server rejects this stream",
            server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
        )


RULE = StreamInvalidSubjects
