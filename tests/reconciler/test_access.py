"""Which manifests may name which contexts and Account servers (issue 22 item 6): the config's
``access`` list, enforced by plan/apply when configured and always by the controller."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jsops.reconciler.access import access_refusals, path_matches

from .helpers import Js, NatsServer, manifest, run

TEAM_B_STREAM = """
apiVersion: jsops/v1
kind: Stream
metadata:
  name: STOLEN
  context: team-b
spec:
  subjects: ["stolen.>"]
  storage: memory
"""

OWN_STREAM = """
apiVersion: jsops/v1
kind: Stream
metadata:
  name: {name}
  context: {context}
spec:
  subjects: ["{subject}.>"]
  storage: memory
"""

NACK_ELSEWHERE = """
apiVersion: jetstream.nats.io/v1beta2
kind: Account
metadata: {{name: evil}}
spec:
  name: evil
  servers: ["{url}"]
---
apiVersion: jetstream.nats.io/v1beta2
kind: Stream
metadata: {{name: exfil}}
spec:
  name: EXFIL
  subjects: ["exfil.>"]
  storage: memory
  account: evil
"""


def _events(log: Path, kind: str) -> list[dict[str, Any]]:
    return [e for e in map(json.loads, log.read_text().splitlines()) if e["event"] == kind]


def test_path_matching() -> None:
    assert path_matches("teams/a/orders.yaml", ["teams/a"])
    assert path_matches("teams/a/sub/orders.yaml", ["teams/a/"])
    assert path_matches("teams/a/orders.yaml", ["teams/*/orders.yaml"])
    assert path_matches("teams/a/x/y.yaml", ["teams/**"])
    assert not path_matches("teams/ab/orders.yaml", ["teams/a"])
    assert not path_matches("teams/b/orders.yaml", ["teams/a"])


def test_refusals_name_file_context_and_rule(tmp_path: Path) -> None:
    from jsops.linter import load_paths
    from jsops.linter.config import load_config

    (tmp_path / ".jsops.yaml").write_text(
        "access:\n  - {paths: [teams/a], contexts: [team-a]}\n  - {paths: [teams/b], contexts: [team-b], servers: ['nats://b-1:4222']}\n"
    )
    manifest(tmp_path / "teams" / "a", "stolen.yaml", TEAM_B_STREAM)
    manifest(tmp_path / "teams" / "a", "own.yaml", OWN_STREAM.format(name="A", context="team-a", subject="a"))
    manifest(tmp_path / "teams" / "b", "own.yaml", OWN_STREAM.format(name="B", context="team-b", subject="b"))
    config = load_config(str(tmp_path / ".jsops.yaml"))
    estate = load_paths([str(tmp_path / "teams")])
    refused = access_refusals(estate, config, ["default"])
    assert [(r.context, Path(r.file).name, r.line) for r in refused] == [("team-b", "stolen.yaml", 1)]
    assert "teams/a/stolen.yaml" in refused[0].reason and "allowed here: 'team-a'" in refused[0].reason

    # a NACK Account pointing elsewhere is refused unless its path may name those servers
    manifest(tmp_path / "teams" / "b", "nack.yaml", NACK_ELSEWHERE.format(url="nats://u:secret@evil.example:4222"))
    estate = load_paths([str(tmp_path / "teams")])
    reasons = [r.reason for r in access_refusals(estate, config, ["default"])]
    assert any("NACK Account 'evil' points at nats://evil.example:4222" in r for r in reasons), reasons
    assert not any("secret" in r for r in reasons)
    (tmp_path / "teams" / "b" / "nack.yaml").write_text(
        NACK_ELSEWHERE.format(url="nats://b-1:4222").replace("account: evil", "account: evil").lstrip()
    )
    config = load_config(str(tmp_path / ".jsops.yaml"))
    estate = load_paths([str(tmp_path / "teams" / "b")])
    reasons = [r.reason for r in access_refusals(estate, config, ["default"])]
    assert reasons and all("context 'evil'" in r for r in reasons)  # the server is allowed, the context is not


@pytest.mark.integration
def test_plan_refuses_a_context_the_path_may_not_name(
    server: NatsServer, js: Js, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / ".jsops.yaml").write_text(
        f"contexts:\n  team-a: {{server: '{server.url}'}}\n  team-b: {{server: '{server.url}'}}\n"
        "access:\n  - {paths: [teams/a], contexts: [team-a]}\n  - {paths: [teams/b], contexts: [team-b]}\n"
    )
    manifest(tmp_path / "teams" / "a", "stolen.yaml", TEAM_B_STREAM)
    manifest(tmp_path / "teams" / "a", "own.yaml", OWN_STREAM.format(name="A", context="team-a", subject="a"))
    for command in ("plan", "apply"):
        rc, out, err = run(command, "teams", "--server", server.url, *(["--yes"] if command == "apply" else []))
        assert rc == 1, out + err  # could not run
        assert "teams/a/stolen.yaml:1: names context 'team-b'" in err and "allowed here: 'team-a'" in err, err
        assert "internal error" not in err
    assert js.streams() == []
    (tmp_path / "teams" / "a" / "stolen.yaml").unlink()
    rc, out, err = run("apply", "teams", "--server", server.url, "--yes")
    assert rc == 0, out + err
    assert js.streams() == ["A"]


@pytest.mark.integration
def test_controller_enforces_by_default(
    server: NatsServer, js: Js, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsops.reconciler.controller.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / ".jsops.yaml").write_text(f"contexts:\n  team-b: {{server: '{server.url}'}}\n")
    manifest(tmp_path / "m", "own.yaml", OWN_STREAM.format(name="MINE", context="default", subject="mine"))
    manifest(tmp_path / "m", "stolen.yaml", TEAM_B_STREAM)
    manifest(tmp_path / "m", "nack.yaml", NACK_ELSEWHERE.format(url="nats://127.0.0.1:1"))
    log = tmp_path / "events.jsonl"
    rc = main(["m", "--server", server.url, "--listen", "none", "--once", "--no-lease", "--log-file", str(log)])
    assert rc == 1
    assert js.streams() == ["MINE"]  # the controller's own target is reconciled, nothing else
    errors = _events(log, "error")
    assert sorted((e["type"], e["context"]) for e in errors) == [("access", "evil"), ("access", "team-b")]
    by_context = {e["context"]: e["message"] for e in errors}
    assert "stolen.yaml:1: names context 'team-b'" in by_context["team-b"]
    assert "NACK Account 'evil' points at nats://127.0.0.1:1" in by_context["evil"]
    assert not any("internal" in e["type"] for e in errors)

    # allowed in the config: team-b is reconciled (the Account's servers still are not allowed)
    (tmp_path / ".jsops.yaml").write_text(
        f"contexts:\n  team-b: {{server: '{server.url}'}}\naccess: [{{paths: [m/stolen.yaml], contexts: [team-b]}}]\n"
    )
    (tmp_path / "m" / "nack.yaml").unlink()
    rc = main(["m", "--server", server.url, "--listen", "none", "--once", "--no-lease", "--log-file", str(log)])
    assert rc == 0
    assert js.streams() == ["MINE", "STOLEN"]
