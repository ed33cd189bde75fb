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

from enum import IntEnum

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


class ErrCode(IntEnum):
    """The JetStream API ``err_code`` values the reconciler acts on (nats-server's
    ``server/errors.json``). An :class:`~enum.IntEnum`: it compares equal to the plain integers
    the server sends, and metrics and messages show the number."""

    # a cluster electing a leader (the meta group's or a stream's): nothing was done, ask again
    CLUSTER_UNAVAILABLE = 10008
    CLUSTER_NOT_LEADER = 10009
    CONSUMER_NOT_FOUND = 10014
    NO_MESSAGE_FOUND = 10037
    STREAM_REPLICAS_NOT_SUPPORTED = 10074
    STREAM_INVALID_CONFIG = 10052
    STREAM_NAME_IN_USE = 10058
    STREAM_NOT_FOUND = 10059
    STREAM_SUBJECT_OVERLAP = 10065
    STREAM_WRONG_LAST_SEQUENCE = 10071
    STREAM_MOVE_AND_SCALE = 10123
    STREAM_MOVE_IN_PROGRESS = 10124
    # a move refused while the replica change before it is still in progress (nats-server 2.12)
    STREAM_SCALE_IN_PROGRESS = 10226
