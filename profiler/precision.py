"""How exact the profile's percentiles are: the bounds and defaults that ``jsops profile``'s flags
(:mod:`jsops.profiler.job`) and the Spark computation (:mod:`jsops.profiler.compute`) share.

No pyspark here: the job reads them before it knows whether Spark is installed.
"""

from __future__ import annotations

__all__ = ["MIN_ACCURACY", "DEFAULT_EXACT_LIMIT"]

MIN_ACCURACY = 10_000
"""The smallest ``percentile_approx`` accuracy allowed for large groups (and the default)."""
DEFAULT_EXACT_LIMIT = 50_000_000
"""The largest group whose percentiles are computed exactly, by default."""
