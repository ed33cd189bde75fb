"""The controller and ``jsops apply`` agree (prune marks), and the controller reconciles every target
the manifests route to, against real nats-servers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jsops.reconciler.plan import desired_from_estate, prune_marks

from .helpers import Js, NatsServer, manifest, run
from .test_controller_helpers import STREAM_YAML, Running, sample, wait_for

pytestmark = pytest.mark.integration

MARKED = """
apiVersion: jsops/v1
kind: Stream
metadata:
  name: SCRATCH
  annotations:
    jsops.io/allow-prune: "true"
    jsops.io/allow-data-loss: "true"
spec:
  subjects: ["scratch.>"]
  storage: memory
---
apiVersion: jsops/v1
kind: Consumer
metadata:
  name: tmp
  stream: SCRATCH
  annotations:
    jsops.io/allow-prune: "true"
spec:
  ack_wait: 30s
"""


def _events(log: Path, kind: str) -> list[dict[str, Any]]:
    return [e for e in map(json.loads, log.read_text().splitlines()) if e["event"] == kind]


def test_prune_marks_follow_the_annotations() -> None:
    assert prune_marks({"jsops.io/allow-prune": "true", "jsops.io/allow-data-loss": "yes"}) == {
        "io.jsops.allow-prune": "true",
        "io.jsops.allow-data-loss": "true",
    }
    assert prune_marks({"jsops.io/allow-prune": "True"}) == {"io.jsops.allow-prune": "true"}
    assert prune_marks({"jsops.io/allow-data-loss": "true"}) == {}  # data loss alone prunes nothing
    assert prune_marks({"jsops.io/allow-prune": "false"}) == {}
    assert prune_marks(None) == {}


def test_desired_configs_carry_the_marks(tmp_path: Path) -> None:
    from jsops.linter import load_paths

    manifest(tmp_path, "m.yaml", STREAM_YAML + "---\n" + MARKED)
    desired = {d.name: d.config for d in desired_from_estate(load_paths([str(tmp_path)]))}
    assert desired["SCRATCH"].metadata == {"io.jsops.allow-prune": "true", "io.jsops.allow-data-loss": "true"}
    assert desired["tmp"].metadata == {"io.jsops.allow-prune": "true"}
    assert not desired["ORDERS"].metadata and not desired["shipper"].metadata


def test_apply_by_hand_and_controller_agree_on_prune_marks(
    server: NatsServer, js: Js, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsops.reconciler.controller.cli import main

    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    manifest(tmp_path / "m", "scratch.yaml", MARKED)
    log = tmp_path / "events.jsonl"
    once = ["m", "--server", server.url, "--listen", "none", "--once", "--no-lease", "--log-file", str(log)]

    # by hand first: apply records the marks, the controller then has nothing to do
    rc, out, err = run("apply", "m", "--server", server.url, "--yes")
    assert rc == 0, out + err
    assert js.stream("SCRATCH")["config"]["metadata"]["io.jsops.allow-data-loss"] == "true"  # type: ignore[index]
    assert js.consumer("SCRATCH", "tmp")["config"]["metadata"]["io.jsops.allow-prune"] == "true"  # type: ignore[index]
    assert main(once) == 0
    assert _events(log, "action") == [] and _events(log, "drift") == [] and _events(log, "change") == []
    assert _events(log, "round")[-1]["drift"] == 0
    assert run("plan", "m", "--server", server.url)[0] == 0

    # the controller first: plan and apply by hand then have nothing to do
    for name in ("ORDERS", "SCRATCH"):
        js.ok(f"$JS.API.STREAM.DELETE.{name}")
    assert main(once) == 0
    assert js.stream("SCRATCH")["config"]["metadata"]["io.jsops.allow-prune"] == "true"  # type: ignore[index]
    rc, out, err = run("plan", "m", "--server", server.url)
    assert (rc, out) == (0, f"No changes. {server.url} matches the manifests.\n"), out + err
    rc, out, _ = run("apply", "m", "--server", server.url, "--yes")
    assert rc == 0 and out.startswith("No changes.")

    # withdrawing the permission is a change both see, and both remove the mark
    (tmp_path / "m" / "scratch.yaml").write_text(MARKED.replace('    jsops.io/allow-data-loss: "true"\n', ""))
    rc, out, _ = run("plan", "m", "--server", server.url)
    assert rc == 2 and "~ Stream SCRATCH" in out and "metadata" in out
    assert main(once) == 0
    assert "io.jsops.allow-data-loss" not in js.stream("SCRATCH")["config"]["metadata"]  # type: ignore[index]
    assert run("plan", "m", "--server", server.url)[0] == 0


def _west(name: str, subject: str, prune: bool = False) -> str:
    ann = '  annotations: {"jsops.io/allow-prune": "true"}\n' if prune else ""
    return f"apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: {name}\n  context: west\n{ann}spec:\n  subjects: ['{subject}.>']\n  max_age: 1h\n"


def test_controller_reconciles_every_routed_target(
    two_servers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsops.linter.config import load_config

    a, b = two_servers
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".jsops.yaml").write_text(
        f"contexts:\n  default: {{server: '{a.url}'}}\n  west: {{server: '{b.url}'}}\naccess: [{{paths: [m], contexts: [west]}}]\n"
    )
    config = load_config(str(tmp_path / ".jsops.yaml"))
    m = tmp_path / "m"
    manifest(m, "orders.yaml", STREAM_YAML)
    manifest(
        m,
        "west.yaml",
        _west("INVOICES", "invoices") + "---\napiVersion: jsops/v1\nkind: Consumer\n"
        "metadata: {name: biller, stream: INVOICES, context: west}\nspec: {ack_wait: 30s}\n",
    )
    manifest(m, "old.yaml", _west("OLDWEST", "oldwest", prune=True))
    ja, jb = Js(a.url), Js(b.url)
    try:
        with Running(["m"], a.url, config=config, lease=True, lease_ttl=5.0, identity="ctl-1") as ctl:
            wait_for(
                lambda: ja.consumer("ORDERS", "shipper") and jb.consumer("INVOICES", "biller") and jb.stream("OLDWEST"),
                30,
                "both targets to be created",
            )
            ctl.settle(30)
            assert ja.streams() == ["KV_JSOPS_CONTROLLER", "ORDERS"]  # one lease bucket on each target
            assert jb.streams() == ["INVOICES", "KV_JSOPS_CONTROLLER", "OLDWEST"]
            assert jb.stream("INVOICES")["config"]["metadata"]["io.jsops.context"] == "west"  # type: ignore[index]
            m1 = ctl.metrics()
            for ctx in ("default", "west"):
                assert sample(m1, "jsops_controller_leader", context=ctx) == 1
                assert sample(m1, "jsops_controller_drift_objects", context=ctx) == 0
            assert (
                sample(
                    m1,
                    "jsops_controller_object_sync_state",
                    context="west",
                    kind="Consumer",
                    stream="INVOICES",
                    name="biller",
                    state="synced",
                )
                == 1
            )
            assert (
                sample(
                    m1,
                    "jsops_controller_object_sync_state",
                    context="default",
                    kind="Stream",
                    stream="",
                    name="ORDERS",
                    state="synced",
                )
                == 1
            )
            assert sample(m1, "jsops_controller_actions_total", context="west", action="create", status="done") == 3
            assert sample(m1, "jsops_controller_actions_total", context="default", action="create", status="done") == 2
            assert {e["context"] for e in ctl.events("leader_acquired")} == {"default", "west"}
            # jsops plan routes the same way and agrees with the controller on both targets
            rc, out, err = run("plan", "m")
            assert rc == 0, out + err

            # drift on the second target is healed; pruning there needs the mark, and stays there
            jb.ok("$JS.API.CONSUMER.DELETE.INVOICES.biller")
            wait_for(lambda: jb.consumer("INVOICES", "biller"), what="the west consumer to come back")
            (m / "old.yaml").unlink()
            wait_for(lambda: jb.stream("OLDWEST") is None, what="OLDWEST to be pruned on west")
            assert ja.streams() == ["KV_JSOPS_CONTROLLER", "ORDERS"]

            # one target down: its errors are counted under its context, the other is still healed
            b.kill()
            wait_for(
                lambda: (
                    (
                        sample(
                            ctl.metrics(),
                            "jsops_controller_errors_total",
                            context="west",
                            type="connection",
                            err_code="",
                        )
                        or 0
                    )
                    >= 2
                ),
                what="connection errors on west",
            )
            ja.ok("$JS.API.CONSUMER.DELETE.ORDERS.shipper")
            wait_for(
                lambda: ja.consumer("ORDERS", "shipper"), what="the default target to be healed while west is down"
            )
            assert ctl.controller.last_result == "error"
            assert (
                sample(
                    ctl.metrics(), "jsops_controller_errors_total", context="default", type="connection", err_code=""
                )
                or 0
            ) == 0
        rounds = ctl.events("round")
        assert rounds[-1]["result"] == "error"
        assert [(t["context"], "error" in t) for t in rounds[-1]["targets"]] == [("default", False), ("west", True)]
    finally:
        ja.close()
        jb.close()


def test_an_unresolvable_context_fails_the_round_not_the_other_targets(
    server: NatsServer, js: Js, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsops.reconciler.controller.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no natscli contexts
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    manifest(tmp_path / "m", "far.yaml", _west("FAR", "far").replace("context: west", "context: nowhere"))
    (tmp_path / ".jsops.yaml").write_text("access: [{paths: ['**'], contexts: ['*']}]\n")
    log = tmp_path / "events.jsonl"
    assert main(["m", "--server", server.url, "--listen", "none", "--once", "--no-lease", "--log-file", str(log)]) == 1
    assert js.streams() == ["ORDERS"]  # the default target is reconciled; FAR goes nowhere
    errors = _events(log, "error")
    assert [(e["type"], e["context"]) for e in errors] == [("connection", "nowhere")]
    assert "unknown context" in errors[0]["message"]


def test_failed_actions_carry_the_jetstream_err_code(server: NatsServer, js: Js, tmp_path: Path) -> None:
    from jsops.linter import load_paths
    from jsops.reconciler.apply import execute_plan
    from jsops.reconciler.client import JsClient, Target
    from jsops.reconciler.live import read_live
    from jsops.reconciler.plan import PlanOptions, build_plan

    js.ok("$JS.API.STREAM.CREATE.FOREIGN", {"name": "FOREIGN", "subjects": ["orders.>"], "storage": "memory"})
    manifest(tmp_path, "orders.yaml", STREAM_YAML)
    with JsClient(Target(servers=(server.url,))) as client:
        live = read_live(client)
        plan = build_plan(desired_from_estate(load_paths([str(tmp_path)]), root=str(tmp_path)), live)
        outcome = execute_plan(client, plan, live, PlanOptions())
    got = {r.action.label: (r.status, r.err_code) for r in outcome.results}
    assert got == {"Stream ORDERS": ("failed", 10065), "Consumer ORDERS/shipper": ("skipped", None)}
