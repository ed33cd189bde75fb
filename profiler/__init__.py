"""jsops profiler: telemetry collection (nats-py) and latency/throughput profiles (PySpark).

``profiler.collect`` (``jsops collect``) records telemetry (docs/formats.md) from a server,
``profiler.job`` (``jsops profile``) computes profiles (docs/formats.md) on Spark (the only module that
imports pyspark), ``profiler.synthetic`` writes synthetic telemetry. See docs/profiler.md.
"""

from __future__ import annotations

__all__: list[str] = []
