"""JS117 stream-subjects-require-no-ack."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from jsops.linter import api

_JS_NAMESPACES = ("$JS.>", "$JSC.>", "$NRG.>")
# Before 2.11 the server refuses only subjects inside $JS.>, $JSC.> or $SYS.> (a wildcard subject
# that merely overlaps them, such as "*.>", passes) and does not reserve $NRG.> (measured on 2.10.26).
OVERLAP_CHECK_SINCE = (2, 11, 0)
_JS_NAMESPACES_BEFORE = ("$JS.>", "$JSC.>")
_WATCHED_FIRST_TOKENS = frozenset({"$JS", "$JSC", "$NRG", "$SYS"})


class StreamSubjectsRequireNoAck(api.StreamRule):
    """A stream captures `>` or the JetStream/system API subjects without no_ack.

    ## What it does
    Flags a subject `>` unless `no_ack: true` (and a single replica), and subjects that overlap
    `$JS.>`, `$JSC.>`, `$NRG.>` (except within `$JS.EVENT.>`) or `$SYS.>` (except within
    `$SYS.ACCOUNT.>`) unless `no_ack: true`. Broad wildcards such as `*.>` or `*.*` overlap these
    namespaces too.

    ## Why is this bad?
    Such a stream would store, and acknowledge, the server's own API traffic. nats-server refuses
    to create or update it (err_code 10052, "capturing all subjects requires no-ack to be true",
    "capturing all subjects requires replicas of 1", "subjects that overlap with jetstream api
    require no-ack to be true" or "subjects that overlap with system api require no-ack to be
    true").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: EVERYTHING}
    spec: {subjects: ["*.>"]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: EVERYTHING}
    spec: {subjects: ["app.>"]}
    ```

    ## Fix
    Narrow the subjects to the application's own namespace. If capturing everything is really
    intended, set `no_ack: true` (publishers then get no acknowledgement) and, for `>`, keep
    `num_replicas: 1`.
    """

    code = "JS117"
    name = "stream-subjects-require-no-ack"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        subjects = c.subjects
        if not subjects or c.mirror is not None:
            return
        no_ack = bool(c.no_ack)
        replicas = c.num_replicas or 1
        namespaces: tuple[str, ...]
        hits: Callable[[str, str], bool]
        if api.target_release(ctx.target) < OVERLAP_CHECK_SINCE:
            namespaces, hits = _JS_NAMESPACES_BEFORE, api.is_subset_match
        else:
            namespaces, hits = _JS_NAMESPACES, api.subjects_collide
        for i, s in enumerate(subjects):
            if s == ">":
                if not no_ack:
                    yield api.Violation(
                        resource,
                        ("subjects", i),
                        "capturing all subjects ('>') requires no_ack: true; nats-server rejects this stream",
                        server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                    )
                elif replicas > 1:
                    yield api.Violation(
                        resource,
                        ("subjects", i),
                        f"capturing all subjects ('>') requires num_replicas 1 (it is {replicas}); nats-server rejects this stream",
                        server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                    )
                continue
            if no_ack:
                continue
            first = s.split(".", 1)[0]
            if first not in _WATCHED_FIRST_TOKENS and first[:1] not in ("*", ">"):
                continue
            if not api.is_valid_subject(s):
                continue  # JS116
            if any(hits(s, ns) for ns in namespaces) and not api.is_subset_match(s, "$JS.EVENT.>"):
                yield api.Violation(
                    resource,
                    ("subjects", i),
                    f"subject {s!r} overlaps the JetStream API ($JS.>, $JSC.>, $NRG.>) and requires no_ack: true; nats-server rejects this stream",
                    server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                )
            elif hits(s, "$SYS.>") and not api.is_subset_match(s, "$SYS.ACCOUNT.>"):
                yield api.Violation(
                    resource,
                    ("subjects", i),
                    f"subject {s!r} overlaps the system API ($SYS.>) and requires no_ack: true; nats-server rejects this stream",
                    server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                )


RULE = StreamSubjectsRequireNoAck
