"""JS409 ops-workqueue-subject-without-consumer."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class OpsWorkqueueSubjectWithoutConsumer(api.Rule):
    """A subject of a workqueue stream that none of the stream's consumers in the estate takes.

    ## What it does
    For every workqueue stream that has consumers in the estate (in any file of the same
    context), indexes their filters in a subject trie and reports each stream subject that no
    filter matches at all (no consumer is unfiltered, and no filter collides with the subject).
    Direct and sourcing consumers do not count. A workqueue with no consumer in the estate is
    left alone: its consumers may be created by the applications.

    How this differs from JS302: JS302 predicts nats-server's refusal of a consumer whose filter
    overlaps an earlier consumer's (err_code 10099/10100), replaying the estate in declaration
    order across files. Overlapping workqueue filters are therefore always a rejection, and a
    second warning for them would only repeat JS302. What nats-server accepts but operations
    regret is the opposite case, across files: the stream's subjects and its consumers' filters
    drift apart (a new subject is added to the stream, a consumer is narrowed or removed in
    another file), and messages on the uncovered subjects are stored but never delivered.
    Only subjects no filter touches are reported; a wildcard subject partly covered by several
    filters is not. The finding points at the stream's subject, so with `--estate` (pre-commit) it
    is reported when the stream's file is among the files passed; a full `jsops lint` always sees it.

    ## Why is this bad?
    A workqueue deletes a message only when a consumer acks it. Messages nobody consumes pile up
    until `max_age` or a size limit discards them (with `discard: new`, the stream then refuses
    all publishes, covered subjects included), and publishers get a positive ack for work that is
    never done.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: JOBS}
    spec: {subjects: ["jobs.eu", "jobs.us", "jobs.apac"], retention: workqueue}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: eu, stream: JOBS}
    spec: {filter_subject: jobs.eu}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: us, stream: JOBS}
    spec: {filter_subject: jobs.us}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: JOBS}
    spec: {subjects: ["jobs.eu", "jobs.us", "jobs.apac"], retention: workqueue}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: eu, stream: JOBS}
    spec: {filter_subject: jobs.eu}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: rest, stream: JOBS}
    spec: {filter_subjects: [jobs.us, jobs.apac]}
    ```

    ## Fix
    Unsafe: add a consumer (or a filter to an existing one) for the subject, or remove the subject
    from the stream if nothing publishes to it any more.
    """

    code = "JS409"
    name = "ops-workqueue-subject-without-consumer"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Stream"})
    estate_wide = True

    class Options(api.RuleOptions):
        pass

    def check_estate(self, ctx: api.RuleContext) -> Iterator[api.Violation]:
        by_stream = ctx.consumers_by_stream()
        for stream in ctx.estate.resources:
            if stream.kind != "Stream" or api.stream_config(stream).retention != "workqueue":
                continue
            subjects = list(api.stream_config(stream).subjects or [])
            consumers = [
                c
                for c in by_stream.get((stream.context, stream.name), ())
                if not (api.consumer_config(c).direct or api.consumer_config(c).sourcing)
            ]
            if not subjects or not consumers:
                continue
            index: api.SubjectIndex[api.Resource] = api.SubjectIndex()
            unfiltered = False
            for c in consumers:
                ccfg = api.consumer_config(c)
                filters = list(ccfg.filter_subjects or [])
                if ccfg.filter_subject:
                    filters.append(ccfg.filter_subject)
                if not filters:
                    unfiltered = True
                    break
                for f in filters:
                    index.add(f, c)
            if unfiltered:
                continue
            names = ""
            for i, subject in enumerate(subjects):
                if next(iter(index.colliding(subject)), None) is not None:
                    continue
                if not names:
                    names = ", ".join(sorted(c.name for c in consumers)[:5]) + (", ..." if len(consumers) > 5 else "")
                yield api.Violation(
                    stream,
                    ("subjects", i),
                    f"no consumer of workqueue stream {stream.name} in the estate takes {subject!r} "
                    f"(its consumers: {names}): its messages are stored but never delivered",
                    fix=api.FixSuggestion.unsafe(
                        f"add a consumer filtering {subject!r}, or remove the subject from the stream"
                    ),
                )


RULE = OpsWorkqueueSubjectWithoutConsumer
