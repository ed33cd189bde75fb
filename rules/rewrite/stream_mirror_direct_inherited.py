"""JS324 rewrite-stream-mirror-direct-inherited."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class RewriteStreamMirrorDirectInherited(api.Rule):
    """A mirror's mirror_direct differs from its origin's allow_direct, which the server copies.

    ## What it does
    For a mirror whose origin is declared in the estate (same context, not external), compares
    the mirror's `mirror_direct` (unset reads as false) with the origin's `allow_direct`, and
    shows the effective value: nats-server ignores the manifest and stores the origin's setting.

    ## Why is this bad?
    Direct gets are served (or not) by the mirror against what its manifest says, and the stored
    config differs from the manifest, which reads as drift. In pedantic mode the server refuses
    the stream instead (err_code 10157).

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], allow_direct: true}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_MIRROR}
    spec: {mirror: {name: ORDERS}}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], allow_direct: true}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_MIRROR}
    spec: {mirror: {name: ORDERS}, mirror_direct: true}
    ```

    ## Fix
    Safe: write `mirror_direct` equal to the origin's `allow_direct`.
    """

    code = "JS324"
    name = "rewrite-stream-mirror-direct-inherited"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Stream"})
    estate_wide = True

    def check_estate(self, ctx: api.RuleContext) -> Iterator[api.Violation]:
        for streams in ctx.streams_by_context().values():
            for res in streams:
                origin = ctx.origin_of(res, api.stream_config(res).mirror)
                if origin is None:
                    continue
                wanted = bool(api.stream_config(res).mirror_direct)
                actual = bool(api.stream_config(origin).allow_direct)
                if wanted == actual:
                    continue
                written = api.stream_config(res).mirror_direct is not None
                yield api.Violation(
                    res,
                    ("mirror_direct",) if written else ("mirror",),
                    f"{'mirror_direct: ' + str(wanted).lower() if written else 'no mirror_direct'}: nats-server stores "
                    f"mirror_direct: {str(actual).lower()}, copied from origin {origin.name}'s allow_direct "
                    f"({api.where(origin, ('allow_direct',))})",
                    fix=api.FixSuggestion.safe(f"write mirror_direct: {str(actual).lower()}"),
                    key=not written,
                )


RULE = RewriteStreamMirrorDirectInherited
