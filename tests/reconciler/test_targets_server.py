"""Several targets in one run, contexts from jsops config, scoped prune and server limits, against
real nats-servers."""

from __future__ import annotations

import json
import shutil

import pytest
from natsserver import free_port

from .helpers import Js, NatsServer, manifest, run

pytestmark = pytest.mark.integration


def stream_doc(name: str, context: str | None = None, subjects: str | None = None) -> str:
    ctx = f", context: {context}" if context else ""
    return f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: {name}{ctx}}}\nspec: {{subjects: ['{subjects or name.lower()}.>'], max_age: 1h}}\n"


def consumer_doc(name: str, stream: str, context: str | None = None) -> str:
    ctx = f", context: {context}" if context else ""
    return f"apiVersion: jsops/v1\nkind: Consumer\nmetadata: {{name: {name}, stream: {stream}{ctx}}}\nspec: {{ack_wait: 30s}}\n"


def test_metadata_context_routes_objects_to_two_servers(two_servers, tmp_path, monkeypatch):
    a, b = two_servers
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".jsops.yaml").write_text(
        f"contexts:\n  default: {{server: '{a.url}'}}\n  west: {{server: '{b.url}'}}\n"
    )
    m = tmp_path / "m"
    manifest(m, "orders.yaml", stream_doc("ORDERS") + "---\n" + consumer_doc("shipper", "ORDERS"))
    manifest(m, "west.yaml", stream_doc("INVOICES", "west") + "---\n" + consumer_doc("biller", "INVOICES", "west"))
    ja, jb = Js(a.url), Js(b.url)
    jb.ok("$JS.API.STREAM.CREATE.HAND", {"name": "HAND", "subjects": ["hand.>"]})

    rc, out, err = run("plan", "m", "--format", "json", "--out", "plan.json")
    assert rc == 2, err
    data = json.loads(out)
    assert [(t["context"], t["target"]) for t in data["targets"]] == [("default", a.url), ("west", b.url)]
    assert data["targets"][0]["fingerprint"] != data["targets"][1]["fingerprint"]  # one per target
    assert [(x["context"], x["object"]["name"]) for x in data["actions"]] == [
        ("default", "ORDERS"),
        ("default", "shipper"),
        ("west", "INVOICES"),
        ("west", "biller"),
    ]

    rc, out, err = run("plan", "m")
    assert (
        rc == 2
        and f"on {a.url}:" in out
        and f"on {b.url} (context west):" in out
        and "Total on 2 targets: 4 to create" in out
    )

    rc, out, err = run("apply", "m", "--plan", "plan.json", "--yes")
    assert rc == 0, out + err
    try:
        assert ja.streams() == ["ORDERS"] and jb.streams() == ["HAND", "INVOICES"]
        assert jb.consumer("INVOICES", "biller") is not None
        meta = jb.stream("INVOICES")["config"]["metadata"]
        assert meta["io.jsops.context"] == "west" and meta["io.jsops.source"] == "m/west.yaml"
        assert "io.jsops.context" not in ja.stream("ORDERS")["config"]["metadata"]
    finally:
        ja.close()
        jb.close()
    rc, out, _ = run("plan", "m")
    assert (
        rc == 0
        and out
        == f"No changes. {a.url} matches the manifests.\nNo changes. {b.url} (context west) matches the manifests.\n"
    )
    # the saved plan is spent: both live states changed
    rc, _, err = run("apply", "m", "--plan", "plan.json", "--yes")
    assert rc == 1 and "changed since the plan was made" in err


def test_context_secrets_come_from_env_and_are_never_printed(tmp_path, monkeypatch):
    server = NatsServer(extra_config="authorization { user: deployer, password: 'pw-Sekr1t-xyz' }").start()
    try:
        monkeypatch.chdir(tmp_path)
        (tmp_path / ".jsops.yaml").write_text(
            f"contexts:\n  prod:\n    server: '{server.url}'\n    user: deployer\n    password: {{env: JSOPS_TEST_PROD_PW}}\n"
        )
        manifest(tmp_path / "m", "s.yaml", stream_doc("SECURE", "prod"))
        # natscli has a context of the same name pointing elsewhere: the jsops config wins
        nats_ctx = tmp_path / "xdg" / "nats" / "context"
        nats_ctx.mkdir(parents=True)
        (nats_ctx / "prod.json").write_text(json.dumps({"url": "nats://127.0.0.1:1"}))
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))

        rc, out, err = run("plan", "m")
        assert rc == 1 and "JSOPS_TEST_PROD_PW is not set" in err
        monkeypatch.setenv("JSOPS_TEST_PROD_PW", "pw-Sekr1t-xyz")
        rc, out, err = run("apply", "m", "--yes")
        assert rc == 0, out + err
        rc, out, err = run("plan", "m", "--format", "json")
        assert rc == 0, err
        monkeypatch.setenv("JSOPS_TEST_PROD_PW", "wrong-Pw-abc")
        rc, out2, err2 = run("plan", "m")
        assert rc == 1 and "cannot connect" in err2
        for text in (out, err, out2, err2):
            assert "pw-Sekr1t-xyz" not in text and "wrong-Pw-abc" not in text
    finally:
        server.stop()


def test_prune_is_scoped_to_the_paths_given(server, js, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    est = tmp_path / "estate"
    manifest(
        est / "a", "a1.yaml", stream_doc("A1") + "---\n" + consumer_doc("c1", "A1") + "---\n" + consumer_doc("c2", "A1")
    )
    manifest(est / "a", "a2.yaml", stream_doc("A2"))
    manifest(est / "b", "b1.yaml", stream_doc("B1"))
    assert run("apply", "estate", "--server", server.url, "--yes")[0] == 0
    # someone else's stream under the same name space of paths: never pruned
    js.ok("$JS.API.STREAM.CREATE.HAND", {"name": "HAND", "subjects": ["hand.>"]})

    # A1's consumer c2 and stream B1 leave the manifests; only estate/a is given
    manifest(est / "a", "a1.yaml", stream_doc("A1") + "---\n" + consumer_doc("c1", "A1"))
    (est / "b" / "b1.yaml").unlink()
    manifest(est / "b", "b2.yaml", stream_doc("B2"))
    rc, out, err = run("plan", "estate/a", "--server", server.url, "--prune")
    assert rc == 2, err
    assert "- Consumer A1/c2" in out and "B1" not in out and "HAND" not in out
    rc, out, err = run("apply", "estate/a", "--server", server.url, "--prune", "--yes")
    assert rc == 0, out + err
    assert js.consumer("A1", "c2") is None and js.streams() == ["A1", "A2", "B1", "HAND"]

    # a file moves from a/ to c/: applying c/ records the new path, so pruning a/ keeps the stream
    shutil.move(est / "a" / "a2.yaml", est / "c.yaml")
    rc, out, err = run(
        "apply", "estate/c.yaml", "--server", server.url, "--yes", "--verbose"
    )  # --yes alone sums the plan up
    assert rc == 0 and "metadata.io.jsops.source" in out, out + err
    assert js.stream("A2")["config"]["metadata"]["io.jsops.source"] == "estate/c.yaml"
    rc, out, err = run("apply", "estate/a", "--server", server.url, "--prune", "--yes")
    assert rc == 0 and out.startswith("No changes."), out + err
    # the whole estate with --prune: B1 (gone from b/) is deleted now, B2 created, HAND kept
    rc, out, err = run("apply", "estate", "--server", server.url, "--prune", "--yes")
    assert rc == 0, out + err
    assert js.streams() == ["A1", "A2", "B2", "HAND"]


def test_server_and_account_jetstream_limits_feed_effective_configs(tmp_path, monkeypatch):
    http = free_port()
    server = NatsServer(
        jetstream_config="limits { max_ack_pending: 100, duplicate_window: 30s, max_request_batch: 50 }",
        extra_config=f"http: 127.0.0.1:{http}\naccounts {{ APP {{ jetstream {{ max_ack_pending: 40 }}, users: [{{user: app, password: app}}] }} }}",
    ).start()
    try:
        monkeypatch.chdir(tmp_path)
        manifest(tmp_path / "m", "lim.yaml", stream_doc("LIM") + "---\n" + consumer_doc("c1", "LIM"))
        url = server.url.replace("nats://", "nats://app:app@")
        monitor = f"http://127.0.0.1:{http}"
        # declared in the jsops config instead: the same
        rc, out, err = run("apply", "m", "--server", url, "--monitor", monitor, "--yes")
        assert rc == 0, out + err
        js = Js(url)
        try:
            stored = js.stream("LIM")["config"]
            consumer = js.consumer("LIM", "c1")["config"]
        finally:
            js.close()
        assert stored["duplicate_window"] == 30_000_000_000  # the server limit caps the default
        assert consumer["max_ack_pending"] == 40  # the account limit, below the server's 100
        assert consumer["max_batch"] == 50  # the server's max_request_batch
        rc, out, err = run("plan", "m", "--server", url, "--monitor", monitor)
        assert (rc, out) == (0, f"No changes. {server.url} matches the manifests.\n"), out + err
        # without the monitor the account limit is still read ($JS.API.INFO), the server's are not
        rc, out, _ = run("plan", "m", "--server", url)
        assert rc == 2 and "max_ack_pending" not in out and "duplicate_window" in out and "max_batch" in out
        # the server's limits declared in the jsops config instead of read from /varz
        (tmp_path / ".jsops.yaml").write_text("target:\n  limits: {duplicate_window: 30s, max_request_batch: 50}\n")
        rc, out, err = run("plan", "m", "--server", url)
        assert rc == 0, out + err
        rc, _, err = run("plan", "m", "--server", url, "--monitor", "http://127.0.0.1:1")
        assert rc == 1 and "cannot read the server's limits" in err
    finally:
        server.stop()
