"""Independent (numpy, json) computation of the figures the profile job reports."""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np


def micros(ts: str) -> int:
    """RFC 3339 UTC to integer microseconds, truncating extra fractional digits as Spark does."""
    body = ts.rstrip("Z")
    base, _, frac = body.partition(".")
    sec = int(datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC).timestamp())
    return sec * 1_000_000 + int((frac + "000000")[:6])


def read_events(directory: Path) -> list[dict[str, Any]]:
    out = []
    for p in sorted(directory.iterdir()):
        opener = gzip.open if p.name.endswith(".gz") else open
        with opener(p, "rt", encoding="utf-8") as f:
            for line in f:
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                if isinstance(ev, dict):
                    out.append(ev)
    return out


def expected(events: list[dict[str, Any]]) -> dict[str, Any]:
    acks: dict[str, list[int]] = defaultdict(list)
    deliveries: dict[str, list[int]] = defaultdict(list)
    adv: dict[str, dict[str, int]] = defaultdict(lambda: {"max_deliver": 0, "nak": 0, "terminated": 0})
    pubs: list[dict[str, Any]] = []
    csnap: dict[str, list[tuple[int, int]]] = defaultdict(list)
    ssnap: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        t = e.get("type")
        if t == "io.nats.jetstream.metric.v1.consumer_ack":
            key = f"{e['stream']}/{e['consumer']}"
            if "ack_time" in e:
                acks[key].append(e["ack_time"])
            if "deliveries" in e:
                deliveries[key].append(e["deliveries"])
        elif t and t.startswith("io.nats.jetstream.advisory.v1."):
            kind = t.rsplit(".", 1)[1]
            key = f"{e['stream']}/{e['consumer']}"
            counts = adv[key]
            if kind in counts:
                counts[kind] += 1
        elif t == "io.jsops.publish.v1":
            pubs.append(e)
        elif t is None and "delivered" in e:
            csnap[f"{e['stream_name']}/{e['name']}"].append((micros(e["ts"]), e["delivered"]["consumer_seq"]))
        elif t is None and "state" in e:
            ssnap[e["config"]["name"]].append(e)
    consumers: dict[str, Any] = {}
    for key, values in acks.items():
        a = np.array(values, dtype=np.float64)
        consumers.setdefault(key, {})["ack_time_ns"] = {
            "samples": len(values),
            **{n: float(np.percentile(a, q)) for n, q in (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9))},
            "max": int(a.max()),
        }
    for key, values in deliveries.items():
        d = np.array(values)
        consumers.setdefault(key, {})["deliveries"] = {
            "first_try_ratio": float((d == 1).mean()),
            "redelivered_ratio": float((d > 1).mean()),
            "max": int(d.max()),
        }
    for key, counts in adv.items():
        consumers.setdefault(key, {})["advisories"] = dict(counts)
    for key, snaps in csnap.items():
        snaps.sort()
        t = np.array([s[0] for s in snaps], dtype=np.float64)
        v = np.array([s[1] for s in snaps], dtype=np.float64)
        dt, dv = np.diff(t), np.diff(v)
        consumers.setdefault(key, {})["delivery"] = {
            "mean_per_s": dv.sum() / dt.sum() * 1e6,
            "peak_per_s": float((dv / dt).max() * 1e6),
        }
    streams: dict[str, Any] = {}
    if pubs:
        secs_all = [micros(p["ts"]) // 1_000_000 for p in pubs]
        lo, hi = min(secs_all), max(secs_all)
        by_stream: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for p in pubs:
            by_stream[p["stream"]].append(p)
        for name, rows in by_stream.items():
            ok = [r for r in rows if r.get("result") == "ok"]
            counts = np.zeros(hi - lo + 1)
            nbytes = np.zeros(hi - lo + 1)
            minutes: dict[int, int] = defaultdict(int)
            for r in ok:
                us = micros(r["ts"])
                counts[us // 1_000_000 - lo] += 1
                nbytes[us // 1_000_000 - lo] += r["bytes"]
                minutes[us // 60_000_000] += 1
            ids: dict[str, list[int]] = defaultdict(list)
            for r in rows:
                ids[r["msg_id"]].append(micros(r["ts"]))
            horizons = np.array([(max(v) - min(v)) * 1000 for v in ids.values() if len(v) >= 2], dtype=np.float64)
            s = streams.setdefault(name, {})
            s["ingest"] = {
                "messages": len(ok),
                "mean_per_s": counts.mean(),
                "p99_per_s": float(np.percentile(counts, 99)),
                "peak_per_s": int(counts.max()),
                "peak_per_min": max(minutes.values()),
            }
            s["bytes"] = {"mean_per_s": nbytes.mean(), "peak_per_s": int(nbytes.max())}
            s["publish_retry"] = {
                "attempts": len(rows),
                "retried_ids": len(horizons),
                "horizon_p99_ns": float(np.percentile(horizons, 99)),
                "horizon_max_ns": int(horizons.max()),
            }
    for name, snaps in ssnap.items():
        with_msgs = [x for x in snaps if x["state"]["messages"] > 0]
        s = streams.setdefault(name, {})
        size = sum(x["state"]["bytes"] for x in with_msgs) / sum(x["state"]["messages"] for x in with_msgs)
        s.setdefault("bytes", {})["stored_msg_size_mean"] = size
        latest = max(with_msgs, key=lambda x: micros(x["ts"]))
        s["retention_span_ns"] = (micros(latest["state"]["last_ts"]) - micros(latest["state"]["first_ts"])) * 1000
    return {"streams": streams, "consumers": consumers}
