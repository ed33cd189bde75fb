"""linter.semantics.placement: where the server can place a stream's replicas (the function JS317 and
the plan's gate decide 10005 with; the real-server agreement is tests/integration/test_placement_supercluster.py)."""

from __future__ import annotations

import pytest

from jsops.linter.semantics.errcodes import ErrCode
from jsops.linter.semantics.placement import PlacementPeer, placement_refusal

MB = 1 << 20
PEERS = [
    PlacementPeer("C1", ("az:1", "SSD "), 64 * MB),
    PlacementPeer("C2", ("az:2",), 32 * MB),
    PlacementPeer("C2", ("az:3", "!jetstream"), 1024 * MB),
    PlacementPeer("C3", ("az:3", "ssd"), None),  # storage not known: assumed enough
]


@pytest.mark.parametrize(
    ("args", "refused", "described"),
    [
        ({"replicas": 1, "cluster": "C1", "tags": ["gpu"]}, True, ("C1", 1, 0, 0)),
        ({"replicas": 1, "cluster": "C9"}, True, ("C9", 0, 0, 0)),
        (
            {"replicas": 1, "cluster": "C2", "max_bytes": 33 * MB},
            True,
            ("C2", 2, 1, 0),
        ),  # the !jetstream server never counts
        ({"replicas": 1, "cluster": "C2", "max_bytes": 32 * MB}, False, None),
        ({"replicas": 1, "cluster": "C1", "tags": ["ssd"], "max_bytes": 100 * MB}, True, ("C1", 1, 1, 0)),
        ({"replicas": 1, "tags": ["ssd"], "max_bytes": 100 * MB}, False, None),  # C1 too small, C3 holds it
        ({"replicas": 1, "tags": ["az:2"]}, False, None),  # another cluster's tag: placed there
        ({"replicas": 2}, True, ("C1", 1, 1, 1)),  # no cluster has two usable servers; described: home
        ({"replicas": 1, "tags": ["!ssd", "!az:2"]}, True, ("C1", 1, 0, 0)),
        ({"replicas": 1, "max_bytes": 0}, False, None),
        ({"replicas": 1, "max_bytes": -1, "cluster": "C2"}, False, None),  # unlimited
    ],
)
def test_placement(args: dict[str, object], refused: bool, described: tuple[str, int, int, int] | None) -> None:
    v = placement_refusal(PEERS, "C1", **args)  # type: ignore[arg-type]
    assert (v is not None) == refused
    if v is not None:
        assert v.code is ErrCode.CLUSTER_NO_PEERS and (v.cluster, v.members, v.matched, v.roomy) == described


def test_home_is_tried_first_and_unknown_home_tries_all() -> None:
    assert placement_refusal(PEERS, "C2", 1, max_bytes=2000 * MB) is None  # C3 (storage unknown) holds it
    v = placement_refusal(PEERS[:3], None, 1, max_bytes=2000 * MB)
    assert v is not None and v.cluster == "C1"  # no home: the clusters in name order, the first described
    assert placement_refusal(PEERS[:3], "C2", 1, max_bytes=2000 * MB).cluster == "C2"  # type: ignore[union-attr]
