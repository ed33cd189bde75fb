"""JS317 target-stream-placement-unsatisfiable."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter.api import (
    MAX_REPLICAS,
    ErrCode,
    RuleContext,
    Severity,
    StreamConfig,
    StreamResource,
    StreamRule,
    Target,
    TargetServer,
    Violation,
)

_EXCLUDED = "!jetstream"  # a server tag that keeps a server out of every placement


def _norm(tag: str) -> str:
    return tag.strip().lower()  # placement tags match server tags case-insensitively, trimmed


def _eligible(server: TargetServer, wanted: list[str], unwanted: list[str]) -> bool:
    have = {_norm(t) for t in server.tags}
    if _norm(_EXCLUDED) in have:
        return False
    return all(t and t in have for t in wanted) and not any(t and t in have for t in unwanted)


def _known_clusters(t: Target) -> set[str]:
    out = {s.cluster for s in t.servers or () if s.cluster}
    if t.cluster_name:
        out.add(t.cluster_name)
    return out


class TargetStreamPlacementUnsatisfiable(StreamRule):
    """A stream's placement names a cluster or server tags the target cannot provide.

    ## What it does
    When the target describes its cluster (`cluster_name`, and `servers` with their `tags`), checks
    the stream's `placement`: `placement.cluster` must be one of the target's clusters (names are
    case-sensitive), and at least `num_replicas` servers of that cluster must carry every
    `placement.tags` entry and none of the `!`-prefixed ones (tags match case-insensitively,
    trimmed). Silent when the target is standalone (`clustered: false`, where placement is stored
    and ignored) or does not describe its clusters or servers. Replicas above the cluster's size
    are JS315's. The examples assume a target `C1` of three servers tagged `az:1`, `az:2`, `az:3`.

    ## Why is this bad?
    nats-server finds no servers to place the stream on and refuses to create it (err_code
    10005, "no suitable peers for placement", with "tags not matched" or "tags excluded").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      num_replicas: 3
      placement: {cluster: C1, tags: ["az:1"]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      num_replicas: 3
      placement: {cluster: C1, tags: ["!gpu"]}
    ```

    ## Fix
    Unsafe: name a cluster the target has, require only tags that enough servers carry, or lower
    `num_replicas`.
    """

    code = "JS317"
    name = "target-stream-placement-unsatisfiable"
    severity = Severity.ERROR
    example_target = {"cluster_name": "C1", "servers": [{"tags": ["az:1"]}, {"tags": ["az:2"]}, {"tags": ["az:3"]}]}

    def check_stream(self, resource: StreamResource, c: StreamConfig, ctx: RuleContext) -> Iterator[Violation]:
        p = c.placement
        t = ctx.target
        if p is None or (not p.cluster and not p.tags) or p.preferred or t.clustered is False:
            return  # placement.preferred: JS120 answers first
        r = c.num_replicas or 1
        if r < 1 or r > MAX_REPLICAS:
            return
        known = _known_clusters(t)
        if p.cluster and known and p.cluster not in known:
            yield Violation(
                resource,
                ("placement", "cluster"),
                f"placement.cluster {p.cluster!r} is not a cluster of the target ({', '.join(sorted(known))}); nats-server finds no peers to place the stream",
                server_error_code=ErrCode.CLUSTER_NO_PEERS,
            )
            return
        if t.servers is None or (p.cluster and not known):
            return
        if t.cluster_size is not None and t.cluster_size > 0 and r > t.cluster_size:
            return  # JS315
        cluster = p.cluster or t.cluster_name
        members = [s for s in t.servers if (s.cluster or t.cluster_name) == cluster]
        tags = p.tags or []
        wanted = [_norm(x) for x in tags if not x.startswith("!")]
        unwanted = [_norm(x[1:]) for x in tags if x.startswith("!")]
        n = sum(1 for s in members if _eligible(s, wanted, unwanted))
        if n < r:
            where = f"cluster {cluster!r}" if cluster else "the target"
            yield Violation(
                resource,
                ("placement", "tags") if tags else ("placement", "cluster"),
                f"{n} of the {len(members)} servers of {where} match placement {tags}, fewer than num_replicas {r}; "
                "nats-server finds no peers to place the stream",
                server_error_code=ErrCode.CLUSTER_NO_PEERS,
            )


RULE = TargetStreamPlacementUnsatisfiable
