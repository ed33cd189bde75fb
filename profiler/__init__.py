"""jsops profiler: telemetry collection (nats-py) and latency/throughput profiles (PySpark).

The only package that imports ``pyspark``. Not implemented yet (see the profiler issue).
"""

from __future__ import annotations

__all__: list[str] = []
