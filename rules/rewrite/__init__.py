"""Silent-rewrite rules (JS321-JS330): configs nats-server accepts but stores differently from what
the manifest says, so the next plan shows drift. Group ``rewrite``.

Rule modules are named after their rule without the ``rewrite-`` prefix (``rewrite-x-y`` is
``x_y.py``, class ``RewriteXY``); :class:`jsops.linter.api.Theme` below gives the groups and codes.
"""

from __future__ import annotations

from jsops.linter.api import Theme

__all__ = ["THEME"]

THEME = Theme(name="rewrite", prefix="rewrite", groups=frozenset({"rewrite"}), codes=((321, 330),))
