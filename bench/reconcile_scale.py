"""Reconciler at scale: 1,000 streams x 5 consumers against a real nats-server.

Prints: cold apply time; no-op plan time (end to end: load, lint, read live state, diff) beside
the live-state read alone and a sweep of one INFO request per object (sequential, and with the
same concurrency jsops uses); and the number of JetStream API requests a no-op plan makes.

    .venv/bin/python bench/reconcile_scale.py [--streams 1000] [--consumers 5]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reconciler.cli import apply_main, plan_main  # noqa: E402
from reconciler.client import JsClient, Target  # noqa: E402
from reconciler.limits import read_limits  # noqa: E402
from reconciler.live import read_live  # noqa: E402
from tests.natsserver import NatsServer  # noqa: E402


def write_estate(d: Path, streams: int, consumers: int) -> None:
    for i in range(streams):
        docs = [f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: S{i:04d}}}\n"
                f"spec: {{subjects: [\"s{i}.>\"], max_age: 24h, duplicate_window: 2m, max_msgs: 100000}}\n"]
        for j in range(consumers):
            docs.append(f"apiVersion: jsops/v1\nkind: Consumer\nmetadata: {{name: c{j}, stream: S{i:04d}}}\n"
                        f"spec: {{ack_wait: 30s, max_deliver: 5, filter_subject: \"s{i}.{j}\"}}\n")
        (d / f"s{i:04d}.yaml").write_text("---\n".join(docs))


def quiet(fn, argv):  # type: ignore[no-untyped-def]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = fn(argv)
    return rc, out.getvalue(), err.getvalue()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--consumers", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    n_obj = args.streams * (1 + args.consumers)
    with tempfile.TemporaryDirectory() as tmp, NatsServer(jetstream_config="max_file: 8GB") as server:
        d = Path(tmp) / "estate"
        d.mkdir()
        write_estate(d, args.streams, args.consumers)
        print(f"estate: {args.streams} streams x {args.consumers} consumers = {n_obj} objects; nats-server {server.url}")

        t = time.perf_counter()
        rc, out, err = quiet(apply_main, [str(d), "--server", server.url, "--yes"])
        cold = time.perf_counter() - t
        assert rc == 0, (out[-2000:], err)
        print(f"cold apply:                    {cold:8.2f} s   ({n_obj / cold:,.0f} objects/s)")

        plans = []
        for _ in range(args.runs):
            t = time.perf_counter()
            rc, out, err = quiet(plan_main, [str(d), "--server", server.url])
            plans.append(time.perf_counter() - t)
            assert rc == 0, (out[-2000:], err)
        print(f"no-op plan (end to end):       {min(plans):8.2f} s   (best of {args.runs}; target <= 3 s)")

        client = JsClient(Target(servers=(server.url,)))
        try:
            reads = []
            for _ in range(args.runs):
                t = time.perf_counter()
                before = client.requests
                live = read_live(client)
                reads.append(time.perf_counter() - t)
                requests = client.requests - before
            assert len(live.streams) == args.streams and len(live.consumers) == n_obj - args.streams
            print(f"  of which live-state read:    {min(reads):8.2f} s   ({requests} API requests: STREAM.LIST and CONSUMER.LIST pages)")
            before = client.requests
            read_limits(client)
            print(f"  and the account's limits:              {client.requests - before} API request ($JS.API.INFO; the server's come from /varz when a monitor URL is given)")

            names = sorted(live.streams)
            keys = sorted(live.consumers)
            t = time.perf_counter()
            before = client.requests
            for n in names:
                client.request(f"STREAM.INFO.{n}")
            for s, c in keys:
                client.request(f"CONSUMER.INFO.{s}.{c}")
            seq = time.perf_counter() - t
            sweep_requests = client.requests - before
            print(f"INFO sweep, sequential:        {seq:8.2f} s   ({sweep_requests} API requests, one per object)")

            async def sweep() -> None:
                calls = [(lambda n=n: client.astream_info(n)) for n in names]
                calls += [(lambda s=s, c=c: client.aconsumer_info(s, c)) for s, c in keys]
                res = await client.gather(calls)
                assert not any(isinstance(r, BaseException) for r in res)

            t = time.perf_counter()
            client.run(sweep())
            conc = time.perf_counter() - t
            print(f"INFO sweep, 64 in flight:      {conc:8.2f} s")
        finally:
            client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
