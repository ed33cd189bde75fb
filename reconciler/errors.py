"""The exceptions every part of the ``reconciler`` package derives from, and the JetStream API
error codes it tells apart.

Every error ``reconciler`` raises derives from :class:`ReconcilerError`; the CLIs and the controller
catch it and print one line (exit code 2 for plan/apply/export), never a traceback.

:class:`TemporaryError` and :class:`PermanentError` say whether trying again later can help: a
connection that failed may come back (the controller retries it with backoff), a plan that cannot
be read or a target that is misconfigured stays wrong until somebody changes it. :attr:`ReconcilerError.temporary`
answers the same for any reconciler error (a JetStream API error is temporary when the server gave
no answer).

This module imports nothing from the rest of the package, so that every part (the client package
included) can derive from it.
"""

from __future__ import annotations

from jsops.linter import ErrCode

__all__ = ["ReconcilerError", "TemporaryError", "PermanentError", "ErrCode"]


class ReconcilerError(Exception):
    """Base of the errors of the reconciler package (targets, connections, the JetStream API, plans)."""

    @property
    def temporary(self) -> bool:
        """Whether the same request may succeed when tried again later."""
        return isinstance(self, TemporaryError)


class TemporaryError(ReconcilerError):
    """Trying again later may succeed (a connection that failed, a server that did not answer)."""


class PermanentError(ReconcilerError):
    """Trying again does not help until something changes (a bad target, an unreadable plan)."""
