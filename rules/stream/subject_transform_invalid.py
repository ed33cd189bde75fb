"""JS123 stream-subject-transform-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import destination_problem


class StreamSubjectTransformInvalid(api.StreamRule):
    """A stream's subject_transform that nats-server cannot build.

    ## What it does
    Checks the stream-level `subject_transform` as nats-server does: a non-empty `src` must be a
    valid subject (an empty one means `>`), and `dest` must be a valid mapping of it: valid
    tokens without whitespace, no `*` token, a `>` exactly when `src` has one, known mapping
    functions (`{{wildcard(n)}}` or `$n`, `{{partition(n,...)}}`, `{{split(n,d)}}`,
    `{{splitFromLeft(n,k)}}`, `{{splitFromRight(n,k)}}`, `{{sliceFromLeft(n,k)}}`,
    `{{sliceFromRight(n,k)}}`, `{{left(n,k)}}`, `{{right(n,k)}}`, `{{random(n)}}`) with well-formed
    arguments, and wildcard indexes no larger than the number of `*` tokens in `src`.

    ## Why is this bad?
    nats-server refuses to create or update the stream: an invalid source is err_code 10155
    ("stream transform source: invalid subject"), an invalid mapping err_code 10156 ("stream
    transform: invalid mapping destination ...").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.*"]
      subject_transform: {src: "orders.*", dest: "orders.{{wildcard(2)}}.v1"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.*"]
      subject_transform: {src: "orders.*", dest: "orders.{{wildcard(1)}}.v1"}
    ```

    ## Fix
    Refer only to wildcards the source has (counted from 1), use `{{wildcard(n)}}` instead of a
    `*` in the destination, and end both sides in `>` or neither.
    """

    code = "JS123"
    name = "stream-subject-transform-invalid"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        t = cfg.subject_transform
        if t is None:
            return
        from jsops.linter.api import BUILD_ONLY_BEFORE  # imported on first use

        release = api.target_release(ctx.target)
        if (
            t.src and not api.is_valid_subject(t.src) and (t.dest or release >= BUILD_ONLY_BEFORE)
        ):  # 2.10: no dest, no check
            yield ctx.refusal(
                resource,
                ("subject_transform", "src"),
                f"subject_transform source {t.src!r} is not a valid subject; nats-server rejects this stream",
                api.ErrCode.STREAM_TRANSFORM_INVALID_SOURCE,
            )
            return
        # 2.10 only builds the transform (whitespace and left()/right() pass); 10049 there
        why = destination_problem(t.src, t.dest, release)
        if why:
            yield ctx.refusal(
                resource,
                ("subject_transform", "dest"),
                f"subject_transform {t.src or '>'!r} -> {t.dest!r} is not a valid mapping ({why}); nats-server rejects this stream",
                api.ErrCode.STREAM_TRANSFORM_INVALID_DESTINATION,
            )


RULE = StreamSubjectTransformInvalid
