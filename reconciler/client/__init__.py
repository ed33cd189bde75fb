"""The one package of jsops that talks to NATS (and the only one importing ``nats``).

- :mod:`~jsops.reconciler.client.target`: where requests go (a server URL with credentials, a natscli
  context, a jsops config context) and the ``--server``/``--context`` flags;
- :mod:`~jsops.reconciler.client.urls`: server URLs, and how jsops makes them safe to print;
- :mod:`~jsops.reconciler.client.jsclient`: :class:`JsClient`, JetStream API requests on one connection;
- :mod:`~jsops.reconciler.client.kv`: a KeyValue bucket with compare-and-set writes (the controller lease);
- :mod:`~jsops.reconciler.client.fence`: the fence a lease holder's writes pass through (:meth:`JsClient.fenced`);
- :mod:`~jsops.reconciler.client.connection`: a plain connection for subscribers and publishers
  (``jsops collect``, the demo); loaded on first use, so that importing this package does not
  import ``nats``.

It depends on nothing else in ``reconciler`` but :mod:`jsops.reconciler.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .answers import ACCOUNT_INFO, MONITOR_SHAPES, answer_problem
from .fence import Fence, LeaseLost
from .jsclient import NO_JETSTREAM, AnswerError, ConnectError, JetStreamDisabled, JsApiError, JsClient
from .kv import KvBucket, WrongRevision
from .target import (
    CLIENT_NAME,
    ConnectOptions,
    Target,
    TargetError,
    add_target_arguments,
    context_dir,
    describe_target,
    load_context,
    resolve_context,
    selected_context,
    split_servers,
    target_from_args,
    target_from_config,
)
from .urls import URLError, argv_scrub, argv_secrets, parse_servers, parse_url, redact_servers, redact_url, scrub

if TYPE_CHECKING:
    from .connection import Connection, Message, NatsError, NoResponders, RequestTimeout, aconnect

__all__ = [
    "CLIENT_NAME",
    "NO_JETSTREAM",
    "ACCOUNT_INFO",
    "MONITOR_SHAPES",
    "AnswerError",
    "answer_problem",
    "ConnectError",
    "ConnectOptions",
    "Connection",
    "Fence",
    "JetStreamDisabled",
    "JsApiError",
    "JsClient",
    "KvBucket",
    "LeaseLost",
    "Message",
    "NatsError",
    "NoResponders",
    "RequestTimeout",
    "Target",
    "TargetError",
    "URLError",
    "WrongRevision",
    "aconnect",
    "add_target_arguments",
    "argv_scrub",
    "argv_secrets",
    "context_dir",
    "describe_target",
    "load_context",
    "parse_servers",
    "parse_url",
    "redact_servers",
    "redact_url",
    "resolve_context",
    "scrub",
    "selected_context",
    "split_servers",
    "target_from_args",
    "target_from_config",
]

_LAZY = frozenset({"Connection", "Message", "NatsError", "NoResponders", "RequestTimeout", "aconnect"})


def __getattr__(name: str) -> object:
    """The names of :mod:`.connection`, imported (with ``nats``) on first use."""
    if name in _LAZY:
        from . import connection

        return getattr(connection, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
