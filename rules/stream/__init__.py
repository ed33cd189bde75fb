"""Stream rules (JS101-JS199): stream configs nats-server refuses at create time, each checked the
way the server checks it, with the err_code it answers. Group ``stream``.

Rule modules are named after their rule without the ``stream-`` prefix (``stream-x-y`` is
``x_y.py``, class ``StreamXY``); :class:`jsops.linter.api.Theme` below gives the groups and codes.
"""

from __future__ import annotations

from jsops.linter.api import Theme

__all__ = ["THEME"]

THEME = Theme(name="stream", prefix="stream", groups=frozenset({"stream"}), codes=((101, 199),))
