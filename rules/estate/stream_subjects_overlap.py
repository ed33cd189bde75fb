"""JS301 estate-stream-subjects-overlap."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class EstateStreamSubjectsOverlap(api.Rule):
    """Two streams of the same context listen on overlapping subjects.

    ## What it does
    Indexes the effective `subjects` of every stream (a stream without subjects, mirror or sources
    listens on its own name) in a subject trie, per context, in declaration order, and flags a
    stream whose subjects collide with a stream declared before it. A stream that is flagged is
    not indexed: nats-server would not have created it.

    ## Why is this bad?
    A message can only be stored by one stream of an account: nats-server refuses to create the
    second stream (err_code 10065, "subjects overlap with an existing stream").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"]}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_EU}
    spec: {subjects: ["orders.eu.*"]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"]}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_EU}
    spec: {sources: [{name: ORDERS, filter_subject: "orders.eu.*"}]}
    ```

    ## Fix
    Unsafe: give each stream its own subject space, or source the messages from the stream that
    owns them instead of listening on them twice.
    """

    code = "JS301"
    name = "estate-stream-subjects-overlap"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Stream"})
    estate_wide = True

    def check_estate(self, ctx: api.RuleContext) -> Iterator[api.Violation]:
        for streams in ctx.streams_by_context().values():
            index: api.SubjectIndex[api.Resource] = api.SubjectIndex()
            for res in streams:
                cfg = api.stream_config(res)
                subjects = cfg.subjects or ([] if cfg.mirror is not None or cfg.sources else [res.name])
                valid = [s for s in subjects if api.is_valid_subject(s)]  # the others are reported by JS116
                found = ((other, [o]) for s in valid for o, other in index.colliding(s) if other is not res)
                hit = api.refusals.stream_overlap(valid, found)  # the index finds the streams that may collide
                if hit is None:
                    for subject in valid:
                        index.add(subject, res)
                    continue
                code, other, subject, other_subject = hit
                i = subjects.index(subject)
                written = bool(api.stream_config(res).subjects)
                yield api.Violation(
                    res,
                    ("subjects", i) if written else ("subjects",),
                    f"subject {subject!r}{'' if written else ' (the default: the stream name)'} overlaps {other_subject!r} "
                    f"of stream {other.name} ({api.where(other, ('subjects',))}); nats-server refuses to create this stream",
                    server_error_code=code,
                    fix=api.FixSuggestion.unsafe(
                        f"use subjects that do not overlap stream {other.name}'s, or source from it"
                    ),
                    key=not written,
                )


RULE = EstateStreamSubjectsOverlap
