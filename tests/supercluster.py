"""Local multi-cluster topologies of real nats-servers for tests and drills (docs/disaster-recovery.md).

- :class:`Supercluster`: two or three JetStream clusters joined by gateways, one to three servers each
  (server tags and a ``max_file`` per server), with an application account ``APP`` (user ``app``) and a
  system account ``SYS`` (user ``sys``, for the ``$SYS.REQ.SERVER.PING...`` requests that describe every
  server). :meth:`Supercluster.start` returns once every server answers the system ping through the
  gateways and JetStream (``$JS.API.INFO``) answers on every server: the meta group has a leader.
- :class:`HubLeaf`: a hub server and a leaf node joined by a leafnode connection, each a JetStream
  domain of its own (``hub``, ``leaf``); :meth:`HubLeaf.start` returns once the leaf's JetStream
  answers from the hub through ``$JS.leaf.API.INFO``.

Everything listens on 127.0.0.1 on free ports with temporary stores; servers are started through
:class:`natsserver.NatsServer` (tests/procs.py ``spawn``: a process group each, stopped by PID by
:meth:`stop`, and killed at the latest when pytest or the interpreter exits, Ctrl-C included).
Run one by hand with ``python tests/supercluster.py`` (see the docs).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from natsserver import NatsServer, free_port

__all__ = ["ServerSpec", "ClusterSpec", "Supercluster", "HubLeaf", "ACCOUNTS", "APP_USER", "SYS_USER"]

APP_USER = ("app", "app")
SYS_USER = ("sys", "sys")
# APP imports the VARZ ping from SYS (a stream of answers, one per server): `jsops discover` as ``app``
# reads every server's name, cluster, tags and storage, as an operator grants a deploy user.
ACCOUNTS = (
    "accounts {\n"
    f'  SYS {{ users: [{{user: "{SYS_USER[0]}", password: "{SYS_USER[1]}"}}],\n'
    '        exports: [{service: "$SYS.REQ.SERVER.PING.VARZ", response_type: stream}] }\n'
    f'  APP {{ jetstream: enabled, users: [{{user: "{APP_USER[0]}", password: "{APP_USER[1]}"}}],\n'
    '        imports: [{service: {account: SYS, subject: "$SYS.REQ.SERVER.PING.VARZ"}}] }\n'
    "}\nsystem_account: SYS\n"
)


@dataclass(frozen=True)
class ServerSpec:
    """One server: its ``server_tags`` and JetStream ``max_file`` (e.g. ``"64MB"``)."""

    tags: tuple[str, ...] = ()
    max_file: str = "1GB"


@dataclass(frozen=True)
class ClusterSpec:
    """One cluster (its gateway has the same name) of one to three servers."""

    name: str
    servers: tuple[ServerSpec, ...] = (ServerSpec(),)


@dataclass
class _Node:
    cluster: str
    name: str
    server: NatsServer
    route_port: int
    gateway_port: int


def _url(server: NatsServer, user: tuple[str, str]) -> str:
    return f"nats://{user[0]}:{user[1]}@127.0.0.1:{server.port}"


async def _request(url: str, subject: str, timeout: float = 2.0) -> dict[str, object] | None:
    import nats

    try:
        nc = await nats.connect(url, connect_timeout=2, max_reconnect_attempts=0, allow_reconnect=False)
    except Exception:
        return None
    try:
        msg = await nc.request(subject, b"", timeout=timeout)
        data = json.loads(msg.data)
        return data if isinstance(data, dict) else None
    except Exception:
        return None
    finally:
        await nc.close()


async def _ping_count(url: str, subject: str, quiet: float = 1.0) -> int:
    """How many servers answer a ``$SYS.REQ.SERVER.PING...`` request (answers until ``quiet`` s pass)."""
    import nats

    try:
        nc = await nats.connect(url, connect_timeout=2, max_reconnect_attempts=0, allow_reconnect=False)
    except Exception:
        return 0
    try:
        sub = await nc.subscribe(nc.new_inbox())
        await nc.publish(subject, b"{}", reply=sub.subject)
        names: set[str] = set()
        while True:
            try:
                msg = await sub.next_msg(timeout=quiet)
            except Exception:
                return len(names)
            server = json.loads(msg.data).get("server", {})
            names.add(str(server.get("name")))
    finally:
        await nc.close()


def _poll(what: str, ready: object, timeout: float) -> float:
    """Call ``ready()`` (a coroutine function) until it is true; the seconds it took."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if asyncio.run(ready()):  # type: ignore[operator]
            return time.monotonic() - start
        time.sleep(0.25)
    raise RuntimeError(f"{what} not ready after {timeout:.0f} s")


class Supercluster:
    """Clusters joined by gateways; server ``<cluster>-<i>`` (from 1). ``binary``: a release's nats-server."""

    def __init__(self, clusters: Sequence[ClusterSpec], binary: str | None = None) -> None:
        if not 1 <= len(clusters) <= 3 or any(not 1 <= len(c.servers) <= 3 for c in clusters):
            raise ValueError("one to three clusters of one to three servers each")
        self.specs = tuple(clusters)
        self.binary = binary
        self.nodes: list[_Node] = []
        self.ready_seconds: float | None = None  # how long start() waited for gateways and meta leader

    def urls(self, cluster: str | None = None, user: tuple[str, str] = APP_USER) -> list[str]:
        """The client URLs (with ``user``'s credentials) of every server, or of one cluster's."""
        return [_url(n.server, user) for n in self.nodes if cluster is None or n.cluster == cluster]

    def monitor_url(self, cluster: str) -> str:
        """The HTTP monitoring URL of ``cluster``'s first server."""
        node = next(n for n in self.nodes if n.cluster == cluster)
        return f"http://127.0.0.1:{node.server.monitor_port}"

    def _config(self, spec: ClusterSpec, index: int, node: _Node) -> str:
        routes = ", ".join(f"nats-route://127.0.0.1:{n.route_port}" for n in self.nodes if n.cluster == spec.name)
        gateways = ", ".join(
            f'{{name: "{other.name}", urls: [{", ".join(f"nats://127.0.0.1:{n.gateway_port}" for n in self.nodes if n.cluster == other.name)}]}}'
            for other in self.specs
            if other.name != spec.name
        )
        tags = ", ".join(json.dumps(t) for t in spec.servers[index].tags)
        return (
            f'server_name: "{node.name}"\nserver_tags: [{tags}]\n'
            f'cluster {{ name: "{spec.name}"\n listen: 127.0.0.1:{node.route_port}\n routes: [{routes}] }}\n'
            f'gateway {{ name: "{spec.name}"\n listen: 127.0.0.1:{node.gateway_port}\n gateways: [{gateways}] }}\n'
            + ACCOUNTS
        )

    def start(self, timeout: float = 120.0) -> Supercluster:
        for spec in self.specs:
            for i, server in enumerate(spec.servers, start=1):
                ns = NatsServer(binary=self.binary, max_file=server.max_file, monitor=True)
                self.nodes.append(_Node(spec.name, f"{spec.name}-{i}", ns, free_port(), free_port()))
        try:
            for spec in self.specs:
                for i, node in enumerate(n for n in self.nodes if n.cluster == spec.name):
                    node.server.extra_config = self._config(spec, i, node)
            for node in self.nodes:
                node.server.start()
            self.ready_seconds = self._wait(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait(self, timeout: float) -> float:
        total = len(self.nodes)
        sys_urls = [_url(n.server, SYS_USER) for n in self.nodes]
        app_urls = self.urls()

        async def ready() -> bool:
            # every server answers the system ping from every cluster: the gateways carry $SYS
            for url in (sys_urls[0], sys_urls[-1]):
                if await _ping_count(url, "$SYS.REQ.SERVER.PING.JSZ") < total:
                    return False
            for url in app_urls:
                info = await _request(url, "$JS.API.INFO")
                if info is None or "error" in info:
                    return False
            return True

        return _poll("the supercluster (gateways, JetStream meta leader)", ready, timeout)

    def stop(self) -> None:
        for node in self.nodes:
            node.server.stop()

    def __enter__(self) -> Supercluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class HubLeaf:
    """A hub server (JetStream domain ``hub``) and a leaf node (domain ``leaf``) connected to it."""

    binary: str | None = None
    hub: NatsServer = field(init=False)
    leaf: NatsServer = field(init=False)
    ready_seconds: float | None = None

    def start(self, timeout: float = 90.0) -> HubLeaf:
        leaf_port = free_port()
        self.hub = NatsServer(
            binary=self.binary,
            jetstream_config="domain: hub",
            extra_config=f'server_name: "hub"\nleafnodes {{ listen: 127.0.0.1:{leaf_port} }}\n',
        )
        self.leaf = NatsServer(
            binary=self.binary,
            jetstream_config="domain: leaf",
            extra_config=f'server_name: "leaf"\nleafnodes {{ remotes: [{{url: "nats-leaf://127.0.0.1:{leaf_port}"}}] }}\n',
        )
        try:
            self.hub.start()
            self.leaf.start()
            hub_url = self.hub.url

            async def ready() -> bool:
                info = await _request(hub_url, "$JS.leaf.API.INFO")
                return info is not None and "error" not in info

            self.ready_seconds = _poll("the leaf node's JetStream domain (from the hub)", ready, timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for server in (getattr(self, "leaf", None), getattr(self, "hub", None)):
            if server is not None:
                server.stop()

    def __enter__(self) -> HubLeaf:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


THREE_CLUSTERS = (
    ClusterSpec("C1", (ServerSpec(("az:1", "ssd"), "64MB"),)),
    ClusterSpec("C2", (ServerSpec(("az:2",), "32MB"),)),
    ClusterSpec("C3", (ServerSpec(("az:3", "ssd"), "1GB"),)),
)
"""Three single-server clusters with tags and storage limits (the placement tests')."""


def _main() -> None:  # pragma: no cover - a convenience for people, documented in docs/disaster-recovery.md
    import argparse
    import signal

    parser = argparse.ArgumentParser(description="Start a local supercluster and a hub with a leaf node until Ctrl-C.")
    parser.add_argument("--binary", help="a nats-server binary (default: the installed one)")
    parser.add_argument("--no-leaf", action="store_true", help="only the supercluster")
    args = parser.parse_args()
    with Supercluster(THREE_CLUSTERS, args.binary) as sc:
        print(f"supercluster ready in {sc.ready_seconds:.1f} s")
        for node in sc.nodes:
            print(f"  {node.name}: {_url(node.server, APP_USER)}  monitor http://127.0.0.1:{node.server.monitor_port}")
        print(f"  system user: {SYS_USER[0]}:{SYS_USER[1]}")
        hl = None if args.no_leaf else HubLeaf(args.binary).start()
        try:
            if hl is not None:
                print(
                    f"hub {hl.hub.url} (domain hub), leaf {hl.leaf.url} (domain leaf), ready in {hl.ready_seconds:.1f} s"
                )
            print("Ctrl-C stops every server")
            signal.pause()
        except KeyboardInterrupt:
            pass
        finally:
            if hl is not None:
                hl.stop()


if __name__ == "__main__":
    _main()
