"""Target rules (JS311-JS320): configs the declared target (server release, server and account
limits, cluster) refuses though another server would accept them. Group ``target``.

Rule modules are named after their rule without the ``target-`` prefix (``target-x-y`` is
``x_y.py``, class ``TargetXY``); :class:`jsops.linter.api.Theme` below gives the groups and codes.
"""

from __future__ import annotations

from jsops.linter.api import Theme

__all__ = ["THEME"]

THEME = Theme(name="target", prefix="target", groups=frozenset({"target"}), codes=((311, 320),))
