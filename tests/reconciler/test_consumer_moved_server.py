"""A consumer renamed (``jsops.io/renamed-from: OLD``, terraform's ``moved``) is shown and applied as one move
(issue 35 item 12): the new name is created at the old one's position, then the old one is deleted, without
``--prune`` and without a blocked delete; without the annotation, the plan says the create looks like a rename
(real nats-server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import manifest, run

pytestmark = pytest.mark.integration

ESTATE = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ["orders.>"], max_age: 1h}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: NAME, stream: ORDERS ANNOTATION}
spec: {ack_policy: explicit, filter_subject: orders.eu}
"""


def _write(d: Path, name: str, annotation: str = "") -> None:
    manifest(d, "orders.yaml", ESTATE.replace("NAME", name).replace(" ANNOTATION", annotation))


def test_a_renamed_consumer_moves_with_its_position(server, js, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "m", "shipper")
    assert run("apply", "m", "--server", server.url, "--yes")[0] == 0
    js.publish("orders.eu", 5)
    assert js.fetch_ack("ORDERS", "shipper", 3) == [1, 2, 3]
    _write(tmp_path / "m", "dispatcher")
    rc, out, _ = run("plan", "m", "--server", server.url)
    assert rc == 2
    assert (
        "      # looks like a rename of ORDERS/shipper (it left the manifests; the same config but its name): to keep "
        "its position, annotate this consumer's manifest with jsops.io/renamed-from: shipper\n"
    ) in out
    _write(tmp_path / "m", "dispatcher", ", annotations: {jsops.io/renamed-from: shipper}")
    rc, out, err = run("plan", "m", "--server", server.url)
    assert rc == 2, out + err
    assert (
        '  + Consumer ORDERS/dispatcher\n      + ack_policy: "explicit"\n      + filter_subject: "orders.eu"\n'
    ) in out
    assert (
        "      # renamed from ORDERS/shipper: created at its position (from stream sequence 4, after its ack floor when "
        "the plan was made; messages acknowledged to shipper after that are delivered again); then ORDERS/shipper is "
        "deleted\n\n"
        "  - Consumer ORDERS/shipper\n"
        "      # renamed to ORDERS/dispatcher: the consumer is deleted once dispatcher holds its position\n"
    ) in out, out
    assert "Plan: 1 to create, 0 to update, 0 to recreate, 1 to delete, 0 blocked." in out
    rc, out, err = run("apply", "m", "--server", server.url, "--yes")  # no --prune: the annotation asks for it
    assert rc == 0, out + err
    assert js.consumer("ORDERS", "shipper") is None
    assert js.consumer("ORDERS", "dispatcher")["num_pending"] == 2
    assert js.fetch_ack("ORDERS", "dispatcher", 2) == [4, 5]  # from where shipper was
    rc, out, _ = run("plan", "m", "--server", server.url)
    assert (rc, out.startswith("No changes.")) == (0, True), out


def test_a_rename_whose_create_is_refused_keeps_the_old_consumer(server, js, tmp_path, monkeypatch):
    """The server refuses the new name (the stream takes one consumer, and the old one still counts when the
    create is sent): the old consumer is not deleted, so its position is not lost."""
    monkeypatch.chdir(tmp_path)
    limited = ESTATE.replace("max_age: 1h}", "max_age: 1h, max_consumers: 1}")
    manifest(tmp_path / "m", "orders.yaml", limited.replace("NAME", "shipper").replace(" ANNOTATION", ""))
    assert run("apply", "m", "--server", server.url, "--yes")[0] == 0
    js.publish("orders.eu", 5)
    assert js.fetch_ack("ORDERS", "shipper", 3) == [1, 2, 3]
    renamed = limited.replace("NAME", "dispatcher").replace(
        " ANNOTATION", ", annotations: {jsops.io/renamed-from: shipper}"
    )
    manifest(tmp_path / "m", "orders.yaml", renamed)
    rc, out, err = run("apply", "m", "--server", server.url, "--yes")
    assert rc != 0, out + err
    assert js.consumer("ORDERS", "dispatcher") is None
    kept = js.consumer("ORDERS", "shipper")
    assert kept is not None and kept["ack_floor"]["stream_seq"] == 3, kept
    assert "ORDERS/dispatcher, which takes over its position, was not created (kept as it is)" in out + err, out + err
