"""JS118 stream-mirror-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import sourcing_consumer_problem

# (field, err_code, what): settings a mirror cannot have, in the order nats-server checks them (the
# flags from their home, MIRROR_REFUSES; subject delete markers are checked below, after the mirror's own block).
_FORBIDDEN = (
    ("first_seq", api.ErrCode.MIRROR_WITH_FIRST_SEQ, "a first sequence"),
    ("subjects", api.ErrCode.MIRROR_WITH_SUBJECTS, "subjects"),
    ("sources", api.ErrCode.MIRROR_WITH_SOURCES, "other sources"),
    *((r.field, r.err_code, r.what) for r in api.MIRROR_REFUSES if r.field != "subject_delete_marker_ttl"),
)


class StreamMirrorInvalid(api.StreamRule):
    """A mirror stream with settings only a normal stream can have, or a malformed mirror block.

    ## What it does
    For a stream with `mirror`, flags `first_seq`, `subjects`, `sources`, `allow_msg_counter`,
    `allow_atomic`, `allow_batched`, `allow_msg_schedules` and `subject_delete_marker_ttl`; an
    invalid origin stream name; `mirror.filter_subject` together with `mirror.subject_transforms`;
    a `mirror.consumer` that is malformed or combined with start options or a filter; invalid
    or overlapping `mirror.subject_transforms` sources; a `mirror.filter_subject` that is not a
    valid subject. Before 2.12 the server allows `/` and `\\` in the origin's name: advice then.

    ## Why is this bad?
    A mirror's content is exactly its origin's: it takes no publishes and no other input. nats-server
    refuses to create the stream, each condition with its own err_code: `first_seq` 10143,
    `subjects` 10034, `sources` 10031, counters 10173, `allow_atomic` 10198, `allow_batched` 10209,
    schedules 10186, subject delete markers 10052, invalid origin name 10142, filter plus
    transforms 10150, invalid mirror consumer 10213, invalid transform source 10151, overlapping
    transform sources 10152; an invalid `filter_subject` fails the create with 10049.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_COPY}
    spec:
      mirror: {name: ORDERS}
      subjects: ["orders.copy.>"]
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_COPY}
    spec:
      mirror: {name: ORDERS}
    ```

    ## Fix
    Remove the settings a mirror cannot have. To combine streams, rename subjects or start from a
    given sequence, use `sources` (with `subject_transforms`) instead of `mirror`.
    """

    code = "JS118"
    name = "stream-mirror-invalid"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        m = c.mirror
        if m is None:
            return
        for fld, code, what in _FORBIDDEN:
            v = getattr(c, fld)
            if v if not isinstance(v, int) or isinstance(v, bool) else v > 0:
                yield api.Violation(
                    resource,
                    (fld,),
                    f"a mirror cannot have {what}; nats-server rejects this stream",
                    server_error_code=code,
                )
        if m.consumer is not None:
            why = sourcing_consumer_problem(m, "mirror")
            if why:
                yield api.Violation(
                    resource,
                    ("mirror", "consumer"),
                    f"mirror.consumer is invalid: {why}; nats-server rejects this stream",
                    server_error_code=api.ErrCode.MIRROR_DURABLE_CONSUMER_CFG_INVALID,
                )
        if m.filter_subject and m.subject_transforms:
            yield api.Violation(
                resource,
                ("mirror", "filter_subject"),
                "a mirror cannot have both filter_subject and subject_transforms; nats-server rejects this stream",
                server_error_code=api.ErrCode.MIRROR_MULTIPLE_FILTERS_NOT_ALLOWED,
            )
        if (c.subject_delete_marker_ttl or 0) > 0:
            yield api.Violation(
                resource,
                ("subject_delete_marker_ttl",),
                "subject delete markers are forbidden on mirrors; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
            )
        trs = m.subject_transforms or []
        from jsops.linter.api import EMPTY_SRC_REFUSED_BEFORE

        empty_refused = api.target_release(ctx.target) < EMPTY_SRC_REFUSED_BEFORE  # 2.10: '' is not '>'
        for k, t in enumerate(trs):
            if (t.src or empty_refused) and not api.is_valid_subject(t.src):
                yield api.Violation(
                    resource,
                    ("mirror", "subject_transforms", k, "src"),
                    f"mirror transform source {t.src!r} is not a valid subject; nats-server rejects this stream",
                    server_error_code=api.ErrCode.MIRROR_INVALID_SUBJECT_FILTER,
                )
        for k, t in enumerate(trs):
            other = next((j for j, u in enumerate(trs) if j != k and api.subjects_collide(t.src, u.src)), None)
            if other is not None:
                yield api.Violation(
                    resource,
                    ("mirror", "subject_transforms", k, "src"),
                    f"mirror transform source {t.src!r} overlaps subject_transforms[{other}]; nats-server rejects this stream",
                    server_error_code=api.ErrCode.MIRROR_OVERLAPPING_SUBJECT_FILTERS,
                )
                break
        name = m.name or ""
        if m.external is None and not api.is_valid_asset_name(name):
            only_separators = api.is_valid_asset_name(
                name.replace("/", "_").replace("\\", "_")
            )  # 2.10, 2.11 allow them
            yield ctx.refusal(
                resource,
                ("mirror", "name"),
                f"mirrored stream name {m.name!r} is invalid; nats-server rejects this stream",
                api.ErrCode.MIRROR_INVALID_STREAM_NAME,
                about="mirror.name:path-separator" if only_separators else None,
            )
        if m.filter_subject and not api.is_valid_subject(m.filter_subject):
            yield api.Violation(
                resource,
                ("mirror", "filter_subject"),
                f"mirror.filter_subject {m.filter_subject!r} is not a valid subject; nats-server fails to create this stream",
                server_error_code=api.ErrCode.STREAM_CREATE,
            )


RULE = StreamMirrorInvalid
