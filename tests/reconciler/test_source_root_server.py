"""The manifest path jsops records (``io.jsops.source``) is relative to the manifests' repository root,
whatever the working directory (issue 35 item 12): applied inside the repository, a plan from a parent
workspace, from a subdirectory or from another repository has no changes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .helpers import manifest, run

pytestmark = pytest.mark.integration

ORDERS = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ["orders.>"], max_age: 1h}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: shipper, stream: ORDERS}
spec: {ack_wait: 30s, max_deliver: 5}
"""


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "workspace" / "repo"
    (repo / ".git").mkdir(parents=True)  # a repository root as git_root sees it
    manifest(repo / "manifests", "orders.yaml", ORDERS)
    return repo


def test_source_is_relative_to_the_repository_root_from_any_directory(server, js, tmp_path, monkeypatch):
    repo = _repo(tmp_path)
    monkeypatch.chdir(repo)
    rc, out, err = run("apply", "manifests", "--server", server.url, "--yes")
    assert rc == 0, out + err
    assert js.stream("ORDERS")["config"]["metadata"]["io.jsops.source"] == "manifests/orders.yaml"
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    for cwd, path in (
        (repo.parent, "repo/manifests"),  # a parent workspace (no repository of its own)
        (repo / "manifests", "."),  # a subdirectory of the repository
        (other, str(repo / "manifests")),  # another repository
        (tmp_path, str(repo / "manifests" / "orders.yaml")),  # one file, absolute
    ):
        monkeypatch.chdir(cwd)
        rc, out, err = run("plan", path, "--server", server.url, "--format", "json")
        assert (rc, json.loads(out)["actions"]) == (0, []), (os.getcwd(), path, out, err)


def _stamps(value: object, key: str) -> set[str]:
    """Every value of metadata ``key`` in a plan's JSON."""
    if isinstance(value, dict):
        found = {v for k, v in value.items() if k == key and isinstance(v, str)}
        return found.union(*(_stamps(v, key) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_stamps(v, key) for v in value))
    return set()


def test_a_plan_from_the_parent_stamps_the_repository_paths(server, tmp_path, monkeypatch):
    repo = _repo(tmp_path)
    monkeypatch.chdir(repo.parent)
    rc, out, err = run("plan", "repo/manifests", "--server", server.url, "--format", "json")
    assert rc == 2, out + err
    plan = json.loads(out)
    assert _stamps(plan, "io.jsops.source") == {"manifests/orders.yaml"}
    assert _stamps(plan, "io.jsops.repo") == {"path:" + str(repo).replace(os.sep, "/")}  # not the workspace
