"""The plan of buckets, as text (golden): a bucket's stream is shown as the bucket, with the
bucket's field names (``~ history: 5 -> 10``); fields the client sets itself keep their stream name."""

from __future__ import annotations

import os
from pathlib import Path

from jsops.linter.load import Estate, load_text
from jsops.linter.model.buckets import KeyValueConfig, ObjectStoreConfig, kv_stream, object_stream
from jsops.linter.model.config import StreamConfig
from jsops.linter.semantics.effective import effective_stream
from jsops.linter.semantics.effective_types import api_json
from jsops.reconciler.live import LiveState
from jsops.reconciler.plan import PlanOptions, build_plan, desired_from_estate
from jsops.reconciler.render_text import render_text

from .records import live_stream

GOLDEN = Path(__file__).parent / "golden"
MANIFESTS = """apiVersion: jsops/v1
kind: KeyValue
metadata: {name: sessions}
spec: {history: 10, ttl: 1h, max_bytes: 10MiB}
---
apiVersion: jsops/v1
kind: ObjectStore
metadata: {name: files}
spec: {ttl: 2h, max_bytes: 100MiB, storage: memory}
"""


def _live() -> LiveState:
    st = LiveState()
    own = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/buckets.yaml"}
    kv = api_json(
        effective_stream(
            StreamConfig.model_validate(
                kv_stream(KeyValueConfig.model_validate({"history": 5, "ttl": "1h", "max_bytes": "10MiB"}), "sessions")
            )
        )
    )
    kv["metadata"] = dict(own)
    kv["allow_direct"] = False  # drifted by hand
    kv["duplicate_window"] = 300_000_000_000
    old = api_json(effective_stream(StreamConfig.model_validate(object_stream(ObjectStoreConfig(), "old"))))
    old["metadata"] = dict(own)
    st.streams["KV_sessions"] = live_stream(kv, messages=3)
    st.streams["OBJ_old"] = live_stream(old)
    return st


def test_golden_plan_text_of_buckets() -> None:
    estate = Estate()
    load_text(MANIFESTS.encode(), "m/buckets.yaml", estate)
    assert estate.findings == []
    desired = desired_from_estate(estate, root=".")
    plan = build_plan(desired, _live(), PlanOptions(prune=True), target="nats://127.0.0.1:4222")
    text = render_text(plan)
    path = GOLDEN / "plan_buckets.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
    assert "~ history: 5 -> 10  [in-place]" in text and "+ ObjectStore files (stream OBJ_files)" in text
    assert (
        "~ direct: false -> true" in text
        and "~ stream.duplicate_window: 5m -> 2m" in text
        and "- ObjectStore old (stream OBJ_old)" in text
    )
