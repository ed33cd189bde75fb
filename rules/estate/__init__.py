"""Estate-wide rules (JS301-JS310): conflicts between objects, found by replaying what nats-server
sees when the estate is applied in order (streams in declaration order, then consumers): a stream
or consumer the server would refuse is not created, so it does not count against the ones declared
after it. Group ``estate``.

Rule modules are named after their rule without the ``estate-`` prefix (``estate-x-y`` is
``x_y.py``, class ``EstateXY``); :class:`jsops.linter.api.Theme` below gives the groups and codes.
"""

from __future__ import annotations

from jsops.linter.api import Theme

__all__ = ["THEME"]

THEME = Theme(name="estate", prefix="estate", groups=frozenset({"estate"}), codes=((301, 310),))
