"""jsops profiler: telemetry collection (nats-py) and latency/throughput profiles (PySpark).

``jsops.profiler.collect`` (``jsops collect``) records telemetry (docs/formats.md) from a server,
``jsops.profiler.job`` (``jsops profile``) computes profiles (docs/formats.md) on Spark (the only module that
imports pyspark), ``jsops.profiler.synthetic`` writes synthetic telemetry. See docs/profiler.md.
"""

from __future__ import annotations

__all__: list[str] = []
