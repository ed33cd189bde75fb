"""JS121 stream-sources-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import sourcing_consumer_problem


def _identity(src: api.StreamSource) -> str:
    """The server's source identity (``composeIName``): name, external API prefix, consumer name,
    and the filter or the transforms (empty parts read as ``>``)."""
    ident = src.name or ""
    if src.external is not None:
        ident += ":" + src.external.api
    if src.consumer is not None:
        ident += ":C=" + (src.consumer.name or "")
    if not src.subject_transforms:
        return f"{ident} {src.filter_subject or '>'} >"
    srcs = "\f".join(t.src or ">" for t in src.subject_transforms)
    dests = "\f".join(t.dest or ">" for t in src.subject_transforms)
    return f"{ident} {srcs} {dests}"


class StreamSourcesInvalid(api.StreamRule):
    """A malformed `sources` list.

    ## What it does
    Checks each entry of `sources` as nats-server does on create: a valid stream name; no
    duplicate (same stream, external API prefix, consumer, and filter or transforms);
    `filter_subject` and `subject_transforms` not both set; valid, non-overlapping transform
    sources; a well-formed durable `consumer` (name, literal `deliver_subject`, no start options,
    no `filter_subject`) used by one source only; a `filter_subject` that is a valid subject. Also
    flags `sources` with `allow_msg_schedules`. Before 2.12 the server allows `/` and `\\` in a
    source's name, and does not check an `external` source's filter and transforms (JS122 says
    what it does with them): for such a target these findings are advice.

    ## Why is this bad?
    nats-server refuses to create or update the stream, each condition with its own err_code:
    invalid name 10141, duplicate source 10140, filter plus transforms 10144, invalid transform
    source 10145, overlapping transform sources 10147, invalid source consumer 10215, a consumer
    name reused for the same stream 10216, sources with schedules 10187; an invalid
    `filter_subject` fails the create with 10049.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ALL_ORDERS}
    spec:
      sources:
        - {name: ORDERS_EU, filter_subject: "orders.>"}
        - {name: ORDERS_EU, filter_subject: "orders.>"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ALL_ORDERS}
    spec:
      sources:
        - {name: ORDERS_EU, filter_subject: "orders.>"}
        - {name: ORDERS_US, filter_subject: "orders.>"}
    ```

    ## Fix
    Remove duplicate entries, use either `filter_subject` or `subject_transforms` in one source,
    and give each durable sourcing consumer its own name.
    """

    code = "JS121"
    name = "stream-sources-invalid"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        sources = c.sources
        if not sources or c.mirror is not None:  # sources on a mirror: JS118 (10031)
            return
        if c.allow_msg_schedules:
            yield api.Violation(
                resource,
                ("allow_msg_schedules",),
                "a stream with sources cannot schedule messages; nats-server rejects this stream",
                server_error_code=api.ErrCode.SOURCE_WITH_MSG_SCHEDULES,
            )

        seen: dict[str, int] = {}
        consumers: dict[tuple[str, str, str], int] = {}
        for i, src in enumerate(sources):
            at = ("sources", i)
            name = src.name or ""
            if not api.is_valid_asset_name(name):
                # 2.10 and 2.11 allow '/' and '\\' in it (advice for them, the other checks go on)
                only_separators = api.is_valid_asset_name(name.replace("/", "_").replace("\\", "_"))
                refused = ctx.refusal(
                    resource,
                    at + ("name",),
                    f"sourced stream name {src.name!r} is invalid; nats-server rejects this stream",
                    api.ErrCode.SOURCE_INVALID_STREAM_NAME,
                    about="sources.name:path-separator" if only_separators else None,
                )
                yield refused
                if refused.server_error_code is not None:
                    continue
            external = "sources.external" if src.external is not None else None
            if src.filter_subject and not api.is_valid_subject(src.filter_subject):
                yield api.Violation(
                    resource,
                    at + ("filter_subject",),
                    f"sources[{i}].filter_subject {src.filter_subject!r} is not a valid subject; nats-server fails to create this stream",
                    server_error_code=api.ErrCode.STREAM_CREATE,
                )
            ident = _identity(src)
            if ident in seen:
                yield api.Violation(
                    resource,
                    at,
                    f"sources[{i}] duplicates sources[{seen[ident]}]; nats-server rejects this stream",
                    server_error_code=api.ErrCode.SOURCE_DUPLICATE_DETECTED,
                )
            else:
                seen[ident] = i
            trs = src.subject_transforms or []
            if src.filter_subject and trs:
                yield ctx.refusal(
                    resource,
                    at + ("filter_subject",),
                    "a source cannot have both filter_subject and subject_transforms; nats-server rejects this stream",
                    api.ErrCode.SOURCE_MULTIPLE_FILTERS_NOT_ALLOWED,
                    about=external,
                )
            yield from _transform_problems(resource, at, src, ctx, external)
            cons = src.consumer
            if cons is not None:
                why = sourcing_consumer_problem(src, "source")
                if why:
                    yield api.Violation(
                        resource,
                        at + ("consumer",),
                        f"sources[{i}].consumer is invalid: {why}; nats-server rejects this stream",
                        server_error_code=api.ErrCode.SOURCE_DURABLE_CONSUMER_CFG_INVALID,
                    )
                key = (src.name or "", src.external.api if src.external is not None else "", cons.name or "")
                if key in consumers:
                    yield api.Violation(
                        resource,
                        at + ("consumer", "name"),
                        f"sources[{i}] reuses the consumer {cons.name!r} of sources[{consumers[key]}] on the same stream; nats-server rejects this stream",
                        server_error_code=api.ErrCode.SOURCE_DURABLE_CONSUMER_DUPLICATE_DETECTED,
                    )
                else:
                    consumers[key] = i


def _transform_problems(
    resource: api.StreamResource, at: tuple[str, int], src: api.StreamSource, ctx: api.RuleContext, external: str | None
) -> Iterator[api.Violation]:
    """A source's subject transforms: each source a valid subject, no two overlapping. (Before
    2.12 an external source's transforms are only built: JS122 predicts that.)"""
    from jsops.linter.api import EMPTY_SRC_REFUSED_BEFORE

    release = ctx.release
    trs = src.subject_transforms or []
    # before 2.12 an external source's transform sources are not checked: an invalid one fails the build (10049, JS122)
    checked = [] if external and release < api.EXTERNAL_SOURCE_CHECKS_SINCE else trs
    for k, t in enumerate(checked):
        if (t.src or release < EMPTY_SRC_REFUSED_BEFORE) and not api.is_valid_subject(t.src):
            yield api.Violation(
                resource,
                at + ("subject_transforms", k, "src"),
                f"transform source {t.src!r} is not a valid subject; nats-server rejects this stream",
                server_error_code=api.ErrCode.SOURCE_INVALID_SUBJECT_FILTER,
            )
    for k, t in enumerate(trs):
        other = next((m for m, u in enumerate(trs) if m != k and api.is_subset_match(t.src, u.src)), None)
        if other is not None:
            yield ctx.refusal(
                resource,
                at + ("subject_transforms", k, "src"),
                f"transform source {t.src!r} overlaps subject_transforms[{other}]; nats-server rejects this stream",
                api.ErrCode.SOURCE_OVERLAPPING_SUBJECT_FILTERS,
                about=external,
            )
            break


RULE = StreamSourcesInvalid
