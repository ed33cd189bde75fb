"""JS126 stream-republish-transform-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamRepublishTransformInvalid(api.StreamRule):
    """A republish whose destination is not a valid transform of its source.

    ## What it does
    Builds the transform from the effective `republish.src` (empty means `>`; the server's implicit
    rewrite from `subject_transform` applied) to `republish.dest` as nats-server does: both valid
    subjects, no `*` token in `dest`, a `>` in `dest` exactly when `src` has one, known mapping
    functions with well-formed arguments (`{{wildcard(n)}}` or `$n`, `{{partition(n,...)}}`,
    `{{split(n,d)}}`, the split, slice, left and right functions, `{{random(n)}}`), and wildcard
    indexes no larger than the number of `*` tokens in `src`.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "stream configuration for
    republish with transform from '...' to '...' not valid").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      republish: {src: "orders.>", dest: "events.orders"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      republish: {src: "orders.>", dest: "events.orders.>"}
    ```

    ## Fix
    End both `src` and `dest` in `>` or neither, and refer only to wildcards `src` has.
    """

    code = "JS126"
    name = "stream-republish-transform-invalid"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.republish is None:
            return
        from jsops.linter.api import (
            transform_problem,  # imported on first use: most estates have no transforms
        )

        r = ctx.effective(resource).republish
        if r is None:
            return
        why = transform_problem(r.src, r.dest, api.target_release(ctx.target))
        if why:
            yield api.Violation(
                resource,
                ("republish", "dest"),
                f"republish {r.src!r} -> {r.dest!r} is not a valid transform ({why}); nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
            )


RULE = StreamRepublishTransformInvalid
