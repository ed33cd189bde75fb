"""JS303 estate-source-cycle."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping

from jsops.linter import api


def _overlaps(subjects: tuple[str, ...], filt: str) -> bool:
    if not filt:
        return True
    return any(api.subjects_collide(s, filt) for s in subjects)


class _Created(Mapping[str, api.EffectiveStream]):
    """Streams created so far (name -> stored config), effective configs computed on first use."""

    def __init__(self, ctx: api.RuleContext) -> None:
        self.ctx = ctx
        self.resources: dict[str, api.Resource] = {}

    def __getitem__(self, name: str) -> api.EffectiveStream:
        return self.ctx.effective_stream(self.resources[name])

    def __contains__(self, name: object) -> bool:
        return name in self.resources

    def __iter__(self) -> Iterator[str]:
        return iter(self.resources)

    def __len__(self) -> int:
        return len(self.resources)


def find_cycle(name: str, new: api.EffectiveStream, created: Mapping[str, api.EffectiveStream]) -> list[str] | None:
    """nats-server's cycle check (end of ``checkStreamCfg``) for a stream about to be created.

    A breadth-first walk from the new config over the streams that already exist (``created``:
    name -> stored config), following non-external sources and mirrors. Reaching an already
    *visited* stream again through a source counts as a cycle only when the source's filter
    overlaps the subjects of the stream that sources it (no filter always overlaps); through a
    mirror it always counts. As in the server, the new config's subjects are taken as written
    (before the default to the stream name). Returns the path of names that closed the cycle.
    """
    queue: deque[tuple[api.EffectiveStream, str, tuple[str, ...]]] = deque([(new, name, (name,))])
    visited: set[str] = set()
    while queue:
        cfg, cname, path = queue.popleft()
        visited.add(cname)
        for src in cfg.sources:
            if src.external is not None:
                continue
            sname = src.name
            if sname in visited:
                if _overlaps(cfg.subjects, src.filter_subject or ""):
                    return [*path, sname]
            elif sname in created:
                queue.append((created[sname], sname, (*path, sname)))
        mirror = cfg.mirror
        if mirror is not None and mirror.external is None:
            mname = mirror.name
            if mname in visited:
                return [*path, mname]
            if mname in created:
                queue.append((created[mname], mname, (*path, mname)))
    return None


class EstateSourceCycle(api.Rule):
    """Streams that source or mirror each other in a cycle.

    ## What it does
    Replays the streams of each context in declaration order and runs nats-server's own cycle
    check for each one against the streams declared before it: a breadth-first walk over
    `sources` and `mirror` (external ones are not followed). Meeting an already visited stream
    again through a mirror is a cycle; through a source it is one when the source's
    `filter_subject` (none means everything) overlaps the subjects of the stream that sources it.
    Like the server's, the walk also reports some acyclic shapes (a stream that sources two
    streams, one of which sources the other) when the filters overlap.

    ## Why is this bad?
    nats-server refuses to create the stream that closes the loop (err_code 10052, "detected
    cycle"); messages would otherwise be copied around the loop forever.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: A}
    spec: {subjects: ["a.>"], sources: [{name: B}]}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: B}
    spec: {subjects: ["b.>"], sources: [{name: A}]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: A}
    spec: {subjects: ["a.>"], sources: [{name: B, filter_subject: "b.>"}]}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: B}
    spec: {subjects: ["b.>"], sources: [{name: A, filter_subject: "a.>"}]}
    ```

    ## Fix
    Unsafe: break the loop, or filter each source to the subjects the sourced stream owns so that
    copied messages are not copied back.
    """

    code = "JS303"
    name = "estate-source-cycle"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Stream"})
    estate_wide = True

    def check_estate(self, ctx: api.RuleContext) -> Iterator[api.Violation]:
        for streams in ctx.streams_by_context().values():
            created = _Created(ctx)
            for res in streams:
                cfg = api.stream_config(res)
                if cfg.mirror is not None or cfg.sources:
                    new = ctx.effective(res)._replace(subjects=tuple(cfg.subjects or ()))
                    path = find_cycle(res.name, new, created)
                    if path is not None:
                        field = ("mirror",) if cfg.mirror is not None else ("sources",)
                        yield api.Violation(
                            res,
                            field,
                            f"stream {res.name} closes a source/mirror cycle ({' -> '.join(path)}); nats-server refuses to create it (detected cycle)",
                            server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                            fix=api.FixSuggestion.unsafe(
                                "break the cycle, or filter the sources so copied messages are not copied back"
                            ),
                            key=True,
                        )
                        continue
                created.resources[res.name] = res


RULE = EstateSourceCycle
