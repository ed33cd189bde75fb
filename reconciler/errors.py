"""The one base exception of the ``reconciler`` package.

Every error ``reconciler`` raises derives from :class:`ReconcilerError`; the CLIs and the controller
catch it and print one line (exit code 2 for plan/apply/export), never a traceback.
"""

from __future__ import annotations

__all__ = ["ReconcilerError"]


class ReconcilerError(Exception):
    """Base of the errors of the reconciler package (targets, connections, the JetStream API, plans)."""
