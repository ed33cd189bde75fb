"""kill -9 of jsops (the JSOPS_FAULT hook exits hard) at each step of a migration; a re-run
resumes from what the server records and converges with nothing lost."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import Js, run
from .migrate_helpers import positions, renamed, seed, snapshot, stored

pytestmark = pytest.mark.integration

JSOPS = str(Path(sys.executable).parent / "jsops")
STEPS = ["after-create", "after-sync", "in-window", "before-promote", "after-promote", "after-consumers", "after-drop"]


def _killed(server, d: Path, point: str) -> None:
    env = {**os.environ, "JSOPS_FAULT": f"migrate-{point}"}
    proc = subprocess.run(
        [JSOPS, "apply", str(d), "--server", server.url, "--yes", "--migrate"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 137, proc.stdout + proc.stderr


def _converges(server, js: Js, d: Path, stream: str, before: dict, pos: dict) -> None:
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
    assert rc == 0, out + err
    assert js.streams() == [stream]
    assert snapshot(js, stream) == before
    assert positions(js, stream) == pos
    rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
    assert rc == 0 and out.startswith("No changes."), out + err


@pytest.mark.parametrize("point", STEPS)
def test_rename_killed_at_each_step_resumes(server, js: Js, tmp_path, point: str) -> None:
    d = tmp_path / "m"
    stored(d)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    seed(js)
    before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
    renamed(d)
    _killed(server, d, point)
    if point != "after-drop":
        # the old stream keeps every message meanwhile; without --migrate nothing is touched
        assert snapshot(js, "ORDERS") == before
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--prune", "--allow-data-loss")
        assert rc == 1 and "in progress on the server; needs --migrate" in out, out + err
        assert snapshot(js, "ORDERS") == before
    _converges(server, js, d, "ORDERS_V2", before, pos)


@pytest.mark.parametrize(
    "point",
    ["after-create", "in-window", "after-drop", "after-create@ORDERS", "in-window@ORDERS", "after-consumers@ORDERS"],
)
def test_storage_change_killed_at_steps_resumes(server, js: Js, tmp_path, point: str) -> None:
    d = tmp_path / "m"
    stored(d)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    seed(js)
    before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
    stored(d, storage="memory")
    _killed(server, d, point)
    _converges(server, js, d, "ORDERS", before, pos)
    assert js.stream("ORDERS")["config"]["storage"] == "memory"
