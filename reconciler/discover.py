"""What a live target is: the facts preflight needs, read from its servers (``jsops discover``,
:mod:`jsops.reconciler.cli.discover`, prints or writes them into the jsops config's ``target``), and
the limits it enforces over the declared ones (:func:`read_limits`, for plans).

Offline lint (pre-commit, CI) predicts for the server the config's ``target`` describes. The facts
come:

- from the server's INFO (every client sees it): ``server_version``, ``max_payload``, and, when the
  server is in a cluster, ``clustered``, ``cluster_name`` and ``cluster_size`` (the servers it
  advertises to clients);
- from ``$JS.API.INFO``: the account's JetStream limits;
- with a monitoring URL (``--monitor``): the server's ``jetstream { limits }`` and tags from
  ``/varz``, the JetStream meta group's size and peers from ``/jsz``;
- with access to the system account (``$SYS.REQ.SERVER.PING.VARZ`` answers): every server's name,
  cluster, tags, JetStream storage (``max_file_store``, ``max_mem_store``) and what it holds
  reserved, so that placement is judged (JS317); in a supercluster, those of every cluster its
  gateways join (the rule of :mod:`jsops.reconciler._discover_trust`). Without it ``servers`` is
  left out rather than written incomplete, since a partial list would make placement predictions
  wrong.

"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, TypeVar

from jsops.linter import LintTarget, Record, ServerLimits, TargetServer

from .client import JsClient, Target, TargetError
from .limits import account_limits, monitor_json, server_limits

if TYPE_CHECKING:  # nats-py's connection, for its type only
    from .client import Connection
    from .plan.predict import ServerStorage

__all__ = ["target_facts", "discover", "read_limits", "read_plan_limits"]

_Limits = TypeVar("_Limits", bound=Record)

_PING_TIMEOUT = 1.0  # seconds without an answer that end the collection
_PING_QUIET = 0.25  # ... once every server of the cluster answered


def target_facts(
    info: dict[str, Any],
    js_info: dict[str, Any],
    varz: dict[str, Any] | None = None,
    jsz: dict[str, Any] | None = None,
    peers: list[dict[str, Any]] | None = None,
) -> LintTarget:
    """The linter's target from what a live server said (pure: every input is a decoded answer).

    ``info``: the server's INFO; ``js_info``: ``$JS.API.INFO``; ``varz``/``jsz``: the monitoring
    endpoints of the connected server; ``peers``: ``$SYS.REQ.SERVER.PING.VARZ`` answers."""
    cluster = info.get("cluster") if isinstance(info.get("cluster"), str) and info.get("cluster") else None
    size: int | None = None
    meta = (jsz or {}).get("meta_cluster")
    meta = meta if isinstance(meta, dict) else {}
    if (
        isinstance(meta.get("cluster_size"), int)
        and not isinstance(meta["cluster_size"], bool)
        and meta["cluster_size"] > 0
    ):
        size = meta["cluster_size"]
        cluster = cluster or (meta.get("name") if isinstance(meta.get("name"), str) else None)
    elif cluster:
        urls: Any = info.get("connect_urls")
        size = max(len({u for u in (urls if isinstance(urls, list) else []) if isinstance(u, str)}), 1)
    clustered = size is not None and (size > 1 or cluster is not None)
    servers: tuple[TargetServer, ...] | None = None
    if peers:
        servers = tuple(
            sorted(
                (
                    TargetServer(
                        name=_text(p.get("server_name")) or _text(p.get("name")),
                        cluster=_text(p["cluster"].get("name")) if isinstance(p.get("cluster"), dict) else None,
                        tags=_tags(p.get("tags")),
                        **_storage(p.get("jetstream")),
                    )
                    for p in peers
                ),
                key=lambda s: (s.cluster or "", s.name or ""),
            )
        )
    version = info.get("version") if isinstance(info.get("version"), str) else None
    payload = (
        info.get("max_payload")
        if isinstance(info.get("max_payload"), int) and not isinstance(info.get("max_payload"), bool)
        else None
    )
    return LintTarget(
        server_version=version,
        clustered=clustered,
        cluster_size=size if clustered else None,
        cluster_name=cluster if clustered else None,
        max_payload=payload,
        limits=server_limits(varz) if varz else LintTarget().limits,
        account=account_limits(js_info),
        servers=servers,
    )


def _storage(js: object) -> dict[str, int]:
    """A VARZ body's JetStream storage and reservations (``jetstream.config`` / ``jetstream.stats``)."""
    config = js.get("config") if isinstance(js, dict) else None
    stats = js.get("stats") if isinstance(js, dict) else None
    out: dict[str, int] = {}
    for key, where, field in (
        ("max_file_store", config, "max_storage"),
        ("max_mem_store", config, "max_memory"),
        ("reserved_file_store", stats, "reserved_storage"),
        ("reserved_mem_store", stats, "reserved_memory"),
    ):
        value = where.get(field) if isinstance(where, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[key] = value
    return out


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _tags(value: object) -> tuple[str, ...]:
    return tuple(t for t in value if isinstance(t, str)) if isinstance(value, list) else ()


def discover(client: JsClient, target: Target | None = None) -> LintTarget:
    """Read the facts from a connected :class:`jsops.reconciler.client.JsClient` (``target``: its
    :class:`jsops.reconciler.client.Target`, whose monitor URL is read when it names one). Peers are
    believed by the rule of :mod:`jsops.reconciler._discover_trust`; the facts are checked before they
    are returned."""
    from ._discover_trust import PING_DEADLINE, check_facts, cluster_ids, verified_peers

    info = dict(getattr(client.nc, "_server_info", None) or {})
    js_info = client.request("INFO")
    varz = jsz = routez = None
    if target is not None and target.monitor:
        varz = monitor_json(target, "varz")
        try:  # the meta group's size; without it the size comes from the servers the server advertises
            jsz = monitor_json(target, "jsz", "the JetStream meta group")
        except TargetError:
            jsz = None
        try:
            routez = monitor_json(target, "routez", "the server's routes")
        except TargetError:
            routez = None
    ids, why = cluster_ids(info, varz, routez)
    peers = None
    if ids is not None and varz is not None:
        answers = client.run(_ping_varz(client.nc, set(ids), PING_DEADLINE, _meta_size(jsz) or 0))
        if answers is not None:
            peers, notes = verified_peers(answers, ids, varz, _meta_size(jsz))
            for note in notes:
                print(f"jsops: warning: {note}", file=sys.stderr)
    elif why:
        print(f"jsops: servers (for placement) left out: {why}", file=sys.stderr)
    facts = target_facts(info, js_info, varz, jsz, peers)
    check_facts(facts)
    return facts


def _meta_size(jsz: dict[str, Any] | None) -> int | None:
    meta = (jsz or {}).get("meta_cluster")
    size = meta.get("cluster_size") if isinstance(meta, dict) else None
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None


async def _ping_varz(
    nc: Connection, expected: set[str], deadline: float, count: int = 0
) -> list[dict[str, Any]] | None:
    """Every answer to the VARZ ping within ``deadline`` seconds (the whole collection), or None
    when this user may not ask. Ends early once every ``expected`` id answered, at least ``count``
    servers did (the meta group's size: every cluster's), and a short while passed without another
    answer (a second answer for an id is how a forgery shows)."""
    import asyncio

    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    answers: list[dict[str, Any]] = []
    seen: set[str] = set()
    try:
        sub = await nc.subscribe(nc.new_inbox())
        await nc.publish("$SYS.REQ.SERVER.PING.VARZ", b"{}", reply=sub.subject)
        await nc.flush(timeout=min(2.0, deadline))  # type: ignore[arg-type]  # seconds, as asyncio.wait_for takes them (nats-py's hint says int)
        while (left := end - loop.time()) > 0:
            quiet = _PING_QUIET if expected <= seen and len(seen) >= count else _PING_TIMEOUT
            try:
                msg = await sub.next_msg(timeout=min(left, quiet))
            except Exception:  # a timeout: quiet for that long
                break
            try:
                data = json.loads(msg.data)
            except ValueError:
                continue
            if isinstance(data, dict):
                answers.append(data)
                server = data.get("server")
                if isinstance(server, dict) and isinstance(server.get("id"), str):
                    seen.add(server["id"])
        await sub.unsubscribe()
    except Exception:
        return None
    return answers or None


def _merge(live: _Limits, declared: _Limits) -> _Limits:
    """``live`` with its unknown (None) fields taken from ``declared``."""
    values = {
        k: (getattr(live, k) if getattr(live, k) is not None else getattr(declared, k)) for k in type(live).model_fields
    }
    return type(live)(**values)


def read_limits(
    client: JsClient,
    target: Target | None = None,
    declared: LintTarget | None = None,
    varz: dict[str, Any] | None = None,
) -> LintTarget:
    """The limits ``client``'s account (``$JS.API.INFO``) and, with a monitor URL, its server
    (``/varz``, read here unless given) enforce, over the ``declared`` facts of the jsops config."""
    base = declared or LintTarget()
    account = account_limits(client.request("INFO"))
    server = ServerLimits()
    if varz is None and target is not None and target.monitor:
        varz = monitor_json(target, "varz")
    if varz is not None:
        server = server_limits(varz)
    # What every client learns from the server's INFO (release, max_payload, cluster) is the truth
    # about this target, whatever the config declares (:func:`target_facts`).
    info = dict(getattr(getattr(client, "nc", None), "_server_info", None) or {})
    facts = target_facts(info, {}) if info else LintTarget()
    update: dict[str, Any] = {"limits": _merge(server, base.limits), "account": _merge(account, base.account)}
    # Not cluster_size: the servers a node advertises are those up right now, and a cluster with a
    # node down still places R3 streams (only `jsops discover --monitor` reads the meta group's size).
    for key in ("server_version", "max_payload", "clustered", "cluster_name"):
        value = getattr(facts, key)
        update[key] = value if value is not None else getattr(base, key)
    if facts.clustered is False:
        update.update(cluster_size=None, cluster_name=None)
    return base.model_copy(update=update)


def read_plan_limits(
    client: JsClient, target: Target, declared: LintTarget | None = None
) -> tuple[LintTarget, ServerStorage | None]:
    """What a plan of ``target`` is judged against (``jsops plan`` and the controller read it here, the same
    way): the limits of :func:`read_limits` and, when the target names a monitor URL and the server is
    standalone, its own JetStream storage from the same ``/varz`` answer (a create that cannot fit is
    refused with 10047/10028; a clustered server places a stream on other peers: JS317 judges that)."""
    from .plan.predict import server_storage

    varz = monitor_json(target, "varz") if target.monitor else None
    limits = read_limits(client, target, declared, varz)
    return limits, server_storage(varz) if varz is not None and limits.clustered is False else None
