"""Placement across a supercluster (issue 39), on real servers of every supported release: three
single-server clusters joined by gateways (tests/supercluster.py THREE_CLUSTERS: C1 tagged az:1 and
ssd with 64 MB of file storage, C2 az:2 with 32 MB, C3 az:3 and ssd with 1 GB). `jsops discover`
(as the app user, through C1) writes every cluster's servers, tags and storage; then each case is
linted offline with that config, planned against the live supercluster (whose lint gate runs the
same rule with the live facts), and sent to the server as a create request: lint and plan predict
the refusal the server answers (10005, JS317: the plan names the rule and the err_code and refuses
the object before any request), and an accepted placement raises nothing (the plan creates it). The server's answers per release are recorded in
docs/disaster-recovery.md (the same on 2.10.26 to 2.15.1)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import nats
import pytest
from natsserver import release_or_skip
from supercluster import THREE_CLUSTERS, Supercluster

from jsops.linter import lint_paths
from jsops.linter.config import load_config
from jsops.reconciler.cli.discover import main as discover_main
from tests.reconciler.helpers import manifest, run

pytestmark = pytest.mark.integration

RELEASES = ["2.10.26", "2.11.11", "2.12.8", "2.14.6", "2.15.1"]
MB = 1 << 20

# (id, spec, the server's answer through C1: 10005 refused, or the cluster it placed the stream in)
CASES: list[tuple[str, dict[str, object], int | str]] = [
    ("tags-not-matched", {"placement": {"cluster": "C1", "tags": ["gpu"]}}, 10005),
    ("unknown-cluster", {"placement": {"cluster": "C9"}}, 10005),
    ("too-big-for-c2", {"placement": {"cluster": "C2"}, "max_bytes": 48 * MB}, 10005),
    ("ssd-in-c1-too-big", {"placement": {"cluster": "C1", "tags": ["ssd"]}, "max_bytes": 100 * MB}, 10005),
    ("r2-in-a-one-server-cluster", {"placement": {"cluster": "C1"}, "num_replicas": 2}, 10005),
    ("r2-nowhere", {"num_replicas": 2}, 10005),
    ("memory-too-big-everywhere", {"storage": "memory", "max_bytes": 300 * MB}, 10005),
    ("too-big-for-every-server", {"max_bytes": 2000 * MB}, 10005),
    ("fits-c2", {"placement": {"cluster": "C2"}, "max_bytes": 20 * MB}, "C2"),
    ("fits-c3", {"placement": {"cluster": "C3"}, "max_bytes": 100 * MB}, "C3"),
    ("ssd-anywhere-big", {"placement": {"tags": ["ssd"]}, "max_bytes": 100 * MB}, "C3"),  # C1 first, too small: C3
    ("tags-of-another-cluster", {"placement": {"tags": ["az:2"]}}, "C2"),
    ("no-placement-too-big-for-home", {"max_bytes": 100 * MB}, "C3"),
    ("no-placement", {}, "C1"),
]


def _doc(i: int, spec: dict[str, object]) -> tuple[str, dict[str, object]]:
    name = f"P{i}"
    return name, {"subjects": [f"p{i}.>"], **spec}


def _yaml(name: str, spec: dict[str, object]) -> str:
    return json.dumps({"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": name}, "spec": spec})


async def _answers(url: str, bodies: list[tuple[str, dict[str, object]]]) -> list[int | str]:
    nc = await nats.connect(url, connect_timeout=5)
    out: list[int | str] = []
    try:
        for name, spec in bodies:
            msg = await nc.request(
                f"$JS.API.STREAM.CREATE.{name}", json.dumps({**spec, "name": name}).encode(), timeout=20
            )
            resp = json.loads(msg.data)
            if "error" in resp:
                out.append(resp["error"]["err_code"])
                continue
            out.append(resp["cluster"]["name"])
            await nc.request(f"$JS.API.STREAM.DELETE.{name}", b"", timeout=20)  # its reservation does not stay
    finally:
        await nc.close()
    return out


@pytest.mark.parametrize("release", RELEASES)
def test_lint_plan_and_server_agree_on_placement(release: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary = release_or_skip(release)
    with Supercluster(THREE_CLUSTERS, binary) as sc:
        url = sc.urls("C1")[0]
        monkeypatch.chdir(tmp_path)
        assert discover_main(["-s", url, "--monitor", sc.monitor_url("C1"), "--write"]) == 0
        config = load_config(str(tmp_path / ".jsops.yaml"), search=False)
        servers = config.target.servers or ()
        assert [(s.name, s.cluster, s.max_file_store) for s in servers] == [
            ("C1-1", "C1", 64 * MB),
            ("C2-1", "C2", 32 * MB),
            ("C3-1", "C3", 1024 * MB),
        ]
        assert config.target.cluster_name == "C1"

        bodies = [_doc(i, spec) for i, (_, spec, _) in enumerate(CASES)]
        answers = asyncio.run(_answers(url, bodies))
        for (case, _, expected), (name, spec), answer in zip(CASES, bodies, answers):
            assert answer == expected, (release, case, answer)
            d = tmp_path / case
            manifest(d, f"{name}.yaml", _yaml(name, spec))
            found = lint_paths([str(d)], config=config).findings
            linted = [f.server_error_code for f in found if f.server_error_code is not None]
            rc, out, err = run("plan", str(d), "--server", url, "--config", str(tmp_path / ".jsops.yaml"))
            if isinstance(answer, int):
                assert linted == [answer] and [f.rule for f in found if f.server_error_code] == ["JS317"], (case, found)
                # the plan's lint gate, with the live server's facts over the discovered ones, refuses it
                # with the server's err_code before any request
                assert (
                    rc == 1
                    and f"{name}.yaml:1:" in err
                    and " JS317 " in err
                    and f"(nats-server err_code {answer})\n" in err
                    and "would refuse 1 object(s); nothing was sent" in err
                ), (case, rc, out, err)
            else:  # accepted: lint raises nothing, the plan creates it
                assert linted == [], (case, found)
                assert rc == 2 and f"+ Stream {name}" in out, (case, rc, out, err)
