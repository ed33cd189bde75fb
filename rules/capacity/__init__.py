"""Capacity and cost rules (JS431-JS442): sizes, limits, memory, replicas and the cluster: streams
that grow without bound, fill before they expire, hold too much in memory, or cannot survive a
node. Groups ``ops`` and ``capacity`` (see :mod:`jsops.rules.ops` for how ops rules are split).

Rule modules are named after their rule without the ``ops-`` prefix (``ops-x-y`` is
``x_y.py``, class ``OpsXY``); :class:`jsops.linter.api.Theme` below gives the groups and codes.
"""

from __future__ import annotations

from jsops.linter.api import Theme

__all__ = ["THEME"]

THEME = Theme(name="capacity", prefix="ops", groups=frozenset({"ops", "capacity"}), codes=((431, 442),))
