"""The rule for the servers of other clusters (jsops.reconciler._discover_trust): kept only when the cluster
they name is one the connected server's gateway joins and every server of the supercluster, no more, answered
once (the JetStream meta group's size); otherwise the connected cluster's servers alone are written. And the
storage `jsops discover` writes per server comes from the same VARZ answer."""

from __future__ import annotations

from typing import Any

from jsops.reconciler._discover_trust import gateway_names, verified_peers
from jsops.reconciler.discover import target_facts

VARZ = {
    "server_id": "A1",
    "server_name": "C1-1",
    "tags": ["az:1"],
    "gateway": {"name": "C1", "gateways": [{"name": "C1"}, {"name": "C2"}]},
}
IDS: dict[str, str | None] = {"A1": "C1-1"}


def answer(sid: str, name: str, cluster: str, tags: list[str], max_storage: int = 1 << 30) -> dict[str, Any]:
    body = {
        "server_id": sid,
        "server_name": name,
        "cluster": {"name": cluster},
        "tags": tags,
        "jetstream": {
            "config": {"max_storage": max_storage, "max_memory": 1 << 28},
            "stats": {"reserved_storage": 5, "reserved_memory": 0},
        },
    }
    return {"server": {"id": sid, "name": name}, "data": body}


def test_gateway_names_leave_out_the_own_cluster() -> None:
    assert gateway_names(VARZ) == {"C2"} and gateway_names({}) == set()


def test_other_clusters_kept_when_the_meta_group_counts_them() -> None:
    answers = [answer("A1", "C1-1", "C1", ["az:1"]), answer("B1", "C2-1", "C2", ["az:2"], 32 << 20)]
    peers, notes = verified_peers(answers, IDS, VARZ, meta_size=2)
    assert peers is not None and [p["server_name"] for p in peers] == ["C1-1", "C2-1"] and notes == []
    facts = target_facts({"cluster": "C1", "version": "2.15.1"}, {}, VARZ, {"meta_cluster": {"cluster_size": 2}}, peers)
    assert [
        (s.name, s.cluster, s.max_file_store, s.max_mem_store, s.reserved_file_store) for s in facts.servers or ()
    ] == [
        ("C1-1", "C1", 1 << 30, 1 << 28, 5),
        ("C2-1", "C2", 32 << 20, 1 << 28, 5),
    ]


def test_an_extra_server_or_an_unknown_meta_size_drops_the_other_clusters() -> None:
    answers = [
        answer("A1", "C1-1", "C1", ["az:1"]),
        answer("B1", "C2-1", "C2", ["az:2"]),
        answer("X9", "C2-9", "C2", ["gpu"]),
    ]
    peers, notes = verified_peers(answers, IDS, VARZ, meta_size=2)  # three answered, the meta group has two
    assert peers is not None and [p["server_name"] for p in peers] == ["C1-1"] and "meta group has 2" in notes[0]
    peers, _ = verified_peers(answers[:2], IDS, VARZ)  # no /jsz: other clusters cannot be counted
    assert peers is not None and [p["server_name"] for p in peers] == ["C1-1"]


def test_a_cluster_no_gateway_joins_and_a_second_answer_are_refused() -> None:
    answers = [answer("A1", "C1-1", "C1", ["az:1"]), answer("Z1", "Z-1", "ZZ", ["ssd"])]
    peers, notes = verified_peers(answers, IDS, VARZ, meta_size=2)
    assert peers is not None and [p["server_name"] for p in peers] == ["C1-1"] and "left out" in notes[0]
    twice = [
        answer("A1", "C1-1", "C1", ["az:1"]),
        answer("B1", "C2-1", "C2", ["az:2"]),
        answer("B1", "C2-1", "C2", ["gpu"]),
    ]
    peers, notes = verified_peers(twice, IDS, VARZ, meta_size=2)
    assert peers is None and "more than once" in notes[-1]


def test_servers_without_jetstream_in_other_clusters_are_not_counted_nor_written() -> None:
    plain = answer("B2", "C2-2", "C2", ["az:2"])
    plain["data"]["jetstream"] = {}
    answers = [answer("A1", "C1-1", "C1", ["az:1"]), answer("B1", "C2-1", "C2", ["az:2"]), plain]
    peers, notes = verified_peers(answers, IDS, VARZ, meta_size=2)
    assert peers is not None and [p["server_name"] for p in peers] == ["C1-1", "C2-1"] and notes == []
