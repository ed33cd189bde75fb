"""Demo traffic for the example estate: retrying publishers and slow, sometimes failing consumers.

Used by ``make demo`` (through :mod:`jsops.reconciler.demo`) so that a real nats-server emits real ack samples
and advisories for ``jsops collect``. It behaves like the shop's services would:

* publishers send every event with a ``Nats-Msg-Id``; a small share of publishes "lose" their ack
  (the client gives up waiting) and are sent again after a pause with the same id, which the server
  answers as a duplicate. Every attempt is logged as a contract §3 ``io.jsops.publish.v1`` line;
* consumers process at the speed of the service they stand for: fraud-check calls a slow risk API
  (lognormal, p99 near its 5 s ack_wait, some calls hang past it), label-printer refuses (NAKs) about
  one label in five, the others are quick.

    python -m jsops.reconciler._traffic --server URL --duration 60 --publish-log FILE [--seed N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from .client import RequestTimeout, aconnect

PUBLISH_TYPE = "io.jsops.publish.v1"


@dataclass(frozen=True)
class _Publisher:
    stream: str
    subject: str  # "{id}" is replaced by the entity id
    rate_per_s: float
    size: int
    lost_ack: float  # share of first attempts whose ack the client "misses"
    retry_pause_s: tuple[float, float]


@dataclass(frozen=True)
class _Worker:
    stream: str
    consumer: str
    concurrency: int
    median_s: float
    sigma: float
    nak: float = 0.0  # share of deliveries refused with a NAK
    hang: float = 0.0  # share of deliveries never acked (the server redelivers after ack_wait)


PUBLISHERS = (
    _Publisher("ORDERS", "orders.created", 5.0, 900, 0.04, (1.0, 12.0)),
    _Publisher("ORDERS", "orders.paid", 3.0, 700, 0.03, (1.0, 12.0)),
    _Publisher("ORDERS", "orders.completed", 2.0, 600, 0.02, (1.0, 8.0)),
    _Publisher("PAYMENTS", "payments.authorize.{id}", 3.0, 400, 0.03, (0.5, 5.0)),
    _Publisher("PAYMENTS", "payments.refund.{id}", 0.3, 400, 0.0, (0.5, 5.0)),
    _Publisher("SHIPPING", "shipping.label.requested", 2.0, 1500, 0.02, (1.0, 6.0)),
    _Publisher("SHIPPING", "shipping.dispatched.{id}", 1.5, 300, 0.0, (1.0, 6.0)),
    _Publisher("INVENTORY", "inventory.stock.{id}", 4.0, 200, 0.0, (0.5, 3.0)),
    _Publisher("NOTIFICATIONS", "notify.email", 2.0, 2500, 0.02, (0.5, 4.0)),
)

WORKERS = (
    # The risk API: median 1.3 s, p99 about 4.5 s, and 2% of calls hang until the server gives up on them.
    _Worker("ORDERS", "fraud-check", 30, 1.3, 0.55, hang=0.02),
    _Worker("ORDERS", "order-projection", 4, 0.03, 0.6),
    _Worker("PAYMENTS", "payment-gateway", 6, 0.25, 0.5),
    _Worker("PAYMENTS", "refunds", 1, 0.4, 0.3),
    _Worker("SHIPPING", "label-printer", 4, 0.4, 0.5, nak=0.2),
    _Worker("SHIPPING", "carrier-tracker", 2, 0.05, 0.4),
    _Worker("INVENTORY", "stock-cache", 2, 0.01, 0.5),
    _Worker("NOTIFICATIONS", "email-sender", 3, 0.15, 0.5),
    _Worker("DLQ", "dlq-triage", 1, 0.05, 0.3),
)


def _ts() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class _Log:
    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.lines = 0

    def attempt(self, p: _Publisher, subject: str, msg_id: str, attempt: int, result: str) -> None:
        rec = {
            "type": PUBLISH_TYPE,
            "ts": _ts(),
            "stream": p.stream,
            "subject": subject,
            "msg_id": msg_id,
            "attempt": attempt,
            "bytes": p.size,
            "result": result,
        }
        self.out.write(json.dumps(rec, separators=(",", ":")) + "\n")
        self.lines += 1


async def _publish_loop(
    js: Any, p: _Publisher, log: _Log, rng: random.Random, stop: asyncio.Event, retries: set[asyncio.Task[None]]
) -> None:
    n = 0
    payload = b"x" * p.size
    while not stop.is_set():
        n += 1
        entity = f"{p.stream.lower()}{n:06d}"
        subject = p.subject.replace("{id}", entity)
        msg_id = f"{entity}-{p.subject.split('.')[1]}"
        t = asyncio.create_task(_send(js, p, subject, msg_id, payload, log, rng, stop))
        retries.add(t)
        t.add_done_callback(retries.discard)
        await asyncio.sleep(rng.expovariate(p.rate_per_s))


async def _send(
    js: Any,
    p: _Publisher,
    subject: str,
    msg_id: str,
    payload: bytes,
    log: _Log,
    rng: random.Random,
    stop: asyncio.Event,
) -> None:
    attempt = 1
    while True:
        try:
            ack = await js.publish(subject, payload, timeout=2.0, headers={"Nats-Msg-Id": msg_id})
            lost = attempt == 1 and rng.random() < p.lost_ack
            if lost:
                # the ack was "lost on the way back": the client thinks it timed out and retries
                log.attempt(p, subject, msg_id, attempt, "timeout")
            else:
                log.attempt(p, subject, msg_id, attempt, "duplicate" if ack.duplicate else "ok")
                return
        except (TimeoutError, RequestTimeout):
            log.attempt(p, subject, msg_id, attempt, "timeout")
        except Exception:  # a publisher logs and retries whatever went wrong
            log.attempt(p, subject, msg_id, attempt, "error")
        if stop.is_set() or attempt >= 4:
            return
        attempt += 1
        await asyncio.sleep(rng.uniform(*p.retry_pause_s))


async def _work_loop(js: Any, w: _Worker, rng: random.Random, stop: asyncio.Event, counts: dict[str, int]) -> None:
    try:
        sub = await js.pull_subscribe_bind(durable=w.consumer, stream=w.stream)
    except Exception as exc:
        print(f"traffic: cannot bind {w.stream}/{w.consumer}: {exc}", file=sys.stderr)
        return
    mu = math.log(w.median_s)
    while not stop.is_set():
        try:
            msgs = await sub.fetch(1, timeout=1.0)
        except (TimeoutError, RequestTimeout):
            continue
        except Exception:  # reconnecting or shutting down
            await asyncio.sleep(0.2)
            continue
        for msg in msgs:
            r = rng.random()
            if r < w.hang:
                counts["hung"] += 1
                continue  # never acked: the server redelivers after ack_wait
            await asyncio.sleep(rng.lognormvariate(mu, w.sigma))
            try:
                if r < w.hang + w.nak:
                    await msg.nak()
                    counts["nak"] += 1
                else:
                    await msg.ack()
                    counts["ack"] += 1
            except Exception:
                pass


async def _cart_loop(js: Any, rng: random.Random, stop: asyncio.Event, counts: dict[str, int]) -> None:
    """The storefront keeps shopping carts in the estate's KeyValue bucket ``carts`` (if applied)."""
    try:
        kv = await js.key_value("carts")
    except Exception:  # another estate: no carts bucket, no cart traffic
        return
    while not stop.is_set():
        try:
            await kv.put(f"cart.c{rng.randrange(200)}", json.dumps({"items": rng.randrange(1, 6)}).encode())
            counts["cart_puts"] += 1
        except Exception:  # reconnects are expected during the demo
            pass
        await asyncio.sleep(rng.uniform(0.05, 0.3))


async def run(server: str, duration_s: float, publish_log: Path, seed: int = 7) -> dict[str, int]:
    rng = random.Random(seed)

    async def _quiet(exc: Exception) -> None:  # reconnects are expected; nats-py would print each one
        return None

    nc = await aconnect(servers=server, name="jsops-demo-traffic", max_reconnect_attempts=-1, error_cb=_quiet)
    js = nc.jetstream()
    stop = asyncio.Event()
    counts = {"ack": 0, "nak": 0, "hung": 0, "cart_puts": 0}
    inflight: set[asyncio.Task[None]] = set()
    publish_log.parent.mkdir(parents=True, exist_ok=True)
    with publish_log.open("w") as out:
        log = _Log(out)
        tasks = [
            asyncio.create_task(_publish_loop(js, p, log, random.Random(rng.random()), stop, inflight))
            for p in PUBLISHERS
        ]
        for w in WORKERS:
            for _ in range(w.concurrency):
                tasks.append(asyncio.create_task(_work_loop(js, w, random.Random(rng.random()), stop, counts)))
        tasks.append(asyncio.create_task(_cart_loop(js, random.Random(rng.random()), stop, counts)))
        t0 = time.monotonic()
        while time.monotonic() - t0 < duration_s:
            await asyncio.sleep(min(10.0, duration_s - (time.monotonic() - t0)))
            done = time.monotonic() - t0
            print(
                f"  traffic {done:4.0f}s/{duration_s:.0f}s: {log.lines} publish attempts logged, "
                f"{counts['ack']} acks, {counts['nak']} naks, {counts['hung']} left to time out, "
                f"{counts['cart_puts']} carts written",
                flush=True,
            )
        stop.set()
        await asyncio.wait(tasks, timeout=5.0)
        for t in [*tasks, *inflight]:
            t.cancel()
        await asyncio.gather(*tasks, *inflight, return_exceptions=True)
        counts["publish_attempts"] = log.lines
    try:
        await nc.close()
    except Exception:
        pass
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jsops.reconciler._traffic", description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True)
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of traffic")
    ap.add_argument("--publish-log", type=Path, required=True, help="publisher attempt log (JSON lines)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    counts = asyncio.run(run(args.server, args.duration, args.publish_log, args.seed))
    print("  traffic done: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
