"""``jsops failover --selector`` and ``jsops failback --selector`` on a real two-cluster supercluster
(one server per cluster, nats-server 2.12+): the streams labelled ``dr=pay`` in the manifests are
switched over, each to its standby, in dependency order; a re-run finds them switched and changes
nothing; the failback returns each; an unlabelled stream is left alone (issue 39)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import nats
import pytest
from natsserver import release_binary
from supercluster import ClusterSpec, ServerSpec, Supercluster

from jsops.reconciler.cli.failback import main as failback_main
from jsops.reconciler.cli.failover import main as failover_main
from jsops.reconciler.dr_roles import fence_subject

pytestmark = pytest.mark.integration

TWO = (ClusterSpec("EAST", (ServerSpec(),)), ClusterSpec("WEST", (ServerSpec(),)))
RELEASE = "2.12.8"

MANIFESTS = """\
apiVersion: jsops/v1
kind: Stream
metadata: {name: PAY, labels: {dr: pay}}
spec: {subjects: ["pay.>"], placement: {cluster: EAST}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: PAY_W, labels: {dr: pay}}
spec: {mirror: {name: PAY}, placement: {cluster: WEST}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: LEDGER, labels: {dr: pay}}
spec: {subjects: ["ledger.>"], placement: {cluster: EAST}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: LEDGER_W, labels: {dr: pay}}
spec: {mirror: {name: LEDGER}, placement: {cluster: WEST}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: OTHER, labels: {dr: other}}
spec: {subjects: ["other.>"], placement: {cluster: EAST}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: OTHER_W}
spec: {mirror: {name: OTHER}, placement: {cluster: WEST}}
"""

STREAMS = {
    "PAY": {"subjects": ["pay.>"], "placement": {"cluster": "EAST"}},
    "PAY_W": {"mirror": {"name": "PAY"}, "placement": {"cluster": "WEST"}},
    "LEDGER": {"subjects": ["ledger.>"], "placement": {"cluster": "EAST"}},
    "LEDGER_W": {"mirror": {"name": "LEDGER"}, "placement": {"cluster": "WEST"}},
    "OTHER": {"subjects": ["other.>"], "placement": {"cluster": "EAST"}},
    "OTHER_W": {"mirror": {"name": "OTHER"}, "placement": {"cluster": "WEST"}},
}


async def _setup(url: str) -> None:
    nc = await nats.connect(url, connect_timeout=5)
    try:
        for name, cfg in STREAMS.items():
            msg = await nc.request(
                f"$JS.API.STREAM.CREATE.{name}", json.dumps({"name": name, **cfg}).encode(), timeout=20
            )
            assert "error" not in json.loads(msg.data), msg.data
        js = nc.jetstream()
        for i in range(5):
            for subject in ("pay", "ledger", "other"):
                await js.publish(f"{subject}.{i}", b"x")
    finally:
        await nc.close()


async def _subjects(url: str) -> dict[str, list[str]]:
    nc = await nats.connect(url, connect_timeout=5)
    try:
        out = {}
        for name in STREAMS:
            msg = await nc.request(f"$JS.API.STREAM.INFO.{name}", b"", timeout=20)
            out[name] = json.loads(msg.data)["config"].get("subjects") or []
        return out
    finally:
        await nc.close()


def _cli(main: Any, url: str, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["--server", url, *args])
    return rc, out.getvalue()


def test_group_failover_and_failback(tmp_path: Path) -> None:
    binary = release_binary(RELEASE)
    if binary is None:
        pytest.skip(f"nats-server {RELEASE} was not fetched")
    (tmp_path / "streams.yaml").write_text(MANIFESTS)
    group = ["--selector", "dr=pay", "-f", str(tmp_path)]
    with Supercluster(TWO, binary) as sc:
        url = sc.urls("EAST")[0]
        asyncio.run(_setup(url))
        rc, out = _cli(failover_main, url, *group, "--plan")
        assert rc == 0, out
        assert "failover of the streams labelled dr=pay (2):" in out
        assert "LEDGER: planned: LEDGER -> LEDGER_W" in out and "PAY: planned: PAY -> PAY_W" in out
        assert "OTHER" not in out
        assert (asyncio.run(_subjects(url)))["PAY"] == ["pay.>"]  # --plan changes nothing

        rc, out = _cli(failover_main, url, *group, "--yes")
        assert rc == 0, out
        assert "LEDGER: switched" in out and "PAY: switched" in out, out
        live = asyncio.run(_subjects(url))
        assert live["PAY"] == [fence_subject("PAY")] and live["PAY_W"] == ["pay.>"]
        assert live["LEDGER"] == [fence_subject("LEDGER")] and live["LEDGER_W"] == ["ledger.>"]
        assert live["OTHER"] == ["other.>"] and live["OTHER_W"] == []

        rc, out = _cli(failover_main, url, *group, "--yes")  # the re-run: nothing left to do
        assert rc == 0 and "LEDGER: already" in out and "PAY: already" in out, out

        rc, out = _cli(failback_main, url, *group, "--yes")
        assert rc == 0, out
        assert "LEDGER: switched" in out and "PAY: switched" in out, out
        live = asyncio.run(_subjects(url))
        assert live["PAY"] == ["pay.>"] and live["LEDGER"] == ["ledger.>"], live
        rc, out = _cli(failback_main, url, *group, "--plan")
        assert rc == 0 and "PAY: already" in out, out
