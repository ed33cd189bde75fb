"""JS124 stream-mirror-transform-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import destination_problem


class StreamMirrorTransformInvalid(api.StreamRule):
    """A mirror's subject_transforms entry whose destination is not a valid mapping of its source.

    ## What it does
    For each `mirror.subject_transforms` entry with a valid (or empty, meaning `>`) `src`, checks
    `dest` as nats-server's mapping validation does: valid tokens without whitespace, no `*`
    token, a `>` exactly when `src` has one, known mapping functions (`{{wildcard(n)}}` or `$n`,
    `{{partition(n,...)}}`, `{{split(n,d)}}`, `{{splitFromLeft(n,k)}}` and the other split,
    slice, left and right functions, `{{random(n)}}`) with well-formed arguments, and wildcard
    indexes no larger than the number of `*` tokens in `src`. An invalid `src` is JS118's.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10154, "mirror transform:
    invalid mapping destination ...").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_COPY}
    spec:
      mirror:
        name: ORDERS
        subject_transforms: [{src: "orders.*", dest: "copy.$2"}]
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_COPY}
    spec:
      mirror:
        name: ORDERS
        subject_transforms: [{src: "orders.*", dest: "copy.$1"}]
    ```

    ## Fix
    Refer only to wildcards the source has (counted from 1), use `{{wildcard(n)}}` instead of a
    `*` in the destination, and end both sides in `>` or neither.
    """

    code = "JS124"
    name = "stream-mirror-transform-invalid"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        m = cfg.mirror
        if m is None or not m.subject_transforms:
            return
        from jsops.linter.api import BUILD_ONLY_BEFORE  # imported on first use

        release = api.target_release(ctx.target)
        # 2.10 refuses an empty src (10151, JS118) and only builds the transform (10049)
        old = release < BUILD_ONLY_BEFORE
        for k, t in enumerate(m.subject_transforms):
            if (t.src or old) and not api.is_valid_subject(t.src):
                continue  # 10151, JS118
            why = destination_problem(t.src, t.dest, release)
            if why:
                yield ctx.refusal(
                    resource,
                    ("mirror", "subject_transforms", k, "dest"),
                    f"mirror transform {t.src or '>'!r} -> {t.dest!r} is not a valid mapping ({why}); nats-server rejects this stream",
                    api.ErrCode.MIRROR_INVALID_TRANSFORM_DESTINATION,
                )


RULE = StreamMirrorTransformInvalid
