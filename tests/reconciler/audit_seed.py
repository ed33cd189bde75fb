"""Seeding a real server for the audit tests: unhealthy and healthy objects, made as an operator would."""

from __future__ import annotations

import json
import time

from .helpers import Js

HOUR_NS = 3600 * 1_000_000_000
SECOND_NS = 1_000_000_000


def stream(js: Js, name: str, subjects: list[str], **cfg: object) -> None:
    js.ok(
        f"$JS.API.STREAM.CREATE.{name}",
        {"name": name, "subjects": subjects, "max_age": HOUR_NS, "storage": "file", **cfg},
    )


def consumer(js: Js, stream_name: str, name: str, **cfg: object) -> None:
    body = {
        "stream_name": stream_name,
        "config": {"durable_name": name, "ack_policy": "explicit", "max_deliver": 5, **cfg},
    }
    js.ok(f"$JS.API.CONSUMER.CREATE.{stream_name}.{name}", body)


def fetch_no_ack(js: Js, stream_name: str, name: str, count: int) -> int:
    """Pull ``count`` messages and acknowledge none; returns how many came."""

    async def go() -> int:
        inbox = js.nc.new_inbox()
        sub = await js.nc.subscribe(inbox)
        await js.nc.publish(
            f"$JS.API.CONSUMER.MSG.NEXT.{stream_name}.{name}",
            json.dumps({"batch": count, "expires": 2 * SECOND_NS}).encode(),
            reply=inbox,
        )
        got = 0
        while got < count:
            try:
                msg = await sub.next_msg(timeout=5)
            except Exception:
                break
            if msg.reply:
                got += 1
        await sub.unsubscribe()
        return got

    return int(js.loop.run_until_complete(go()))


def seed_unhealthy_and_healthy(js: Js) -> None:
    """FULL at 96% of max_msgs; WORK/stalled at max_ack_pending; WORK/retrying redelivering; CALM/reader healthy."""
    stream(js, "FULL", ["full.>"], max_msgs=100, duplicate_window=60 * SECOND_NS)
    js.publish("full.a", 96)
    stream(js, "WORK", ["work.>"], duplicate_window=60 * SECOND_NS)
    consumer(js, "WORK", "stalled", max_ack_pending=5, ack_wait=600 * SECOND_NS)
    consumer(js, "WORK", "retrying", ack_wait=SECOND_NS, max_deliver=20)
    js.publish("work.x", 10)
    assert fetch_no_ack(js, "WORK", "stalled", 5) == 5
    assert fetch_no_ack(js, "WORK", "retrying", 10) == 10
    time.sleep(1.5)  # ack_wait passes: the 10 are due again
    assert fetch_no_ack(js, "WORK", "retrying", 10) == 10
    stream(js, "CALM", ["calm.>"], max_msgs=10_000, duplicate_window=60 * SECOND_NS)
    consumer(js, "CALM", "reader", ack_wait=30 * SECOND_NS)
    js.publish("calm.x", 3)
    js.fetch_ack("CALM", "reader", 3)
