"""`jsops collect` against a real nats-server: real ack samples, advisories, snapshots, a restart, SIGTERM."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import nats
import pytest
from natsserver import NatsServer

from jsops.profiler.job import build_profiles

pytestmark = pytest.mark.integration
COLLECT = "import sys; from jsops.profiler.collect import main; sys.exit(main(sys.argv[1:]))"


def kinds(out: Path) -> Counter[str]:
    c: Counter[str] = Counter()
    for p in out.iterdir():
        for line in p.read_text().splitlines():
            try:
                ev = json.loads(line)
            except ValueError:
                continue  # a line being written
            c[ev.get("type") or ("consumer_info" if "delivered" in ev else "stream_info")] += 1
    return c


def wait_for(cond: Any, what: str, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


async def workload(url: str) -> None:
    nc = await nats.connect(url)
    js = nc.jetstream()
    await js.add_stream(name="ORDERS", subjects=["orders.>"])
    await nc.request(
        "$JS.API.CONSUMER.CREATE.ORDERS.worker",
        json.dumps(
            {
                "stream_name": "ORDERS",
                "config": {
                    "durable_name": "worker",
                    "ack_policy": "explicit",
                    "max_deliver": 2,
                    "sample_freq": "100%",
                    "ack_wait": 30_000_000_000,
                },
            }
        ).encode(),
        timeout=5,
    )
    for i in range(20):
        await js.publish("orders.created", f"order {i}".encode())
    sub = await js.pull_subscribe_bind("worker", "ORDERS")
    msgs = await sub.fetch(20, timeout=5)
    for m in msgs:
        if m.metadata.sequence.stream in (3, 7):
            await m.nak()
        else:
            await m.ack_sync()
    again = await sub.fetch(2, timeout=5)
    assert sorted(m.metadata.num_delivered for m in again) == [2, 2]
    for m in again:
        await m.nak()
    try:  # the next pull finds both at max_deliver: the server sends the max_deliver advisories
        await sub.fetch(1, timeout=1)
    except nats.errors.TimeoutError:
        pass
    await nc.flush()
    await nc.close()


def test_collect_real_server_restart_and_sigterm(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "telemetry"
    srv = NatsServer().start()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            COLLECT,
            "--server",
            srv.url,
            str(out),
            "--duration",
            "0",
            "--snapshot-interval",
            "300ms",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        assert "(ready)" in proc.stderr.readline()
        asyncio.run(workload(srv.url))
        wait_for(lambda: kinds(out)["io.nats.jetstream.advisory.v1.max_deliver"] == 2, "max_deliver advisories")
        wait_for(lambda: kinds(out)["consumer_info"] >= 2, "consumer snapshots")
        srv.stop()
        srv.store_dir = ""
        srv.start()
        wait_for(lambda: kinds(out)["io.jsops.collect.v1.gap"] == 1, "the gap record")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
        srv.stop()
    assert "reconnected" in err and "gap of" in err and "stopped:" in err
    assert not list(out.glob("*.part"))  # every file completed and renamed
    k = kinds(out)
    assert k["io.nats.jetstream.metric.v1.consumer_ack"] == 18
    assert k["io.nats.jetstream.advisory.v1.nak"] == 4
    assert k["stream_info"] >= 2

    doc, summary = build_profiles(spark, [str(out)])
    assert summary.bad_lines == 0 and summary.unknown == 0
    worker = doc["consumers"]["ORDERS/worker"]
    assert worker["ack_time_ns"]["samples"] == 18 and worker["ack_time_ns"]["max"] > 0
    assert worker["deliveries"] == {"first_try_ratio": 1.0, "redelivered_ratio": 0.0, "max": 1}
    assert worker["advisories"] == {"max_deliver": 2, "nak": 4, "terminated": 0}
    orders = doc["streams"]["ORDERS"]
    assert orders["bytes"]["stored_msg_size_mean"] > 0 and orders["retention_span_ns"] >= 0


def test_collect_unreachable_server_is_a_clean_error(tmp_path: Path) -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            COLLECT,
            "--server",
            "nats://127.0.0.1:1",
            str(tmp_path / "o"),
            "--connect-timeout",
            "1s",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and "cannot connect" in r.stderr and "Traceback" not in r.stderr
