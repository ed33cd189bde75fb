"""Consumer rules (JS201-JS299): consumer configs nats-server refuses at create time, judged on the
effective config (server defaults applied) and the parent stream's. Group ``consumer``.

Rule modules are named after their rule without the ``consumer-`` prefix (``consumer-x-y`` is
``x_y.py``, class ``ConsumerXY``); :class:`jsops.linter.api.Theme` below gives the groups and codes.
"""

from __future__ import annotations

from jsops.linter.api import Theme

__all__ = ["THEME"]

THEME = Theme(name="consumer", prefix="consumer", groups=frozenset({"consumer"}), codes=((201, 299),))
