"""Issue 12: ownership names the estate. Two repositories (two estates) share one server: each
one's ``apply manifests --prune`` touches only its own objects, takes over the other's only with
--adopt, and recorded paths are compared normalised."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsops.reconciler.plan import in_scope

from .helpers import manifest, run

pytestmark = pytest.mark.integration


def _repo(root: Path, estate: str | None, stream: str) -> Path:
    (root / ".git").mkdir(parents=True)
    if estate:
        (root / ".jsops.yaml").write_text(f"estate: {estate}\n")
    manifest(
        root / "manifests",
        "s.yaml",
        f"""
        apiVersion: jsops/v1
        kind: Stream
        metadata: {{name: {stream}}}
        spec: {{subjects: ["{stream.lower()}.>"]}}
        ---
        apiVersion: jsops/v1
        kind: Consumer
        metadata: {{name: worker, stream: {stream}}}
        spec: {{max_deliver: 5}}
    """,
    )
    return root


def _in(monkeypatch, repo: Path, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(repo)
    return run(*args)


def test_two_estates_share_a_server(server, js, tmp_path, monkeypatch):
    a = _repo(tmp_path / "team-a", "team-a", "ORDERS")
    b = _repo(tmp_path / "team-b", "team-b", "BILLING")
    url = server.url
    assert _in(monkeypatch, a, "apply", "manifests", "--server", url, "--yes")[0] == 0
    assert _in(monkeypatch, b, "apply", "manifests", "--server", url, "--yes")[0] == 0
    meta = js.stream("BILLING")["config"]["metadata"]
    assert (meta["io.jsops.estate"], meta["io.jsops.source"]) == ("team-b", "manifests/s.yaml")
    assert js.consumer("BILLING", "worker")["config"]["metadata"]["io.jsops.estate"] == "team-b"
    js.publish("billing.x", 3)

    # team A drops its consumer and prunes with every flag: B's stream and consumer are untouched
    (a / "manifests" / "s.yaml").write_text((a / "manifests" / "s.yaml").read_text().split("---")[0])
    rc, out, err = _in(monkeypatch, a, "apply", "manifests", "--server", url, "--yes", "--prune", "--allow-data-loss")
    assert rc == 0, out + err
    assert "- Consumer ORDERS/worker" in out and "BILLING" not in out
    assert js.consumer("ORDERS", "worker") is None
    assert js.stream("BILLING")["state"]["messages"] == 3 and js.consumer("BILLING", "worker") is not None

    # team A declares B's stream: refused without --adopt, taken over with it
    manifest(
        a / "manifests",
        "billing.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: BILLING}
        spec: {subjects: ["billing.>"]}
    """,
    )
    rc, out, _ = _in(monkeypatch, a, "plan", "manifests", "--server", url)
    assert (
        rc == 2
        and "! Stream BILLING  (blocked update: owned by estate 'team-b', not estate 'team-a'; pass --adopt BILLING"
        in out
    )
    assert _in(monkeypatch, a, "apply", "manifests", "--server", url, "--yes")[0] == 1
    assert js.stream("BILLING")["config"]["metadata"]["io.jsops.estate"] == "team-b"
    rc, out, err = _in(
        monkeypatch, a, "apply", "manifests", "--server", url, "--yes", "--verbose", "--adopt", "BILLING"
    )
    assert rc == 0 and "takes the object over from estate 'team-b'" in out, out + err
    assert js.stream("BILLING")["config"]["metadata"]["io.jsops.estate"] == "team-a"
    assert _in(monkeypatch, a, "plan", "manifests", "--server", url)[0] == 0


def test_prune_without_estate_skips_estate_objects_and_paths_are_normalised(server, js, tmp_path, monkeypatch):
    a = _repo(tmp_path / "team-a", "team-a", "ORDERS")
    legacy = _repo(tmp_path / "legacy", None, "LEGACY")
    url = server.url
    assert _in(monkeypatch, a, "apply", "manifests", "--server", url, "--yes")[0] == 0
    # an object of estate team-a recorded at manifests/../other/x.yaml: not under manifests/
    js.ok(
        "$JS.API.STREAM.CREATE.ESCAPE",
        {
            "name": "ESCAPE",
            "subjects": ["escape.>"],
            "metadata": {
                "io.jsops.managed-by": "jsops",
                "io.jsops.source": "manifests/../other/x.yaml",
                "io.jsops.estate": "team-a",
            },
        },
    )
    rc, out, err = _in(monkeypatch, a, "plan", "manifests", "--server", url, "--prune")
    assert rc == 0 and "ESCAPE" not in out, out + err

    # a repository without an estate: its prune leaves team-a's objects alone and says why
    rc, out, err = _in(
        monkeypatch, legacy, "apply", "manifests", "--server", url, "--yes", "--prune", "--allow-data-loss"
    )
    assert rc == 0, out + err
    assert "no estate: in the jsops config" in err
    assert "ORDERS" not in out and js.stream("ORDERS") is not None and js.consumer("ORDERS", "worker") is not None
    assert "io.jsops.estate" not in js.stream("LEGACY")["config"]["metadata"]
    # and it does not take over team-a's stream without --adopt
    manifest(
        legacy / "manifests",
        "orders.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: ORDERS}
        spec: {subjects: ["orders.>"]}
    """,
    )
    rc, out, _ = _in(monkeypatch, legacy, "plan", "manifests", "--server", url)
    assert rc == 2 and "owned by estate 'team-a'" in out


def test_in_scope_normalises():
    assert in_scope("manifests/a.yaml", ["manifests"])
    assert not in_scope("manifests/../x.yaml", ["manifests"])
    assert not in_scope("manifests/../../x.yaml", ["."])
    assert in_scope("manifests/./sub/../a.yaml", ["manifests/"])
    assert in_scope("x.yaml", ["."])


def test_controller_prunes_only_its_own_estate(server, js, tmp_path, monkeypatch):
    """The controller scopes prune to the config's estate as `jsops apply --prune` does: team A's
    controller, with every prune annotation, never deletes team B's objects."""
    from jsops.linter.config import load_config

    from .test_controller_helpers import Running, wait_for

    a = _repo(tmp_path / "team-a", "team-a", "ORDERS")
    b = _repo(tmp_path / "team-b", "team-b", "BILLING")
    url = server.url
    assert _in(monkeypatch, b, "apply", "manifests", "--server", url, "--yes")[0] == 0
    js.publish("billing.x", 2)
    # B's stream as A would prune it: owned by jsops, allow-prune recorded, under A's own path
    cfg = js.stream("BILLING")["config"]
    cfg["metadata"].update({"io.jsops.allow-prune": "true", "io.jsops.allow-data-loss": "true"})
    js.ok("$JS.API.STREAM.UPDATE.BILLING", cfg)
    # the controller's config is its operator's, outside the tree it follows (a config there may not set estate)
    operator = tmp_path / "team-a-controller.yaml"
    (a / ".jsops.yaml").rename(operator)
    monkeypatch.chdir(a)
    with Running(["manifests"], url, config=load_config(str(operator))) as ctl:
        wait_for(lambda: js.stream("ORDERS") is not None, 20, "A's stream")
        ctl.settle()
    assert js.stream("BILLING") is not None and js.stream("BILLING")["state"]["messages"] == 2
    assert js.stream("ORDERS")["config"]["metadata"]["io.jsops.estate"] == "team-a"
