"""Where nats-server can place a stream's replicas in a cluster or supercluster: :func:`placement_refusal`,
the one function deciding 10005 ("no suitable peers for placement") that the lint rule JS317 and the plan
(through its lint gate) predict with.

What the server does, measured on 2.10.26 to 2.15.1 on three single-server clusters joined by gateways
(tests/integration/test_placement_supercluster.py):

- ``placement.cluster`` names the one cluster tried; a cluster the supercluster does not have: 10005.
- Without it the client's own cluster is tried first, then every other cluster: a stream too big for
  its own cluster, or tagged for servers of another cluster only, is placed there, not refused.
- In a cluster, a server is a candidate when it carries every ``placement.tags`` entry and none of
  the ``!``-prefixed ones (case-insensitively, trimmed) and is not tagged ``!jetstream``; with
  ``max_bytes`` set, when its storage of the stream's kind (``max_file_store`` / ``max_mem_store``)
  minus what it holds reserved is at least ``max_bytes``. Fewer candidates than ``num_replicas`` in
  every cluster tried: 10005 ("tags not matched", "insufficient storage").

The reserved bytes are a snapshot: the meta leader counts a stream's reservation once the server
reports it (its statistics), so a create right after another on the same server may still be placed
by the leader, then refused by the server itself (10047, seen on 2.10.26) or even accepted (2.12.8:
40 of 32 MB reserved); see docs/disaster-recovery.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errcodes import ErrCode

__all__ = ["PlacementPeer", "PlacementRefusal", "norm_tag", "placement_refusal"]

_EXCLUDED = "!jetstream"  # a server tag that keeps a server out of every placement


def norm_tag(tag: str) -> str:
    """Placement tags match server tags case-insensitively, trimmed."""
    return tag.strip().lower()


@dataclass(frozen=True)
class PlacementPeer:
    """One server as placement sees it: its cluster, tags and the bytes it has left of the storage
    the stream uses (None: not known, assumed enough)."""

    cluster: str | None
    tags: tuple[str, ...] = ()
    available: int | None = None


@dataclass(frozen=True)
class PlacementRefusal:
    """Why no cluster tried can hold the replicas: ``cluster`` (the one described: the placement's, else
    the client's), its ``members``, how many match the tags (``matched``) and how many of those have room
    (``roomy``); ``unknown_cluster`` when ``placement.cluster`` is none of the known clusters."""

    code: ErrCode
    cluster: str | None
    members: int
    matched: int
    roomy: int
    unknown_cluster: bool = False


def _matches(peer: PlacementPeer, wanted: Sequence[str], unwanted: Sequence[str]) -> bool:
    have = {norm_tag(t) for t in peer.tags}
    if norm_tag(_EXCLUDED) in have:
        return False
    return all(t and t in have for t in wanted) and not any(t and t in have for t in unwanted)


def _judge(
    cluster: str | None, peers: Sequence[PlacementPeer], tags: Sequence[str], max_bytes: int, replicas: int
) -> PlacementRefusal | None:
    members = [p for p in peers if p.cluster == cluster]
    wanted = [norm_tag(t) for t in tags if not t.startswith("!")]
    unwanted = [norm_tag(t[1:]) for t in tags if t.startswith("!")]
    matched = [p for p in members if _matches(p, wanted, unwanted)]
    roomy = [p for p in matched if max_bytes <= 0 or p.available is None or p.available >= max_bytes]
    if len(roomy) >= replicas:
        return None
    return PlacementRefusal(ErrCode.CLUSTER_NO_PEERS, cluster, len(members), len(matched), len(roomy))


def placement_refusal(
    peers: Sequence[PlacementPeer],
    home: str | None,
    replicas: int,
    cluster: str | None = None,
    tags: Sequence[str] = (),
    max_bytes: int = 0,
) -> PlacementRefusal | None:
    """10005 for a stream of ``replicas`` with ``placement`` (``cluster``, ``tags``) and ``max_bytes``
    (0 or negative: unlimited) created through a server of cluster ``home``, the ``peers`` being every
    server of every cluster; None when some cluster tried holds it. The described cluster of a refusal
    is the placement's, else ``home`` (else the first tried)."""
    known = sorted({p.cluster for p in peers if p.cluster is not None})
    if cluster is not None:
        if cluster not in known:
            return PlacementRefusal(ErrCode.CLUSTER_NO_PEERS, cluster, 0, 0, 0, unknown_cluster=True)
        return _judge(cluster, peers, tags, max_bytes, replicas)
    order = ([home] if home in known else []) + [c for c in known if c != home]
    first: PlacementRefusal | None = None
    for name in order:
        verdict = _judge(name, peers, tags, max_bytes, replicas)
        if verdict is None:
            return None
        first = first or verdict
    return first
