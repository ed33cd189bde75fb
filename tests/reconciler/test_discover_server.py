"""``jsops discover`` against real nats-servers: the facts it writes make offline lint predict
for that server (issue 13, target discovery)."""

from __future__ import annotations

from pathlib import Path

import pytest
from natsserver import NatsCluster, NatsServer, free_port

from jsops.linter import lint_paths
from jsops.linter.config import load_config
from jsops.reconciler.cli.discover import main
from jsops.reconciler.discover import target_facts

pytestmark = pytest.mark.integration

R3 = """apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec:
  subjects: [orders.>]
  num_replicas: 3
  max_age: 7d
  max_bytes: 1GiB
"""


def test_standalone_with_monitor_writes_release_limits_and_not_clustered(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    http = free_port()
    server = NatsServer(
        extra_config=f"http: 127.0.0.1:{http}\n",
        jetstream_config='limits { max_ack_pending: 500, duplicate_window: "1m" }',
    ).start()
    try:
        monkeypatch.chdir(tmp_path)
        (tmp_path / ".jsops.yaml").write_text("# our team's lint settings\nignore: [JS401]\n")
        (tmp_path / "orders.yaml").write_text(R3)
        assert main(["-s", server.url, "--monitor", f"http://127.0.0.1:{http}", "--write"]) == 0
        text = (tmp_path / ".jsops.yaml").read_text()
        assert text.startswith("# our team's lint settings\nignore: [JS401]\n")  # kept as the team wrote it
        cfg = load_config(str(tmp_path / ".jsops.yaml"), search=False)
        t = cfg.target
        assert t.server_version == "2.15.1" and t.clustered is False and t.max_payload == 1024 * 1024
        assert t.limits.max_ack_pending == 500 and t.limits.duplicate_window == 60 * 10**9
        # offline lint now knows R3 is refused by this standalone server
        result = lint_paths(["orders.yaml"], config=cfg)
        assert [(f.rule, f.server_error_code) for f in result.findings if f.severity.value == "error"] == [
            ("JS315", 10074)
        ]
    finally:
        server.stop()


def test_cluster_size_from_a_three_node_cluster(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    with NatsCluster() as cluster:
        assert main(["-s", cluster.nodes[0].url]) == 0
    out = capsys.readouterr().out
    assert "cluster_size: 3" in out and "clustered: true" in out and "cluster_name: C1" in out
    assert "server_version: 2.15.1" in out


def test_target_facts_pure() -> None:
    t = target_facts({"version": "2.10.26", "max_payload": 8 << 20}, {"limits": {"max_streams": 10}})
    assert (t.server_version, t.clustered, t.cluster_size, t.max_payload) == ("2.10.26", False, None, 8 << 20)
    assert t.account.max_streams == 10
    t = target_facts(
        {"version": "2.12.8", "cluster": "east", "connect_urls": ["a:1", "b:1", "c:1", "d:1", "e:1"]},
        {},
        peers=[
            {"server_name": "n2", "cluster": {"name": "east"}, "tags": ["az:2"]},
            {"server_name": "n1", "cluster": {"name": "east"}, "tags": ["az:1"]},
        ],
    )
    assert (t.clustered, t.cluster_size, t.cluster_name) == (True, 5, "east")
    assert [(s.name, s.tags) for s in t.servers or ()] == [("n1", ("az:1",)), ("n2", ("az:2",))]
    # /jsz's meta group wins over the advertised URLs
    t = target_facts({"cluster": "east", "connect_urls": ["a:1"]}, {}, jsz={"meta_cluster": {"cluster_size": 3}})
    assert t.cluster_size == 3


def test_plan_gate_uses_the_live_servers_facts(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """No target declared: offline lint cannot know; the plan reads the live server and refuses R3
    on a standalone server before any request (10074), naming the release."""
    from .helpers import Js, manifest, run

    server = NatsServer().start()
    try:
        monkeypatch.chdir(tmp_path)
        manifest(tmp_path / "m", "orders.yaml", R3)
        assert [f.rule for f in lint_paths([str(tmp_path / "m")]).findings if f.severity.value == "error"] == []
        rc, out, err = run("plan", str(tmp_path / "m"), "-s", server.url)
        assert rc == 1, (out, err)
        assert "JS315 num_replicas 3 on a standalone server" in err
        assert "(nats-server 2.15.1, standalone) would refuse 1 object(s); nothing was sent" in err
        rc, out, err = run("apply", str(tmp_path / "m"), "-s", server.url, "--yes")
        assert rc == 1
        js = Js(server.url)
        try:
            assert js.streams() == []
        finally:
            js.close()
    finally:
        server.stop()


def test_each_environment_keeps_its_own_target(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """Issue 35 item 7: `discover --write` from a standalone dev server must not make `lint --env prod`
    judge prod's R3 streams by dev's facts. Each environment's target is written and read under its name."""
    from jsops.linter.cli.app import main as jsops_main

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".jsops.yaml").write_text("# team settings\nignore: [JS401]\n")
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "dev.yaml").write_text("replicas: 1\n")
    (tmp_path / "environments" / "prod.yaml").write_text("replicas: 3\n")
    (tmp_path / "orders.yaml.j2").write_text(R3.replace("num_replicas: 3", "num_replicas: {{ replicas }}"))
    (tmp_path / "r3.yaml").write_text(R3.replace("name: ORDERS", "name: AUDIT").replace("orders.>", "audit.>"))
    dev = NatsServer().start()
    try:
        assert main(["-s", dev.url, "--env", "dev", "--write"]) == 0
    finally:
        dev.stop()
    with NatsCluster() as cluster:
        assert main(["-s", cluster.nodes[0].url, "--env", "prod", "--write"]) == 0
    text = (tmp_path / ".jsops.yaml").read_text()
    assert text.startswith("# team settings\nignore: [JS401]\n") and "\ntarget:" not in text
    cfg = load_config(str(tmp_path / ".jsops.yaml"), search=False)
    assert cfg.for_env("dev").target.clustered is False
    assert cfg.for_env("prod").target.clustered is True and cfg.for_env("prod").target.cluster_size == 3
    assert cfg.for_env(None).target == cfg.target  # without --env: the top-level target (none written here)
    capsys.readouterr()
    # prod: R3 streams on a three-node cluster are fine; dev: the standalone server refuses them
    assert jsops_main(["lint", "--no-cache", "--env", "prod", "--format", "json", "."]) == 0, capsys.readouterr().out
    capsys.readouterr()
    assert jsops_main(["lint", "--no-cache", "--env", "dev", "--format", "json", "."]) == 1
    out = capsys.readouterr().out
    assert out.count('"JS315"') == 1 and '"file": "r3.yaml"' in out, out  # the R3 file, judged by dev's facts
