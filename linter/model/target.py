"""What jsops knows about the server an estate is applied to (jsops config ``target``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictBool, StrictInt, StrictStr

from .config import Duration, Size

__all__ = ["Target", "ServerLimits", "AccountLimits"]


class ServerLimits(BaseModel):
    """``jetstream { limits { ... } }`` in the server config."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_ack_pending: StrictInt | None = None
    max_request_batch: StrictInt | None = None
    duplicate_window: Duration | None = None
    max_ha_assets: StrictInt | None = None


class AccountLimits(BaseModel):
    """The account's JetStream limits."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_mem: Size | None = None
    max_file: Size | None = None
    max_streams: StrictInt | None = None
    max_consumers: StrictInt | None = None
    max_bytes_required: StrictBool | None = None
    mem_max_stream_bytes: Size | None = None
    disk_max_stream_bytes: Size | None = None
    max_ack_pending: StrictInt | None = None


class Target(BaseModel):
    """A server or cluster that manifests are checked against. Everything is optional: rules that
    need a fact the target does not give stay silent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server_version: StrictStr | None = None
    clustered: StrictBool | None = None
    cluster_size: StrictInt | None = None
    max_payload: Size | None = None
    limits: ServerLimits = ServerLimits()
    account: AccountLimits = AccountLimits()
