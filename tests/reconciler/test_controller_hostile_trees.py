"""The controller against hostile trees (issue 22, items 9 and 10): a commit adding 1,500 nested
directories, or a manifest whose name holds a lone surrogate escape, is a rejected revision; the
controller keeps running and keeps healing drift with the last good revision (on main the first
killed it with RecursionError, exit 2, and the second made every round error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.linter.load.test_hostile_trees import _nest, _unnest

from .helpers import Js, NatsServer, manifest
from .test_controller_helpers import STREAM_YAML, Running, wait_for


@pytest.mark.parametrize("hostile", ["deep", "surrogate"])
def test_a_hostile_commit_is_rejected_and_drift_is_still_healed(
    hostile: str, server: NatsServer, js: Js, tmp_path: Path
) -> None:
    root = tmp_path / "m"
    manifest(root, "orders.yaml", STREAM_YAML)
    with Running([str(root)], server.url) as ctl:
        try:
            wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the estate to be created")
            if hostile == "deep":
                (root / "team").mkdir()
                _nest(root / "team", 1500)
            else:
                (root / "bad.json").write_bytes(b'{"name": "ORD\\ud800", "subjects": ["bad.>"]}\n')
            wait_for(lambda: ctl.events("revision_rejected"), what="the revision to be rejected")
            (rejected,) = ctl.events("revision_rejected")
            assert (
                any("JS002" in f for f in rejected["findings"])
                if hostile == "deep"
                else any("bad.json:1:" in f and "JS001" in f for f in rejected["findings"])
            )
            js.ok("$JS.API.CONSUMER.DELETE.ORDERS.shipper")
            wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the consumer to come back")
            assert ctl.code is None and ctl.thread.is_alive()  # still running
        finally:
            if hostile == "deep":
                _unnest(root / "team")
