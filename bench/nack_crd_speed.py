#!/usr/bin/env python3
"""What checking NACK files against their CRDs (JS030) costs the loader.

Generates NACK files (one Stream and three Consumers each, valid for every NACK release jsops
knows) and loads them in this process, in turn with the CRD check and with it replaced by a no-op
(the baseline, measured in the same run), so the ratio holds on a machine whose speed drifts. Also
prints the cost of reading the facts table once (``linter/load/nack_crds.json``). Figures are
medians of CPU time (process time: less disturbed by other load than wall time); the load average
is printed with them.

    python bench/nack_crd_speed.py [--files 500] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

STREAM = """apiVersion: jetstream.nats.io/v1beta2
kind: Stream
metadata:
  name: orders-{i}
  labels: {{team: shop}}
spec:
  name: ORDERS_{i}
  subjects: ["orders.{i}.>"]
  storage: file
  replicas: 3
  maxAge: 168h
  maxBytes: 1073741824
  placement: {{tags: [ssd]}}
  consumerLimits: {{inactiveThreshold: 1h}}
"""
CONSUMER = """---
apiVersion: jetstream.nats.io/v1beta2
kind: Consumer
metadata:
  name: orders-{i}-c{j}
spec:
  streamName: ORDERS_{i}
  durableName: c{j}
  ackPolicy: explicit
  ackWait: 30s
  maxDeliver: 5
  backoff: [5s, 30s]
  filterSubject: orders.{i}.c{j}
"""


def _tree(root: Path, files: int) -> None:
    for i in range(files):
        (root / f"orders-{i}.yaml").write_text(
            STREAM.format(i=i) + "".join(CONSUMER.format(i=i, j=j) for j in range(3))
        )


def _load(root: Path) -> float:
    from jsops.linter.load import load_paths

    start = time.process_time()
    estate = load_paths([str(root)])
    took = time.process_time() - start
    assert not [f for f in estate.findings if f.severity.value == "error"], estate.findings[:3]
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    os.environ["JSOPS_NO_CACHE"] = "1"
    from jsops.linter.load import nack, nack_releases

    start = time.process_time()
    nack_releases._table.cache_clear()
    nack_releases.nack_release.cache_clear()
    nack_releases.nack_release(None)
    table_ms = (time.process_time() - start) * 1000
    checked = nack.check_nack_document

    def skipped(*_: object) -> tuple[set[tuple[int, int]], bool]:
        return set(), True

    with_check: list[float] = []
    without: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _tree(root, args.files)
        _load(root)  # warm imports and the OS cache
        for _ in range(args.rounds):
            nack.check_nack_document = checked  # type: ignore[assignment]
            with_check.append(_load(root))
            nack.check_nack_document = skipped  # type: ignore[assignment]
            without.append(_load(root))
    nack.check_nack_document = checked  # type: ignore[assignment]
    objects = args.files * 4
    a, b = statistics.median(with_check), statistics.median(without)
    print(
        f"load average {os.getloadavg()[0]:.2f} (a loaded machine stretches every figure; the ratio is measured in the same run)"
    )
    print(f"facts table read once: {table_ms:.1f} ms CPU")
    print(
        f"{args.files} NACK files, {objects} objects: load {b * 1000:.0f} ms CPU without the CRD check, {a * 1000:.0f} ms with it"
    )
    print(f"ratio with/without: {a / b:.3f} ({(a - b) / objects * 1e6:.1f} us per object)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
