"""JS317 target-stream-placement-unsatisfiable."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


def _capacity(server: api.TargetServer, memory: bool) -> int | None:
    """The bytes of the stream's storage kind the server has in all (None: not known). The reserved bytes
    the target records are not taken off: they hold the estate's own streams once applied, which
    an update does not reserve again (the plan checks live reservations)."""
    return server.max_mem_store if memory else server.max_file_store


def _peers(t: api.Target, memory: bool) -> list[api.placement.PlacementPeer]:
    return [
        api.placement.PlacementPeer(s.cluster or t.cluster_name, s.tags, _capacity(s, memory)) for s in t.servers or ()
    ]


def _known_clusters(t: api.Target) -> set[str]:
    out = {s.cluster for s in t.servers or () if s.cluster}
    if t.cluster_name:
        out.add(t.cluster_name)
    return out


def _message(
    v: api.placement.PlacementRefusal, tags: list[str], r: int, max_bytes: int, storage: str, tried_all: bool
) -> str:
    where = f"cluster {v.cluster!r}" if v.cluster else "the target"
    usable = (
        f"{v.matched} of the {v.members} servers of {where} carry placement tags {tags}"
        if tags
        else f"{where} has {v.matched} usable server(s)"
    )
    if v.matched >= r:
        usable += f", {v.roomy} of them with {storage} storage for max_bytes {api.human_size(max_bytes)}"
    text = f"{usable}, fewer than num_replicas {r}"
    if tried_all:
        text += ", nor does any other cluster of the target hold it"
    return text + "; nats-server finds no peers to place the stream"


class TargetStreamPlacementUnsatisfiable(api.StreamRule):
    """A stream's placement names a cluster or server tags the target cannot provide.

    ## What it does
    When the target describes its cluster (`cluster_name`, and `servers` with their `tags`), checks
    the stream's `placement`: `placement.cluster` must be one of the target's clusters (names are
    case-sensitive), and at least `num_replicas` servers of that cluster must carry every
    `placement.tags` entry and none of the `!`-prefixed ones (tags match case-insensitively,
    trimmed) and, when the stream sets `max_bytes` and the target gives the servers' storage
    (`max_file_store`, `max_mem_store`), have that much storage of the stream's kind. In a
    supercluster (the target's `servers` name several clusters) a placement without a cluster is
    judged as the server does: the connected cluster (`cluster_name`) first, then every other one;
    only when none holds the replicas is it refused. Streams without a placement are judged too when the target's servers span
    several clusters (a supercluster: replicas need that many servers in one cluster) or give
    their storage. Silent when the target is standalone (`clustered: false`, where placement is stored
    and ignored) or does not describe its clusters or servers. Replicas above the cluster's size
    are JS315's. The examples assume a target `C1` of three servers tagged `az:1`, `az:2`, `az:3`.

    ## Why is this bad?
    nats-server finds no servers to place the stream on and refuses to create it (err_code
    10005, "no suitable peers for placement", with "tags not matched", "tags excluded" or
    "insufficient storage"; 10005 on 2.10.26 to 2.15.1, tests/integration/test_placement_supercluster.py).

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
    severity = api.Severity.ERROR
    example_target = {"cluster_name": "C1", "servers": [{"tags": ["az:1"]}, {"tags": ["az:2"]}, {"tags": ["az:3"]}]}

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        t = ctx.target
        if not _judged(c, t):
            return
        p = c.placement
        cluster, tags = (p.cluster, list(p.tags or [])) if p is not None else (None, [])
        r = c.num_replicas or 1
        known = _known_clusters(t)
        if cluster and known and cluster not in known:
            yield api.Violation(
                resource,
                ("placement", "cluster"),
                f"placement.cluster {cluster!r} is not a cluster of the target ({', '.join(sorted(known))}); "
                "nats-server finds no peers to place the stream",
                server_error_code=api.ErrCode.CLUSTER_NO_PEERS,
            )
            return
        if t.servers is None or (cluster and not known):
            return
        if t.cluster_size is not None and t.cluster_size > 0 and r > t.cluster_size:
            return  # JS315
        max_bytes = c.max_bytes or 0
        v = api.placement.placement_refusal(
            _peers(t, c.storage == "memory"), t.cluster_name, r, cluster, tags, max_bytes
        )
        if v is None:
            return
        tried_all = not cluster and len(known) > 1
        yield api.Violation(
            resource,
            _refused_field(v, r, tags, cluster),
            _message(v, tags, r, max_bytes, c.storage or "file", tried_all),
            server_error_code=v.code,
        )


def _judged(c: api.StreamConfig, t: api.Target) -> bool:
    """Whether the stream's placement is this rule's to judge: not a preferred one (JS120 answers first), on a
    clustered target, placed by cluster, tags or size or among several clusters (one cluster's size is
    JS315's), with a replica count the server takes."""
    p = c.placement
    if (p is not None and p.preferred) or t.clustered is False:
        return False
    sized = (c.max_bytes or 0) > 0 and any(_capacity(s, c.storage == "memory") is not None for s in t.servers or ())
    placed = p is not None and bool(p.cluster or p.tags)
    if not placed and not sized and len(_known_clusters(t)) < 2:
        return False
    return 1 <= (c.num_replicas or 1) <= api.MAX_REPLICAS


def _refused_field(v: api.placement.PlacementRefusal, r: int, tags: list[str], cluster: str | None) -> tuple[str, ...]:
    """The field a placement refusal points at: max_bytes when enough servers match but lack the room, else
    the tags, the cluster or the replica count (the first the stream sets)."""
    if v.matched >= r:
        return ("max_bytes",)
    if tags:
        return ("placement", "tags")
    if cluster:
        return ("placement", "cluster")
    return ("num_replicas",)


RULE = TargetStreamPlacementUnsatisfiable
