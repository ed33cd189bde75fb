"""Monitoring rules (JS443-JS445): the ``io.nats.monitor.*`` metadata natscli's checks and audits
read. Groups ``ops`` and ``monitoring`` (see :mod:`jsops.rules.ops` for how ops rules are split).

Rule modules are named after their rule without the ``ops-`` prefix (``ops-x-y`` is
``x_y.py``, class ``OpsXY``); :class:`jsops.linter.api.Theme` below gives the groups and codes.
"""

from __future__ import annotations

from jsops.linter.api import Theme

__all__ = ["THEME"]

THEME = Theme(name="monitoring", prefix="ops", groups=frozenset({"ops", "monitoring"}), codes=((443, 445),))
