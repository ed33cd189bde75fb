"""JS125 stream-source-transform-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamSourceTransformInvalid(api.StreamRule):
    """A source's subject_transforms entry whose destination is not a valid mapping of its source.

    ## What it does
    For each `sources[].subject_transforms` entry with a valid (or empty, meaning `>`) `src`,
    checks `dest` as nats-server's mapping validation does: valid tokens without whitespace, no
    `*` token, a `>` exactly when `src` has one, known mapping functions (`{{wildcard(n)}}` or
    `$n`, `{{partition(n,...)}}`, `{{split(n,d)}}`, `{{splitFromLeft(n,k)}}` and the other split,
    slice, left and right functions, `{{random(n)}}`) with well-formed arguments, and wildcard
    indexes no larger than the number of `*` tokens in `src`. An invalid `src` or source name is
    JS121's. For a target before 2.12, an `external` source's transforms are not validated, only
    built when the stream starts (an empty `src` reads as `>`): one that does not build, or has an
    invalid `src`, is reported with err_code 10049.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10146, "source transform:
    invalid mapping destination ..."; 10049 for an external source before 2.12).

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ALL_ORDERS}
    spec:
      sources:
        - name: ORDERS_EU
          subject_transforms: [{src: "orders.>", dest: "eu.orders"}]
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ALL_ORDERS}
    spec:
      sources:
        - name: ORDERS_EU
          subject_transforms: [{src: "orders.>", dest: "eu.orders.>"}]
    ```

    ## Fix
    Refer only to wildcards the source has (counted from 1), use `{{wildcard(n)}}` instead of a
    `*` in the destination, and end both sides in `>` or neither.
    """

    code = "JS125"
    name = "stream-source-transform-invalid"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if not c.sources or c.mirror is not None:  # sources on a mirror: JS118 (10031)
            return
        from jsops.linter.api import BUILD_ONLY_BEFORE, mapping_stage  # imported on first use

        release = api.target_release(ctx.target)
        old = release < BUILD_ONLY_BEFORE

        for i, src in enumerate(c.sources):
            if not src.subject_transforms or not api.is_valid_asset_name(src.name or ""):
                continue
            if src.external is not None and release < api.EXTERNAL_SOURCE_CHECKS_SINCE:
                yield from _built_only(resource, i, src, release)
                continue
            for k, t in enumerate(src.subject_transforms):
                bad_src = (t.src or old) and not api.is_valid_subject(t.src)
                if bad_src and not old:
                    continue  # 10145, JS121
                found = mapping_stage(t.src, t.dest, release)
                # 2.10 checks the destination first (10146), then the src (10145, JS121), then
                # builds the transform, wrapping its error in 10049
                if found is None or (bad_src and found[0] != "validate"):
                    continue
                stage, why = found
                yield api.Violation(
                    resource,
                    ("sources", i, "subject_transforms", k, "dest"),
                    f"source transform {t.src or '>'!r} -> {t.dest!r} is not a valid mapping ({why}); nats-server rejects this stream",
                    server_error_code=api.ErrCode.STREAM_CREATE
                    if old and stage == "build"
                    else api.ErrCode.SOURCE_INVALID_TRANSFORM_DESTINATION,
                )


def _built_only(
    resource: api.StreamResource, i: int, src: api.StreamSource, release: api.Version
) -> Iterator[api.Violation]:
    """An external source before 2.12: its transforms are not checked, only built when the stream
    starts (an empty src reads as '>'); one that does not build fails the create with 10049."""
    from jsops.linter.api import transform_problem  # imported on first use

    for k, t in enumerate(src.subject_transforms or ()):
        if not t.dest and (not t.src or api.is_valid_subject(t.src)):
            continue  # no mapping: nothing to build
        why = (
            transform_problem(t.src or ">", t.dest, release)
            if api.is_valid_subject(t.src or ">")
            else f"source {t.src!r} is not a valid subject"
        )
        if why:
            yield api.Violation(
                resource,
                ("sources", i, "subject_transforms", k),
                f"external source transform {t.src or '>'!r} -> {t.dest!r} does not build ({why}); nats-server "
                f"{api.format_version(release)} fails to create this stream",
                server_error_code=api.ErrCode.STREAM_CREATE,
            )
            return


RULE = StreamSourceTransformInvalid
