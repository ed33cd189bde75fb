"""JS302 estate-workqueue-consumer-not-unique."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from jsops.linter import api

from ._common import streams_with_consumers


def _filter_path(resource: api.Resource) -> api.FieldPath:
    cfg = api.consumer_config(resource)
    if cfg.filter_subjects:
        return ("filter_subjects",)
    if cfg.filter_subject:
        return ("filter_subject",)
    return ()


# Before 2.14 the internal consumer a mirror or source takes on a workqueue stream counts as one of
# its consumers (measured: once it runs, 2.10.26 and 2.12.8 refuse any overlapping filtered consumer
# with 10100; 2.14.6 and 2.15.1 accept it). Whether the copy's consumer or the estate's consumer
# comes first is a matter of timing (the server sets the copy up asynchronously), so this is advice.
INTERNAL_CONSUMERS_EXEMPT_SINCE = (2, 14, 0)


def _copiers(ctx: api.RuleContext, context: str, origin: str) -> list[tuple[api.Resource, api.FieldPath, list[str]]]:
    """The mirrors and sources of the estate that copy ``origin``: (stream, path, the filters of
    the internal consumer the server creates on ``origin`` for the copy; ``>`` for all)."""
    out: list[tuple[api.Resource, api.FieldPath, list[str]]] = []
    for r in ctx.estate.resources:
        if r.kind != "Stream" or r.context != context or r.name == origin:
            continue
        cfg = api.stream_config(r)
        entries: list[tuple[tuple[str | int, ...], api.StreamSource]] = (
            [(("mirror",), cfg.mirror)] if cfg.mirror is not None else []
        )
        entries += [(("sources", i), s) for i, s in enumerate(cfg.sources or []) if s is not None]
        for path, src in entries:
            if src.name != origin or src.external is not None:
                continue
            if src.filter_subject:
                filters = [src.filter_subject]
            else:
                filters = [t.src or ">" for t in src.subject_transforms or []] or [">"]
            out.append((r, path, filters))
    return out


def _copier_overlap(
    res: api.Resource, filters: list[str], copiers: list[tuple[api.Resource, api.FieldPath, list[str]]], sname: str
) -> api.Violation | None:
    """The advice for the first mirror or source whose internal consumer overlaps ``res``, or None."""
    for stream, path, cfilters in copiers:
        hit = next((f for f in filters or [">"] for c in cfilters if api.subjects_collide(f, c)), None)
        if hit is not None:
            what = "mirror" if path[0] == "mirror" else f"sources[{path[1]}]"
            return api.Violation(
                res,
                _filter_path(res) or (),
                f"the {what} of stream {stream.name} ({api.where(stream, path)}) takes an internal consumer on "
                f"workqueue stream {sname} that overlaps consumer {res.name}; nats-server before 2.14 counts it: "
                f"once the copy runs it refuses {res.name} (10100/10099), and if {res.name} comes first the copy "
                "cannot start",
                fix=api.FixSuggestion.unsafe("upgrade to 2.14+, or do not mirror or source a workqueue stream"),
                key=not _filter_path(res),
                severity=api.Severity.WARNING,
            )
    return None


class EstateWorkqueueConsumerNotUnique(api.Rule):
    """Consumers of a workqueue stream whose filters are not disjoint.

    ## What it does
    For every workqueue stream, replays its consumers in declaration order (across files) as
    nats-server creates them: once the stream has a consumer, another one needs a filter (or
    err_code 10099, "multiple non-filtered consumers not allowed on workqueue stream"), and its
    filters may not collide with any earlier consumer's, nor may an earlier consumer be unfiltered
    (err_code 10100, "filtered consumer not unique on workqueue stream"). Filters are indexed in a
    subject trie. Direct and sourcing consumers do not count; consumers the server refuses for
    their ack or deliver policy (JS212, JS226) are not created, so they do not count either.

    ## Why is this bad?
    A workqueue hands each message to exactly one consumer: nats-server refuses to create a
    consumer whose messages another consumer could also take. Before 2.14 (target
    `server_version`) the internal consumer that a mirror or source of the workqueue stream takes
    counts too: a warning names the copy, since whether the server refuses the consumer (10100) or
    the copy cannot start depends on which is set up first.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: JOBS}
    spec: {subjects: ["jobs.>"], retention: workqueue}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: all_jobs, stream: JOBS}
    spec: {filter_subject: "jobs.*"}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: eu_jobs, stream: JOBS}
    spec: {filter_subject: "jobs.eu"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: JOBS}
    spec: {subjects: ["jobs.>"], retention: workqueue}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: us_jobs, stream: JOBS}
    spec: {filter_subject: "jobs.us"}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: eu_jobs, stream: JOBS}
    spec: {filter_subject: "jobs.eu"}
    ```

    ## Fix
    Unsafe: partition the stream's subjects between the consumers (disjoint filters), or share one
    consumer between the workers.
    """

    code = "JS302"
    name = "estate-workqueue-consumer-not-unique"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Consumer"})
    estate_wide = True

    def check_estate(self, ctx: api.RuleContext) -> Iterator[api.Violation]:
        count_copiers = api.target_release(ctx.target) < INTERNAL_CONSUMERS_EXEMPT_SINCE
        for stream, consumers in streams_with_consumers(ctx):
            if api.stream_config(stream).retention != "workqueue":
                continue
            sname = stream.name
            index: api.SubjectIndex[api.Resource] = api.SubjectIndex()
            unfiltered: api.Resource | None = None
            first: api.Resource | None = None
            copiers = _copiers(ctx, stream.context, sname) if count_copiers else []
            for res in consumers:
                cfg = api.consumer_config(res)
                if cfg.ack_policy not in ("explicit", "flow_control") or (cfg.deliver_policy or "all") != "all":
                    continue  # refused first (10098 / 10101): never created
                filters = list(cfg.filter_subjects or [])
                if cfg.filter_subject:
                    filters.append(cfg.filter_subject)
                if any(not f or not api.is_valid_subject(f) for f in filters):
                    continue  # refused by the filter checks (JS216)
                copied = _copier_overlap(res, filters, copiers, sname)
                if copied is not None:
                    yield copied
                # the index finds the filters that may collide; workqueue_refusal decides
                if first is None or unfiltered is not None or not filters:
                    others: Iterable[tuple[api.Resource, list[str]]] = (
                        [] if first is None else [(unfiltered or first, [])]
                    )
                else:
                    others = ((other, [other_f]) for f in filters for other_f, other in index.colliding(f))
                hit = api.refusals.workqueue_refusal(filters, others)
                if hit is None:
                    first = first or res
                    for f in filters:
                        index.add(f, res)
                    unfiltered = unfiltered or (None if filters else res)
                    continue
                code, other, f, other_f = hit
                if code == api.ErrCode.CONSUMER_WQ_MULTIPLE_UNFILTERED:
                    yield api.Violation(
                        res,
                        (),
                        f"consumer {res.name} has no filter but workqueue stream {sname} already has a consumer; nats-server refuses to create it",
                        server_error_code=code,
                        fix=api.FixSuggestion.unsafe(
                            "give the consumer a filter_subject disjoint from the other consumers'"
                        ),
                        key=True,
                    )
                    continue
                yield api.Violation(
                    res,
                    _filter_path(res),
                    f"filter {f!r} of consumer {res.name} overlaps {repr(other_f) if other_f else '(no filter: all subjects)'} of consumer {other.name} "
                    f"({api.where(other, _filter_path(other))}) on workqueue stream {sname}; nats-server refuses to create it",
                    server_error_code=code,
                    fix=api.FixSuggestion.unsafe("make the workqueue consumers' filters disjoint"),
                )


RULE = EstateWorkqueueConsumerNotUnique
