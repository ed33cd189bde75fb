"""Issue 21 item 11: prune is safe by default. Two repositories without ``estate:`` share a
server; ``apply --prune`` in one never deletes what the other applied (each object records the
repository it was applied from), and still prunes its own (real nats-server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import manifest, run

pytestmark = pytest.mark.integration

DOCS = """
apiVersion: jsops/v1
kind: Stream
metadata: {{name: {name}}}
spec: {{subjects: ["{subj}.>"]}}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {{name: worker, stream: {name}}}
spec: {{ack_wait: 30s}}
"""


def _repo(root: Path, name: str, origin: str | None = None) -> Path:
    manifest(root / "manifests", f"{name.lower()}.yaml", DOCS.format(name=name, subj=name.lower()))
    if origin is not None:  # a clone: .git with an origin remote (read as text, no git needed)
        (root / ".git").mkdir()
        (root / ".git" / "config").write_text(f'[core]\n\tbare = false\n[remote "origin"]\n\turl = {origin}\n')
    return root


def _in(monkeypatch, root: Path, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(root)
    return run(*args)


def test_two_repositories_without_estate_do_not_prune_each_other(server, js, tmp_path, monkeypatch):
    a = _repo(tmp_path / "a", "ALPHA", "git@github.com:shop/alpha.git")
    b = _repo(tmp_path / "b", "BETA")
    url = server.url
    assert _in(monkeypatch, a, "apply", "manifests", "--server", url, "--yes")[0] == 0
    js.publish("alpha.x", 5)
    assert js.fetch_ack("ALPHA", "worker", 2) == [1, 2]

    rc, out, err = _in(monkeypatch, b, "apply", "manifests", "--server", url, "--yes", "--prune", "--allow-data-loss")
    assert rc == 0, out + err
    assert "ALPHA" not in out, out
    assert js.streams() == ["ALPHA", "BETA"]
    assert js.stream("ALPHA")["state"]["messages"] == 5
    assert js.consumer("ALPHA", "worker")["ack_floor"]["stream_seq"] == 2
    assert js.stream("ALPHA")["config"]["metadata"]["io.jsops.repo"] == "git:github.com/shop/alpha"

    # another clone of repository a (https URL, another directory) is the same repository: it prunes
    clone = _repo(tmp_path / "clone", "GAMMA", "https://github.com/shop/alpha")
    rc, out, err = _in(monkeypatch, clone, "plan", "manifests", "--server", url, "--prune", "--allow-data-loss")
    assert rc == 2 and "- Stream ALPHA" in out and "BETA" not in out, out + err
