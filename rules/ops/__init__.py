"""Operational rules (JS401-JS430, JS446-JS499): configs nats-server accepts that misbehave in
production: acknowledgement and redelivery, deduplication against publish retries, dead letters,
workqueues, durations, full buckets. Group ``ops``.

Which ops rules live here, in ``capacity`` or in ``monitoring``: a rule about sizes, limits,
memory, replicas or the cluster is a capacity rule (``rules/capacity/``, group ``capacity``); a
rule about the ``io.nats.monitor.*`` metadata monitoring tools read is a monitoring rule
(``rules/monitoring/``, group ``monitoring``); every other operational rule is here. All three are
in group ``ops``, so ``select: [ops]`` selects all of them. A rule reading measured profiles
(``--profiles``) lives with the setting it judges (JS401 judges ``ack_wait``: here).

Rule modules are named after their rule without the ``ops-`` prefix (``ops-x-y`` is
``x_y.py``, class ``OpsXY``); :class:`jsops.linter.api.Theme` below gives the groups and codes.
"""

from __future__ import annotations

from jsops.linter.api import Theme

__all__ = ["THEME"]

THEME = Theme(name="ops", prefix="ops", groups=frozenset({"ops"}), codes=((401, 430), (446, 499)))
