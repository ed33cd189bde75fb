"""Pure parts of multi-target runs: contexts from jsops config, routing, plan sets, prune scope, limits."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest

from jsops.linter.config import ConfigError, load_config
from jsops.linter.load import load_paths
from jsops.reconciler.client import Target, TargetError, add_target_arguments, resolve_context, target_from_args
from jsops.reconciler.limits import account_limits, server_limits
from jsops.reconciler.live import LiveState
from jsops.reconciler.plan import (
    Intent,
    Plan,
    PlanError,
    PlanItem,
    PlanOptions,
    PlanSet,
    build_plan,
    desired_from_estate,
    in_scope,
    source_path,
)
from jsops.reconciler.render_json import render_json
from jsops.reconciler.render_text import render_plans
from jsops.reconciler.route import route_estate

from .records import desired_of, live_stream, stream_record

GOLDEN = Path(__file__).parent / "golden"


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("JSOPS_UPDATE_GOLDEN") or os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def _config(tmp_path: Path, text: str):
    p = tmp_path / ".jsops.yaml"
    p.write_text(text)
    return load_config(str(p))


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_target_arguments(p)
    return p.parse_args(list(argv))


def test_config_contexts_resolve_with_secrets_by_reference(tmp_path, monkeypatch):
    (tmp_path / "tok").write_text("T0KEN-FROM-FILE\n")
    cfg = _config(
        tmp_path,
        """
contexts:
  prod:
    server: "nats://a:4222, nats://b:4222"
    user: deployer
    password: {env: JSOPS_TEST_PW}
    creds: secrets/prod.creds
    js-domain: hub
    monitor: http://a:8222
  edge:
    server: ["nats://edge:4222"]
    token: {file: tok}
""",
    )
    monkeypatch.setenv("JSOPS_TEST_PW", "pa55word")
    t = resolve_context("prod", cfg)
    assert t.servers == ("nats://a:4222", "nats://b:4222") and t.context == "prod"
    assert (t.user, t.password, t.js_domain, t.monitor) == ("deployer", "pa55word", "hub", "http://a:8222")
    assert t.creds == os.path.normpath(str(tmp_path / "secrets/prod.creds"))  # relative to the config
    assert "pa55word" not in repr(t) and "pa55word" not in t.display()
    assert resolve_context("edge", cfg).token == "T0KEN-FROM-FILE"
    monkeypatch.delenv("JSOPS_TEST_PW")
    with pytest.raises(TargetError, match="JSOPS_TEST_PW is not set"):
        resolve_context("prod", cfg)


def test_inline_secret_in_config_is_refused_without_echo(tmp_path):
    with pytest.raises(ConfigError) as exc:
        _config(tmp_path, "contexts:\n  prod:\n    password: hunter2\n")
    assert "hunter2" not in str(exc.value) and "contexts.prod.password" in str(exc.value)
    with pytest.raises(ConfigError, match="exactly one"):
        _config(tmp_path, "contexts:\n  prod:\n    token: {env: A, file: b}\n")
    with pytest.raises(ConfigError, match="unknown key"):
        _config(tmp_path, "contexts:\n  prod:\n    sever: nats://x:1\n")


def test_context_precedence_jsops_config_then_natscli(tmp_path, monkeypatch):
    ctx = tmp_path / "xdg" / "nats" / "context"
    ctx.mkdir(parents=True)
    (ctx / "shared.json").write_text(json.dumps({"url": "nats://from-natscli:4222"}))
    (ctx / "onlynats.json").write_text(json.dumps({"url": "nats://only-natscli:4222"}))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    cfg = _config(
        tmp_path, "contexts:\n  shared: {server: 'nats://from-jsops:4222'}\n  default: {server: 'nats://dflt:4222'}\n"
    )
    assert resolve_context("shared", cfg).servers == ("nats://from-jsops:4222",)
    assert resolve_context("onlynats", cfg).servers == ("nats://only-natscli:4222",)
    with pytest.raises(TargetError, match="declares: default, shared"):
        resolve_context("nowhere", cfg)
    # default target: --server beats --context beats the config's default context
    assert target_from_args(_args(), cfg).servers == ("nats://dflt:4222",)
    assert target_from_args(_args("--context", "shared"), cfg).servers == ("nats://from-jsops:4222",)
    assert target_from_args(_args("--context", "shared", "--server", "nats://x:1"), cfg).servers == ("nats://x:1",)
    assert target_from_args(_args()).servers == ("nats://127.0.0.1:4222",)


def _estate(tmp_path: Path):
    d = tmp_path / "m"
    d.mkdir(exist_ok=True)
    (d / "a.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n---\n"
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: W, context: west}\nspec: {subjects: [w]}\n---\n"
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: E, context: east}\nspec: {subjects: [e]}\n---\n"
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: P, context: prod}\nspec: {subjects: [p]}\n"
    )
    return load_paths([str(d)])


def test_routing_groups_contexts_and_merges_same_server(tmp_path):
    estate = _estate(tmp_path)
    targets = {
        "west": Target(("nats://w:4222",), "west"),
        "east": Target(("nats://D:4222/",), "east"),
        "prod": Target(("nats://p:4222",), "prod"),
    }
    routes = route_estate(estate, Target(("nats://d:4222",)), targets.__getitem__)
    # east points at the default server (spelled differently): one target, so neither prunes the other
    assert [(r.name, r.contexts) for r in routes] == [
        ("default", ["default", "east"]),
        ("prod", ["prod"]),
        ("west", ["west"]),
    ]
    # --context prod makes prod the default target: its objects join the context-less ones
    routes = route_estate(estate, targets["prod"], targets.__getitem__)
    assert [r.contexts for r in routes] == [["default", "prod"], ["east"], ["west"]]
    # no target named and every object has a context: the local default server is not visited
    only_named = type(estate)(resources=[r for r in estate.resources if r.context != "default"])
    routes = route_estate(only_named, Target(), targets.__getitem__, explicit=False)
    assert [r.name for r in routes] == ["east", "prod", "west"]
    assert [r.name for r in route_estate(only_named, Target(), targets.__getitem__)] == [
        "default",
        "east",
        "prod",
        "west",
    ]
    assert [r.name for r in route_estate(estate, Target(), targets.__getitem__, explicit=False)][0] == "default"
    names = {d.name for d in desired_from_estate(estate, contexts=["default", "east"])}
    assert names == {"A", "E"}
    assert {d.name for d in desired_from_estate(estate, "west")} == {"A", "W"}  # the older call form
    w = desired_from_estate(estate, contexts=["west"])[0]
    assert w.context == "west"
    plan = build_plan([w], LiveState())
    assert plan.actions[0].config.metadata["io.jsops.context"] == "west"


def test_source_paths_and_scope(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy" / "a").mkdir(parents=True)
    assert source_path("deploy/a/x.yaml") == "deploy/a/x.yaml"
    assert source_path("./deploy/a/../a/x.yaml") == "deploy/a/x.yaml"
    assert source_path(".") == "."
    monkeypatch.chdir(tmp_path / "deploy")
    assert source_path("a") == "deploy/a"  # relative to the repository root, not cwd
    assert source_path("/elsewhere/y.yaml") == "/elsewhere/y.yaml"
    assert in_scope("deploy/a/x.yaml", ["deploy/a"]) and in_scope("deploy/a/x.yaml", ["deploy/a/x.yaml"])
    assert not in_scope("deploy/ab/x.yaml", ["deploy/a"])
    assert in_scope("deploy/b/y.yaml", ["."]) and not in_scope("/elsewhere/y.yaml", ["."])
    assert not in_scope("deploy/b/y.yaml", ["deploy/a", "other"])


def _owned(source: str | None, context: str | None = None) -> dict:
    meta = {"io.jsops.managed-by": "jsops"}
    if source:
        meta["io.jsops.source"] = source
    if context:
        meta["io.jsops.context"] = context
    return {"metadata": meta}


def _owned_stream(source: str | None, context: str | None = None):
    return stream_record({"name": "S", **_owned(source, context)})


def test_prune_scope_by_path_and_context():
    opt = PlanOptions(prune=True, prune_paths=("deploy/a",), prune_contexts=frozenset({"default"}))
    assert opt.prunable(_owned_stream("deploy/a/s.yaml"))
    assert not opt.prunable(_owned_stream("deploy/b/s.yaml"))
    assert not opt.prunable(_owned_stream(None))  # no recorded path: never in a scope
    assert not opt.prunable(_owned_stream("deploy/a/s.yaml", "west"))
    assert not opt.prunable(
        stream_record({"name": "S", "metadata": {"io.jsops.source": "deploy/a/s.yaml"}})
    )  # not owned
    assert PlanOptions(prune=True).prunable(_owned_stream(None))  # unscoped (library default)
    live = LiveState(
        streams={
            n: live_stream({"name": n, **_owned(src)})
            for n, src in (("IN", "deploy/a/s.yaml"), ("OUT", "deploy/b/s.yaml"))
        }
    )
    plan = build_plan([], live, opt)
    assert [(a.action, a.name) for a in plan.actions] == [("delete", "IN")]


def test_stale_manifest_path_is_recorded_again():
    live = LiveState(streams={"S": live_stream({"name": "S", "subjects": ["s"], **_owned("old/s.yaml")})})
    d = desired_of("Stream", "S", None, {"name": "S", "subjects": ["s"]}, "new/s.yaml")
    assert build_plan([d], live, PlanOptions()).actions == ()  # no predicate: the path is not compared
    assert build_plan([d], live, PlanOptions(stale_source=lambda p: False)).actions == ()  # old file still declares it
    plan = build_plan([d], live, PlanOptions(stale_source=lambda p: p == "old/s.yaml"))
    (a,) = plan.actions
    assert a.action == "update" and [(c.path, c.old, c.new, c.cls) for c in a.changes] == [
        ("metadata.io.jsops.source", "old/s.yaml", "new/s.yaml", "in-place")
    ]
    assert a.config.metadata["io.jsops.source"] == "new/s.yaml"
    # an object stamped before contexts were recorded, now declared in context west
    w = desired_of("Stream", "S", None, {"name": "S", "subjects": ["s"]}, "old/s.yaml", "west")
    (a,) = build_plan([w], live, PlanOptions(stale_source=lambda p: False)).actions
    assert [(c.path, c.old, c.new) for c in a.changes] == [("metadata.io.jsops.context", None, "west")]
    assert a.config.metadata["io.jsops.context"] == "west"


def _planset() -> PlanSet:
    p1 = Plan(
        "nats://127.0.0.1:4222",
        "sha256:aaa",
        [
            PlanItem(
                Intent(
                    "create",
                    "Stream",
                    "ORDERS",
                    None,
                    [],
                    None,
                    stream_record({"name": "ORDERS", "subjects": ["orders.>"]}),
                )
            )
        ],
        context="default",
        contexts=("default", "east"),
    )
    p2 = Plan(
        "nats://west:4222",
        "sha256:bbb",
        [PlanItem(Intent("delete", "Stream", "OLD", None, [], "the stream and its 0 stored messages are deleted"))],
        context="west",
        contexts=("west",),
    )
    p3 = Plan("nats://north:4222", "sha256:ccc", [], context="north", contexts=("north",))
    return PlanSet([p1, p2, p3])


def test_plan_set_json_round_trip_and_golden():
    ps = _planset()
    text = render_json(ps)
    _golden("plans_multi.json", text)
    data = json.loads(text)
    assert (data["target"], data["fingerprint"]) == ("nats://127.0.0.1:4222", "sha256:aaa")
    assert [a["context"] for a in data["actions"]] == ["default", "west"]
    assert data["summary"]["create"] == 1 and data["summary"]["delete"] == 1
    back = PlanSet.from_json(data)
    assert [(p.context, p.contexts, p.fingerprint, len(p.actions)) for p in back.plans] == [
        ("default", ("default", "east"), "sha256:aaa", 1),
        ("west", ("west",), "sha256:bbb", 1),
        ("north", ("north",), "sha256:ccc", 0),
    ]
    # a plan saved before targets existed still reads, as one default target
    old = {k: v for k, v in json.loads(render_json(PlanSet([ps.plans[0]]))).items() if k != "targets"}
    for a in old["actions"]:
        del a["context"]
    assert Plan.from_json(old).fingerprint == "sha256:aaa"
    with pytest.raises(PlanError):
        Plan.from_json(data)  # three targets are not one plan
    data["actions"][1]["context"] = "nowhere"
    with pytest.raises(PlanError, match="nowhere"):
        PlanSet.from_json(data)


def test_plan_set_text_golden():
    _golden("plans_multi.txt", render_plans(_planset()))


def test_limits_from_server_answers():
    info = {
        "limits": {
            "max_memory": -1,
            "max_storage": -1,
            "max_streams": -1,
            "max_consumers": -1,
            "max_ack_pending": 50,
            "memory_max_stream_bytes": -1,
            "storage_max_stream_bytes": 1024,
            "max_bytes_required": True,
        }
    }
    a = account_limits(info)
    assert (a.max_ack_pending, a.disk_max_stream_bytes, a.max_bytes_required, a.max_streams) == (50, 1024, True, None)
    tiered = {"limits": {"max_memory": 0, "max_ack_pending": 0}, "tiers": {"R1": {"limits": {"max_ack_pending": 7}}}}
    assert account_limits(tiered).max_ack_pending == 7
    s = server_limits(
        {
            "jetstream": {
                "limits": {"max_ack_pending": 100, "max_duplicate_window": 30_000_000_000, "max_request_batch": 50}
            }
        }
    )
    assert (s.max_ack_pending, s.duplicate_window, s.max_request_batch, s.max_ha_assets) == (
        100,
        30_000_000_000,
        50,
        None,
    )
    assert server_limits({}).max_ack_pending is None
