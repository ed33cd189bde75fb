"""What the record of API changes costs (issue 37, docs/drift.md), against a real nats-server.

An estate of N streams x M consumers is applied; then the no-op ``jsops plan`` is timed without a
record and with one (the documented record stream, ``max_msgs`` set to ``--bound``), alternating,
best of ``--runs`` each, in the same run; target: with / without at most 1.2. Then ``--requests``
JetStream API requests are made and the record's message count is checked against its bound.

    .venv/bin/python bench/drift_cost.py [--streams 1000] [--consumers 5] [--runs 3] [--bound 5000] [--requests 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bench.reconcile_scale import write_estate  # noqa: E402
from jsops.reconciler.cli.commands import apply_main, plan_main  # noqa: E402
from tests.natsserver import NatsServer  # noqa: E402

RECORD = (ROOT / "docs" / "examples" / "drift" / "api-audit-record.yaml").read_text()


def quiet(fn: Callable[[list[str]], int], argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return fn(argv)


def timed_plan(paths: list[str], url: str) -> float:
    start = time.perf_counter()
    rc = quiet(plan_main, [*paths, "-s", url, "--detailed-exitcode"])
    took = time.perf_counter() - start
    assert rc == 0, f"the plan is not a no-op (exit {rc})"
    return took


def requests(url: str, n: int) -> None:
    import nats

    async def go() -> None:
        nc = await nats.connect(url)
        for i in range(0, n, 200):
            await asyncio.gather(
                *(nc.request("$JS.API.STREAM.INFO.S0000", b"", timeout=10) for _ in range(min(200, n - i)))
            )
        await nc.close()

    asyncio.run(go())


def record_state(url: str) -> dict[str, int]:
    import nats

    async def go() -> dict[str, int]:
        nc = await nats.connect(url)
        msg = await nc.request("$JS.API.STREAM.INFO.JSOPS_API_AUDIT", b"", timeout=10)
        await nc.close()
        state: dict[str, int] = json.loads(msg.data)["state"]
        return state

    return asyncio.run(go())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--consumers", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bound", type=int, default=5000)
    ap.add_argument("--requests", type=int, default=10000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        estate, record = Path(tmp) / "estate", Path(tmp) / "record"
        estate.mkdir()
        record.mkdir()
        write_estate(estate, args.streams, args.consumers)
        (record / "record.yaml").write_text(RECORD.replace("max_msgs: 200000", f"max_msgs: {args.bound}"))
        server = NatsServer(jetstream_config="max_file: 8GB").start()
        try:
            t = time.perf_counter()
            assert quiet(apply_main, [str(estate), "-s", server.url, "--yes"]) == 0
            print(f"apply {args.streams} x {args.consumers}: {time.perf_counter() - t:.1f}s")
            without, with_record = [], []
            for _ in range(args.runs):
                without.append(timed_plan([str(estate)], server.url))
                assert quiet(apply_main, [str(estate), str(record), "-s", server.url, "--yes"]) == 0
                with_record.append(timed_plan([str(estate), str(record)], server.url))
                import nats  # drop the record again, so that the next "without" plan has none

                async def drop() -> None:
                    nc = await nats.connect(server.url)
                    await nc.request("$JS.API.STREAM.DELETE.JSOPS_API_AUDIT", b"", timeout=10)
                    await nc.close()

                asyncio.run(drop())
            best_without, best_with = min(without), min(with_record)
            print(f"no-op plan without a record: best {best_without:.2f}s of {[round(x, 2) for x in without]}")
            print(f"no-op plan with the record:  best {best_with:.2f}s of {[round(x, 2) for x in with_record]}")
            print(f"ratio with / without: {best_with / best_without:.3f} (target <= 1.2)")
            assert quiet(apply_main, [str(estate), str(record), "-s", server.url, "--yes"]) == 0
            requests(server.url, args.requests)
            time.sleep(1)
            state = record_state(server.url)
            print(
                f"after {args.requests} API requests: the record holds {state['messages']} messages (bound {args.bound}), {state['bytes']} bytes, last_seq {state['last_seq']}"
            )
            assert state["messages"] <= args.bound
        finally:
            server.stop()


if __name__ == "__main__":
    main()
