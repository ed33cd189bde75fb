"""``jsops failover --selector`` and ``jsops failback --selector`` on a real two-cluster supercluster
(one server per cluster, nats-server 2.12+): the streams labelled ``dr=pay`` in the manifests are
switched over, each to its standby, in dependency order; a re-run finds them switched and changes
nothing; the failback returns each; an unlabelled stream is left alone (issue 39).

AUDIT sources PAY: the failover re-points it to PAY_W from PAY's last sequence + 1 (every message
once, none skipped) and plan holds that source. The failback re-points it to PAY again, and there
nats-server resumes a source after the last message the stream holds from that origin (its
Nats-Stream-Source header), not at ``opt_start_seq``: the messages AUDIT took from PAY_W are offered
again. Measured on 2.12.8: without Nats-Msg-Id they are stored twice (3 of 3); with it, AUDIT's
duplicate window drops them, which is what this test publishes with."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import nats
import pytest
from natsserver import release_or_skip
from supercluster import ClusterSpec, ServerSpec, Supercluster

from jsops.reconciler.cli.commands import plan_main
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
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: AUDIT}
spec: {sources: [{name: PAY}], placement: {cluster: WEST}}
"""

STREAMS = {
    "PAY": {"subjects": ["pay.>"], "placement": {"cluster": "EAST"}},
    "PAY_W": {"mirror": {"name": "PAY"}, "placement": {"cluster": "WEST"}},
    "LEDGER": {"subjects": ["ledger.>"], "placement": {"cluster": "EAST"}},
    "LEDGER_W": {"mirror": {"name": "LEDGER"}, "placement": {"cluster": "WEST"}},
    "OTHER": {"subjects": ["other.>"], "placement": {"cluster": "EAST"}},
    "OTHER_W": {"mirror": {"name": "OTHER"}, "placement": {"cluster": "WEST"}},
    "AUDIT": {"sources": [{"name": "PAY"}], "placement": {"cluster": "WEST"}},
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


async def _publish(url: str, subject: str, n: int) -> None:
    nc = await nats.connect(url, connect_timeout=5)
    try:
        js = nc.jetstream()
        for i in range(n):
            await js.publish(f"{subject}.{i}", b"y", headers={"Nats-Msg-Id": f"{subject}.{i}"})
    finally:
        await nc.close()


async def _audit_reads(url: str, want: str, count: int) -> list[str]:
    """AUDIT's messages once it holds ``count`` (read from ``want``), as ``subject@origin-seq`` each."""
    nc = await nats.connect(url, connect_timeout=5)
    try:
        for _ in range(600):
            info = json.loads((await nc.request("$JS.API.STREAM.INFO.AUDIT", b"", timeout=20)).data)
            names = [s["name"] for s in info["config"].get("sources") or ()]
            if names == [want] and info["state"]["messages"] >= count:
                break
            await asyncio.sleep(0.1)
        out = []
        for seq in range(1, info["state"]["last_seq"] + 1):
            req = json.dumps({"seq": seq}).encode()
            m = json.loads((await nc.request("$JS.API.STREAM.MSG.GET.AUDIT", req, timeout=20)).data)["message"]
            out.append(m["subject"])
        assert names == [want], names
        return out
    finally:
        await nc.close()


async def _set_sources(url: str, stream: str, sources: list[dict[str, Any]]) -> None:
    nc = await nats.connect(url, connect_timeout=5)
    try:
        info = json.loads((await nc.request(f"$JS.API.STREAM.INFO.{stream}", b"", timeout=20)).data)
        cfg = {**info["config"], "sources": sources}
        resp = json.loads(
            (await nc.request(f"$JS.API.STREAM.UPDATE.{stream}", json.dumps(cfg).encode(), timeout=20)).data
        )
        assert "error" not in resp, resp
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
    binary = release_or_skip(RELEASE)
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

        # AUDIT, which sources PAY, reads PAY_W now: every message once, none skipped
        asyncio.run(_publish(url, "pay.after", 3))
        got = asyncio.run(_audit_reads(url, "PAY_W", 8))
        assert got == [f"pay.{i}" for i in range(5)] + [f"pay.after.{i}" for i in range(3)], got
        # the plan keeps AUDIT's re-pointed source (held), says why, changes nothing
        rc, out = _cli(plan_main, url, str(tmp_path))
        assert "its source PAY failed over to PAY_W" in out, out
        assert "AUDIT" not in out.split("held")[0] or "update" not in out.split("AUDIT")[1][:80], out

        # a run that stopped before re-pointing AUDIT: the group's re-run re-points it
        asyncio.run(_set_sources(url, "AUDIT", [{"name": "PAY"}]))
        rc, out = _cli(failover_main, url, *group, "--yes")
        assert rc == 0 and "PAY: already: sources re-pointed to PAY_W: AUDIT" in out, out
        asyncio.run(_publish(url, "pay.again", 2))
        got = asyncio.run(_audit_reads(url, "PAY_W", 10))
        assert got[8:] == ["pay.again.0", "pay.again.1"], got

        rc, out = _cli(failback_main, url, *group, "--yes")
        assert rc == 0, out
        assert "LEDGER: switched" in out and "PAY: switched" in out, out
        live = asyncio.run(_subjects(url))
        assert live["PAY"] == ["pay.>"] and live["LEDGER"] == ["ledger.>"], live
        asyncio.run(_publish(url, "pay.back", 2))
        got = asyncio.run(_audit_reads(url, "PAY", 12))
        assert got[10:] == ["pay.back.0", "pay.back.1"], got
        rc, out = _cli(failback_main, url, *group, "--plan")
        assert rc == 0 and "PAY: already" in out, out
