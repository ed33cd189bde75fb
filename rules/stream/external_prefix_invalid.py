"""JS122 stream-external-prefix-invalid."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsops.linter import api

JS_API_PREFIX = "$JS.API"


class StreamExternalPrefixInvalid(api.StreamRule):
    """A mirror or source `external` block with an unusable API or delivery prefix.

    ## What it does
    Checks `external.api` and `external.deliver` of the mirror and of every source: both must be
    literal, valid subjects, and the API prefix must not be the local `$JS.API` itself. A delivery
    prefix must not make a subject of a sourced stream of this domain (declared in the estate)
    collide with itself once prefixed (`x.>` under the prefix `x`).

    ## Why is this bad?
    nats-server refuses to create or update the stream: a delivery prefix with wildcards or
    invalid tokens with err_code 10024, such an API prefix with err_code 10052, and an API prefix
    equal to `$JS.API` with err_code 10021 (it would talk to the local JetStream, not the remote
    domain); a delivery prefix overlapping a sourced stream's subjects with err_code 10022.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_HUB}
    spec:
      mirror:
        name: ORDERS
        external: {api: "$JS.leaf.API", deliver: "deliver.*"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_HUB}
    spec:
      mirror:
        name: ORDERS
        external: {api: "$JS.leaf.API", deliver: "deliver.leaf"}
    ```

    ## Fix
    Use the remote domain's API prefix (`$JS.<domain>.API`) and a literal delivery prefix that no
    stream captures.
    """

    code = "JS122"
    name = "stream-external-prefix-invalid"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        blocks: list[tuple[api.FieldPath, Any]] = []
        if c.mirror is not None:
            if c.mirror.external is not None:
                blocks.append((("mirror", "external"), c.mirror.external))
        elif c.sources:
            blocks.extend(
                (("sources", i, "external"), s.external) for i, s in enumerate(c.sources) if s.external is not None
            )
        origin_subjects = _origin_subjects(resource, c, ctx)
        for at, ext in blocks:
            if ext.deliver and not api.is_valid_publish_subject(ext.deliver):
                yield api.Violation(
                    resource,
                    at + ("deliver",),
                    f"external delivery prefix {ext.deliver!r} must be a valid subject without wildcards; nats-server rejects this stream",
                    server_error_code=api.ErrCode.STREAM_INVALID_EXTERNAL_DELIVERY_SUBJ,
                )
            elif ext.deliver:
                hit = next((s for s in origin_subjects if api.subjects_collide(s, f"{ext.deliver}.{s}")), None)
                if hit is not None:
                    yield api.Violation(
                        resource,
                        at + ("deliver",),
                        f"external delivery prefix {ext.deliver!r} overlaps {hit!r}, a subject of a sourced stream, once prefixed; "
                        "nats-server rejects this stream",
                        server_error_code=api.ErrCode.STREAM_EXTERNAL_DEL_PREFIX_OVERLAPS,
                    )
            if ext.api:
                if not api.is_valid_publish_subject(ext.api):
                    yield api.Violation(
                        resource,
                        at + ("api",),
                        f"external API prefix {ext.api!r} must be a valid subject without wildcards; nats-server rejects this stream",
                        server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                    )
                elif ext.api == JS_API_PREFIX:
                    yield api.Violation(
                        resource,
                        at + ("api",),
                        f"external API prefix {ext.api!r} is the local JetStream API; nats-server rejects this stream",
                        server_error_code=api.ErrCode.STREAM_EXTERNAL_API_OVERLAP,
                    )


def _origin_subjects(resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext) -> list[str]:
    """The subjects of the streams in this domain that ``c`` sources and the estate declares (the
    server compares external delivery prefixes with the subjects of the local origins it has)."""
    out: list[str] = []
    for src in c.sources or ():
        origin = ctx.origin_of(resource, src) if src.external is None else None
        if origin is not None:
            o = api.stream_config(origin)
            out.extend(o.subjects or ([] if o.mirror is not None or o.sources else [origin.name]))
    return out


RULE = StreamExternalPrefixInvalid
