"""What jsops knows about the server an estate is applied to (jsops config ``target``)."""

# No `from __future__ import annotations` here: the records (and pydantic, when it is needed) read
# these annotations as objects instead of evaluating strings.
from .config import Duration, Size
from .records.record import Record, StrictBool, StrictInt, StrictStr

__all__ = ["Target", "ServerLimits", "AccountLimits", "TargetServer"]


class ServerLimits(Record):
    """``jetstream { limits { ... } }`` in the server config."""

    max_ack_pending: StrictInt | None = None
    max_request_batch: StrictInt | None = None
    duplicate_window: Duration | None = None
    max_ha_assets: StrictInt | None = None


class AccountLimits(Record):
    """The account's JetStream limits."""

    max_mem: Size | None = None
    max_file: Size | None = None
    max_streams: StrictInt | None = None
    max_consumers: StrictInt | None = None
    max_bytes_required: StrictBool | None = None
    mem_max_stream_bytes: Size | None = None
    disk_max_stream_bytes: Size | None = None
    max_ack_pending: StrictInt | None = None


class TargetServer(Record):
    """One server of the target cluster or supercluster, as stream placement sees it."""

    name: StrictStr | None = None
    cluster: StrictStr | None = None  # defaults to the target's cluster_name
    tags: tuple[StrictStr, ...] = ()  # the server's server_tags
    # Its JetStream storage (jetstream { max_file, max_mem }) and what its streams held reserved when
    # it was discovered (a snapshot: the reservations of the estate's own streams are in it).
    max_file_store: Size | None = None
    max_mem_store: Size | None = None
    reserved_file_store: Size | None = None
    reserved_mem_store: Size | None = None


class Target(Record):
    """A server or cluster that manifests are checked against. Everything is optional: rules that
    need a fact the target does not give stay silent."""

    server_version: StrictStr | None = None
    clustered: StrictBool | None = None
    cluster_size: StrictInt | None = None
    max_payload: Size | None = None
    # The defaults need no validation.
    limits: ServerLimits = ServerLimits.model_construct()
    account: AccountLimits = AccountLimits.model_construct()
    # The cluster the estate is applied to, and its servers (all clusters' servers in a
    # supercluster, each naming its cluster): placement.cluster and placement.tags are judged
    # against them. Either implies a cluster.
    cluster_name: StrictStr | None = None
    servers: tuple[TargetServer, ...] | None = None
    # The estate is applied with "pedantic": true create requests (as some tools send): the server
    # then refuses what it would otherwise silently rewrite.
    pedantic: StrictBool | None = None
