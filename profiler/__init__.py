"""jsops profiler: telemetry collection (nats-py) and latency/throughput profiles (PySpark).

``profiler.collect`` (``jsops collect``) records contract §3 telemetry from a server,
``profiler.job`` (``jsops profile``) computes contract §4 profiles on Spark (the only module that
imports pyspark), ``profiler.synthetic`` writes synthetic telemetry. See docs/profiler.md.
"""

from __future__ import annotations

__all__: list[str] = []
