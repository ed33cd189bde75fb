"""``jsops audit``: what is wrong with what is running, and what breaks on another release.

- :mod:`~jsops.reconciler.audit.read`: one paged listing of a target (streams, consumers, account, server);
- :mod:`~jsops.reconciler.audit.static`: the static rules on the live configs (as ``jsops lint`` of an export);
- :mod:`~jsops.reconciler.audit.registry`: every audit rule, declared by ``@register``; ``checks_*``: the live-state
  rules (JS501-JS515, JS540-JS541: natscli's io.nats.monitor.* thresholds) and their thresholds;
- :mod:`~jsops.reconciler.audit.drift`: manifests against the server (JS520-JS522);
- :mod:`~jsops.reconciler.audit.upgrade`: ``--target-version`` readiness (JS530 and the rules' own codes);
- :mod:`~jsops.reconciler.audit.run`: all of it as one lint result; :mod:`~jsops.reconciler.audit.render`: the text summary;
- :mod:`~jsops.reconciler.audit.cli`: the command.

Read-only: nothing here sends a request that changes the server. Findings are data; the output is
made by the linter's reporters.
"""

from __future__ import annotations

# Importing the package declares the built-in audit rules (each module registers its own in the
# registry, which never imports them back).
from . import checks_cluster, checks_consumer, checks_growth, checks_monitor, checks_stream, drift, upgrade  # noqa: F401

__all__: list[str] = []
