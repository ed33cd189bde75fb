"""What ``jsops discover`` may believe: which VARZ answers come from the connected cluster's servers,
and whether the facts it is about to write are plausible.

**The rule for peers.** ``$SYS.REQ.SERVER.PING.VARZ`` is a subject: any client allowed to
subscribe to it can answer, with any server name and tags. The ids of the cluster's servers are
therefore taken from the connected server itself, over its HTTP monitoring endpoint, which no NATS
client can answer for: ``/varz``'s ``server_id`` (which must be the ``server_id`` of the INFO the
NATS connection received: the same server) and ``/routez``'s ``remote_id`` and ``remote_name`` of
each route (the cluster's other servers). An answer is kept only when its ``server.id`` is one of
those ids, its ``data.server_id`` is the same id, and its name is the one the monitor gives for
that id; answers from any other id are dropped and counted in a warning. ``servers`` is written
only when every id answered exactly once: two answers for one id (a forgery racing the real
server) or an id with no answer leave it out, as a partial or forged list would make placement
predictions wrong. Without ``--monitor`` nothing can be checked and ``servers`` is left out.

**Other clusters of a supercluster.** Their servers are not routes of the connected server, so their
ids cannot be taken from its monitor. What the monitor does give is the names of the clusters its
gateway connects to (``/varz`` ``gateway.gateways``) and the size of the JetStream meta group, which
spans every cluster (``/jsz`` ``meta_cluster.cluster_size``). An answer from an id outside the
connected cluster is kept when the cluster it names is one of those gateways and it runs JetStream
(servers without it are in no meta group and place nothing); they are written only
when every id answered exactly once and the servers kept, of every cluster, are exactly as many as
the meta group's size (a forged extra server makes them more, a forgery racing a real server answers
an id twice). Otherwise the other clusters' answers are dropped with a warning and only the connected
cluster's servers are written (placement in other clusters is then not judged offline).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from .client import TargetError

if TYPE_CHECKING:
    from jsops.linter import LintTarget

__all__ = ["cluster_ids", "gateway_names", "verified_peers", "check_facts", "PING_DEADLINE"]

PING_DEADLINE = 3.0  # seconds for the whole VARZ collection, however many answers keep coming
_RELEASE = re.compile(r"\d{1,4}\.\d{1,4}\.\d{1,4}(-[0-9A-Za-z.-]{1,64})?(\+[0-9A-Za-z.-]{1,64})?")
_NAME = re.compile(r"[^\s\x00-\x1f\x7f]{1,256}")  # names and tags: printable, no whitespace
_TAG = re.compile(r"[^\x00-\x1f\x7f]{1,256}")  # tags may hold a space, never a control character
MAX_PAYLOAD = 64 * 1024 * 1024  # nats-server's own upper bound
MAX_CLUSTER = 1024


def cluster_ids(
    info: dict[str, Any], varz: dict[str, Any] | None, routez: dict[str, Any] | None
) -> tuple[dict[str, str | None] | None, str]:
    """The cluster's server ids and names ({id: name}), or None and why they cannot be known."""
    if varz is None or routez is None:
        return (
            None,
            "the servers' VARZ answers can be checked only against the server's monitoring endpoint (--monitor)",
        )
    own = info.get("server_id")
    if not isinstance(own, str) or varz.get("server_id") != own:
        return None, "the monitoring endpoint is not the server the NATS connection reached (its server_id differs)"
    ids: dict[str, str | None] = {own: varz.get("server_name") if isinstance(varz.get("server_name"), str) else None}
    routes = routez.get("routes")
    if not isinstance(routes, list) and routes is not None:
        return None, "/routez answered without a list of routes"
    for route in routes or []:
        if isinstance(route, dict) and isinstance(route.get("remote_id"), str):
            name = route.get("remote_name")
            ids[route["remote_id"]] = name if isinstance(name, str) else None
    return ids, ""


def gateway_names(varz: dict[str, Any]) -> set[str]:
    """The clusters the connected server's gateway connects to (its ``/varz``), its own excluded."""
    gateway = varz.get("gateway")
    listed = gateway.get("gateways") if isinstance(gateway, dict) else None
    own = gateway.get("name") if isinstance(gateway, dict) else None
    return (
        {g["name"] for g in listed or [] if isinstance(g, dict) and isinstance(g.get("name"), str) and g["name"] != own}
        if isinstance(listed, list)
        else set()
    )


def _cluster_of(body: dict[str, Any]) -> object:
    cluster = body.get("cluster")
    return cluster.get("name") if isinstance(cluster, dict) else None


def _jetstream(body: dict[str, Any]) -> bool:
    js = body.get("jetstream")
    return isinstance(js, dict) and isinstance(js.get("config"), dict) and bool(js["config"])


def verified_peers(
    answers: list[dict[str, Any]],
    ids: dict[str, str | None],
    varz: dict[str, Any],
    meta_size: int | None = None,
) -> tuple[list[dict[str, Any]] | None, list[str]]:
    """The VARZ bodies of ``answers`` that the rule keeps (None: ``servers`` is not written), and
    warnings to print. ``meta_size``: the JetStream meta group's size (``/jsz``), without which the
    servers of other clusters are not kept."""
    notes: list[str] = []
    kept: dict[str, dict[str, Any]] = {}
    remote: dict[str, dict[str, Any]] = {}
    gateways = gateway_names(varz) if meta_size else set()
    dropped = twice = 0
    for answer in answers:
        why = _file_answer(answer, ids, varz, gateways, kept, remote)
        if why == "dropped":
            dropped += 1
        elif why == "twice":
            twice += 1
    if dropped:
        notes.append(f"{dropped} VARZ answer(s) did not come from a server of the connected cluster and were left out")
    if twice:
        notes.append(
            f"{twice} server(s) of the cluster answered more than once (is something answering in their name?); servers is left out"
        )
        return None, notes
    missing = sorted(set(ids) - set(kept))
    if missing:
        notes.append(
            f"{len(missing)} server(s) of the cluster did not answer the VARZ ping (no system account access?); servers is left out"
        )
        return None, notes
    if remote and len(kept) + len(remote) != meta_size:
        notes.append(
            f"{len(kept) + len(remote)} servers answered from the supercluster's clusters but its JetStream meta group has {meta_size}; "
            "only the connected cluster's servers are written"
        )
        remote = {}
    kept.update(remote)
    return [kept[k] for k in sorted(kept)], notes


_Left = Literal["dropped", "twice"]
"""Why an answer is left out, as :func:`verified_peers` counts it: not from a server it may keep, or a second one."""


def _file_answer(
    answer: dict[str, Any],
    ids: dict[str, str | None],
    varz: dict[str, Any],
    gateways: set[str],
    kept: dict[str, dict[str, Any]],
    remote: dict[str, dict[str, Any]],
) -> _Left | None:
    """Put one VARZ answer into ``kept`` (a server of the connected cluster) or ``remote`` (one of a
    cluster its gateways join), by the rule of the module; ``"dropped"`` or ``"twice"`` when it is
    not kept for a reason :func:`verified_peers` counts, None otherwise."""
    server: Any = answer.get("server")
    server = server if isinstance(server, dict) else {}
    body: Any = answer.get("data")
    sid = server.get("id")
    if (
        isinstance(body, dict)
        and isinstance(sid, str)
        and sid not in ids
        and body.get("server_id") == sid
        and _cluster_of(body) in gateways
    ):
        return _file_remote(body, sid, body.get("server_name") or server.get("name"), remote)
    if not isinstance(body, dict) or sid not in ids or body.get("server_id") != sid:
        return "dropped"
    name = body.get("server_name") or server.get("name")
    if ids[sid] is not None and name != ids[sid]:
        return "dropped"
    if sid in kept:
        return "twice"
    if sid == varz.get("server_id") and body.get("tags") != varz.get("tags"):
        return "dropped"  # the connected server's own tags are known from its monitor
    kept[sid] = {**body, "server_name": name}
    return None


def _file_remote(body: dict[str, Any], sid: str, name: object, remote: dict[str, dict[str, Any]]) -> _Left | None:
    """:func:`_file_answer` of a server of another cluster."""
    if sid in remote:
        return "twice"
    if not _jetstream(body):
        return None  # not a JetStream server: in no meta group, no placement
    if isinstance(name, str) and name:
        remote[sid] = {**body, "server_name": name}
        return None
    return "dropped"


def _bad(what: str, value: object) -> TargetError:
    shown = repr(value)
    return TargetError(
        f"the server gave {what} {shown[:80] + ('...' if len(shown) > 80 else '')}, which is not plausible; nothing was written"
    )


def check_facts(facts: LintTarget) -> None:
    """Refuse facts no real server gives (a release with a newline, a name with control characters)
    before they reach ``.jsops.yaml``."""
    if facts.server_version is not None and not _RELEASE.fullmatch(facts.server_version):
        raise _bad("the release", facts.server_version)
    if facts.cluster_name is not None and not _NAME.fullmatch(facts.cluster_name):
        raise _bad("the cluster name", facts.cluster_name)
    if facts.max_payload is not None and not 0 < facts.max_payload <= MAX_PAYLOAD:
        raise _bad("max_payload", facts.max_payload)
    if facts.cluster_size is not None and not 0 < facts.cluster_size <= MAX_CLUSTER:
        raise _bad("the cluster size", facts.cluster_size)
    for server in facts.servers or ():
        for what, value, pattern in (("a server name", server.name, _NAME), ("a cluster name", server.cluster, _NAME)):
            if value is not None and not pattern.fullmatch(value):
                raise _bad(what, value)
        for tag in server.tags:
            if not _TAG.fullmatch(tag):
                raise _bad("a server tag", tag)
