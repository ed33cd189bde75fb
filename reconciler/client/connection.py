"""A plain NATS connection, for the parts of jsops that do more than JetStream API requests.

``jsops collect`` subscribes to advisories and ack samples, the demo's traffic generator publishes
and consumes, the demo waits for its server: they connect here, and catch the errors named here,
so that ``nats`` is imported by the client package only. Everything else talks to a target
through :class:`~jsops.reconciler.client.JsClient`.
"""

from __future__ import annotations

from typing import Unpack

import nats
import nats.aio.client
import nats.aio.msg
import nats.errors

from .target import ConnectOptions

__all__ = ["Connection", "Message", "NatsError", "NoResponders", "RequestTimeout", "aconnect"]

# nats-py's classes under the names jsops uses.
Connection = nats.aio.client.Client
Message = nats.aio.msg.Msg
NatsError = nats.errors.Error  # the base of every error nats-py raises
NoResponders = nats.errors.NoRespondersError  # nobody listens on the subject (no JetStream there)
RequestTimeout = nats.errors.TimeoutError  # a request or publish got no answer in time


async def aconnect(**options: Unpack[ConnectOptions]) -> Connection:
    """A connection made with nats-py's own options (``servers``, ``name``, the callbacks, ...;
    :meth:`jsops.reconciler.client.Target.connect_options` gives a target's)."""
    return await nats.connect(**options)
