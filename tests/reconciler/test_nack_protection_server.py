"""NACK's preventDelete and preventUpdate honoured by plan, apply and prune on a real nats-server
(issue 13): a NACK user's protected stream is never deleted by `--prune`, never recreated, and a
preventUpdate object is created from its manifest and never changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import manifest, run

pytestmark = pytest.mark.integration

NACK = """\
apiVersion: jetstream.nats.io/v1beta2
kind: Stream
metadata:
  name: {low}
spec:
  name: {name}
  subjects: ["{low}.>"]
  storage: file
  maxAge: {age}
  maxBytes: 10485760
  {flag}: true
"""


def test_prevent_delete_survives_prune_even_with_every_flag(server, js, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    d = tmp_path / "m"
    manifest(d, "orders.yaml", NACK.format(low="orders", name="ORDERS", age="1h", flag="preventDelete"))
    manifest(d, "other.yaml", NACK.format(low="other", name="OTHER", age="1h", flag="preventUpdate"))
    assert run("apply", str(d), "-s", server.url, "--yes")[0] == 0
    assert (js.stream("ORDERS") or {})["config"]["metadata"]["io.jsops.prevent-delete"] == "true"
    js.publish("orders.new", 3)
    (d / "orders.yaml").unlink()
    rc, out, err = run("plan", str(d), "-s", server.url, "--prune")
    assert "preventDelete is set on it" in out, out + err
    rc, out, err = run("apply", str(d), "-s", server.url, "--yes", "--prune", "--allow-data-loss")
    assert js.stream("ORDERS") is not None and js.stream("ORDERS")["state"]["messages"] == 3  # type: ignore[index]
    assert "preventDelete" in out + err


def test_prevent_update_keeps_the_live_config(server, js, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    d = tmp_path / "m"
    manifest(d, "orders.yaml", NACK.format(low="orders", name="ORDERS", age="1h", flag="preventUpdate"))
    assert run("apply", str(d), "-s", server.url, "--yes")[0] == 0
    manifest(d, "orders.yaml", NACK.format(low="orders", name="ORDERS", age="2h", flag="preventUpdate"))
    rc, out, err = run("plan", str(d), "-s", server.url)
    assert "preventUpdate is set" in out, out + err
    run("apply", str(d), "-s", server.url, "--yes")
    assert js.stream("ORDERS")["config"]["max_age"] == 3600 * 10**9  # type: ignore[index]
