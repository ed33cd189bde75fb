"""`jsops collect` as users meet it (issue 17): counts per interval with the consumers that send no
ack samples, and a server without JetStream is an error, not an empty collection (real nats-server)."""

from __future__ import annotations

import asyncio
import io
import json
import socket
import subprocess
import time
from pathlib import Path

import nats
import pytest
from natsserver import NatsServer, free_port, server_binary
from procs import spawn

from jsops.profiler.collect import CollectOptions, collect
from jsops.reconciler.client import Target

pytestmark = pytest.mark.integration


async def _consumers(url: str) -> None:
    nc = await nats.connect(url)
    try:
        await nc.request("$JS.API.STREAM.CREATE.S", json.dumps({"name": "S", "subjects": ["s.>"]}).encode(), timeout=5)
        for name, freq in (("sampled", "100%"), ("quiet", "")):
            cfg = {"durable_name": name, "ack_policy": "explicit"}
            if freq:
                cfg["sample_freq"] = freq
            body = {"stream_name": "S", "config": cfg}
            await nc.request(f"$JS.API.CONSUMER.CREATE.S.{name}", json.dumps(body).encode(), timeout=5)
    finally:
        await nc.close()


def test_counts_per_interval_name_consumers_without_sample_freq(tmp_path: Path) -> None:
    server = NatsServer().start()
    try:
        asyncio.run(_consumers(server.url))
        log = io.StringIO()
        opts = CollectOptions(
            Target(servers=(server.url,)), tmp_path, duration_s=1.5, snapshot_interval_s=0.5, progress=True
        )
        rc, stats = asyncio.run(collect(opts, log=log))
    finally:
        server.stop()
    text = log.getvalue()
    assert rc == 0 and stats.consumer_snapshots >= 2
    lines = [line for line in text.splitlines() if "ack samples," in line and "+" in line]
    assert len(lines) >= 2, text
    assert "no ack samples from S/quiet: no sample_freq" in lines[0]
    assert all("S/quiet" not in line for line in lines[1:]), "named once"
    assert "S/sampled" not in text


def test_a_server_without_jetstream_is_an_error(tmp_path: Path) -> None:
    port = free_port()
    proc = spawn(
        [server_binary(), "-a", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        log = io.StringIO()
        rc, stats = asyncio.run(
            collect(CollectOptions(Target(servers=(f"nats://127.0.0.1:{port}",)), tmp_path, duration_s=1), log=log)
        )
    finally:
        proc.kill()
        proc.wait()
    assert rc == 1, log.getvalue()
    assert "JetStream is not enabled" in log.getvalue() and "nothing was collected" in log.getvalue()
    assert stats.stream_snapshots == 0
