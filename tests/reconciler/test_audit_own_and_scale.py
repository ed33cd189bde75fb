"""``jsops audit`` on a real server: jsops's own objects (the controller's lease bucket, the streams of a
migration in progress) are never "unmanaged", and on a 500-stream estate the text output reads in under
200 lines that name every rule with its count."""

from __future__ import annotations

import contextlib
import io
import json
import re
import time
from pathlib import Path

import pytest

from jsops.reconciler.client import Target
from jsops.reconciler.controller.lease import DEFAULT_BUCKET, Lease

from .audit_seed import SECOND_NS, stream
from .helpers import Js, NatsServer, manifest

pytestmark = pytest.mark.integration


def audit(*args: str) -> tuple[int, str]:
    from jsops.reconciler.audit.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["--no-config", *args])
    return rc, out.getvalue()


def test_the_lease_bucket_and_a_migration_in_progress_are_not_unmanaged(
    server: NatsServer, js: Js, tmp_path: Path
) -> None:
    lease = Lease(
        Target(servers=(server.url,)), ttl=30.0, identity="audit-test"
    )  # the controller's own bucket, as it makes it
    lease.start()
    try:
        deadline = time.monotonic() + 60
        while not lease.held() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert lease.held()
    finally:
        lease.stop()
    assert js.stream(f"KV_{DEFAULT_BUCKET}") is not None
    stream(js, "OLD", ["old.>"])  # a rename OLD -> NEW in progress: NEW records it
    record = json.dumps({"from": "OLD", "to": "NEW", "step": "copy"})
    js.ok(
        "$JS.API.STREAM.CREATE.NEW",
        {"name": "NEW", "mirror": {"name": "OLD"}, "metadata": {"io.jsops.migration": record}},
    )
    stream(js, "STRAY", ["stray.>"])
    m = tmp_path / "m"
    manifest(
        m,
        "other.yaml",
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: OTHER}\nspec: {subjects: [other.>], max_age: 1h}\n",
    )
    rc, raw = audit("-s", server.url, "--format", "json", str(m))
    assert rc == 1
    unmanaged = sorted(f["file"] for f in json.loads(raw)["findings"] if f["rule"] == "JS521")
    assert unmanaged == ["nats://STRAY"]


def tally(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in re.finditer(r"^  (JS\d+) [\w-]+: (.+)$", text, re.M):
        out[m.group(1)] = sum(int(n) for n in re.findall(r"(\d+) (?:errors?|warnings?|info)", m.group(2)))
    return out


def test_500_streams_audit_in_under_200_lines(server: NatsServer, js: Js, tmp_path: Path) -> None:
    for i in range(500):  # streams x 4 consumers, each with max_deliver and no dead-letter stream (JS406)
        js.ok(
            f"$JS.API.STREAM.CREATE.S{i:04d}",
            {"name": f"S{i:04d}", "subjects": [f"s{i}.>"], "max_age": 24 * 3600 * SECOND_NS, "max_msgs": 100000},
        )
        for j in range(4):
            cfg = {
                "durable_name": f"c{j}",
                "ack_policy": "explicit",
                "ack_wait": 30 * SECOND_NS,
                "max_deliver": 5,
                "filter_subject": f"s{i}.{j}",
            }
            js.ok(f"$JS.API.CONSUMER.CREATE.S{i:04d}.c{j}", {"stream_name": f"S{i:04d}", "config": cfg})
    m = tmp_path / "m"  # manifests that declare none of them: every one is unmanaged (JS521)
    manifest(
        m,
        "other.yaml",
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: OTHER}\nspec: {subjects: [other.>], max_age: 1h}\n",
    )
    for args in ([], [str(m)]):
        rc, text = audit("-s", server.url, *args)
        _, raw = audit("-s", server.url, "--format", "json", *args)
        counts: dict[str, int] = {}
        for f in json.loads(raw)["findings"]:
            counts[f["rule"]] = counts.get(f["rule"], 0) + 1
        assert counts["JS406"] == 2000
        assert counts.get("JS521", 2500) == 2500
        assert len(text.splitlines()) < 200, text[:2000]
        assert tally(text) == counts
        _, every = audit("-s", server.url, "--show-all", *args)
        assert every.count(" JS406 ") == 2000
