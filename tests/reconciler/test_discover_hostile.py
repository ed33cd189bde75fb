"""``jsops discover`` among hostile clients (issue 22 item 7): any client that may subscribe to
``$SYS.REQ.SERVER.PING.VARZ`` can answer it. Only answers from the connected cluster's servers
(ids from the server's own monitoring endpoint) are believed, the whole collection ends at its
deadline however many answers keep coming, and implausible facts are never written. Real
nats-servers (a 3-node cluster with a system account whose VARZ ping an application account
imports, as operators set it up) and a hostile nats-py client; a fake server for a release with a
newline in it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakeservers import FakeNats
from natsserver import NatsServer, free_port

from jsops.linter.config import load_config

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
ACCOUNTS = """
accounts {
  SYS { users [{user: sys, password: sys}], exports [{service: "$SYS.REQ.SERVER.PING.VARZ", response_type: stream}] }
  APP { jetstream: enabled, users [{user: app, password: app}],
        imports [{service: {account: SYS, subject: "$SYS.REQ.SERVER.PING.VARZ"}}] }
}
system_account: SYS
"""


class Cluster:
    def __init__(self, size: int = 3) -> None:
        self.http = [free_port() for _ in range(size)]
        cports = [free_port() for _ in range(size)]
        routes = ", ".join(f"nats-route://127.0.0.1:{p}" for p in cports)
        self.nodes = [
            NatsServer(
                extra_config=(
                    f'server_name: n{i + 1}\nserver_tags: ["az:{i + 1}"]\nhttp: 127.0.0.1:{self.http[i]}\n'
                    f"cluster {{ name: C1\n listen: 127.0.0.1:{cports[i]}\n routes: [{routes}] }}\n" + ACCOUNTS
                )
            )
            for i in range(size)
        ]

    def url(self, i: int = 0) -> str:
        return f"nats://app:app@127.0.0.1:{self.nodes[i].port}"

    def start(self) -> Cluster:
        for node in self.nodes:
            node.start()
        deadline = time.monotonic() + 90

        async def ready() -> bool:
            import nats

            nc = await nats.connect(self.url(), connect_timeout=2)
            try:
                msg = await nc.request("$JS.API.INFO", b"", timeout=2)
                return b'"error"' not in msg.data  # a meta leader is known
            except Exception:  # no answer during the election: ask again
                return False
            finally:
                await nc.close()

        while not asyncio.run(ready()):
            if time.monotonic() > deadline:
                raise AssertionError("no JetStream meta leader")
            time.sleep(0.5)
        return self

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    try:
        yield c.start()
    finally:
        c.stop()


class Liar:
    """A client of the application account answering every VARZ ping with ``answers`` (dicts with
    ``server`` and ``data``), again every ``every`` seconds, for ever."""

    def __init__(self, url: str, answers: list[dict[str, Any]], every: float = 0.5) -> None:
        self.url, self.answers, self.every = url, answers, every
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        import nats

        nc = await nats.connect(self.url)

        async def answer(msg: Any) -> None:
            while not self.stop.is_set():
                for a in self.answers:
                    await nc.publish(msg.reply, json.dumps(a).encode())
                await asyncio.sleep(self.every)

        await nc.subscribe("$SYS.REQ.SERVER.PING.VARZ", cb=answer)
        await nc.flush()
        self.ready.set()
        while not self.stop.is_set():
            await asyncio.sleep(0.1)
        await nc.close()

    def __enter__(self) -> Liar:
        self.thread.start()
        assert self.ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(10)


def _discover(cwd: Path, *args: str, timeout: float = 60) -> tuple[int, str, str, float]:
    code = "import sys; from jsops.reconciler.cli.discover import main; sys.exit(main(sys.argv[1:]))"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        # the import path this run has (a worktree's view of jsops first), then the repository's
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(REPO)) if p),
            "HOME": str(cwd),
        },
    )
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started


def _monitor_id(cluster: Cluster, i: int) -> str:
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{cluster.http[i]}/varz", timeout=5) as resp:
        return str(json.loads(resp.read())["server_id"])


def test_real_servers_are_written_with_their_tags(cluster: Cluster, tmp_path: Path) -> None:
    rc, out, err, _ = _discover(
        tmp_path, "-s", cluster.url(), "--monitor", f"http://127.0.0.1:{cluster.http[0]}", "--write"
    )
    assert rc == 0, out + err
    servers = load_config(str(tmp_path / ".jsops.yaml"), search=False).target.servers
    assert [(s.name, s.cluster, s.tags) for s in servers or ()] == [(f"n{i}", "C1", (f"az:{i}",)) for i in (1, 2, 3)]


def test_answers_from_other_clients_are_not_believed_and_the_collection_ends(cluster: Cluster, tmp_path: Path) -> None:
    fake = [
        {
            "server": {"id": f"NFAKE{i}", "name": f"evil{i}"},
            "data": {"server_id": f"NFAKE{i}", "server_name": f"evil{i}", "cluster": {"name": "C1"}, "tags": ["az:9"]},
        }
        for i in range(3)
    ]
    monitor = f"http://127.0.0.1:{cluster.http[0]}"
    with Liar(cluster.url(1), fake):  # answers every 0.5 s, for ever
        rc, out, err, took = _discover(tmp_path, "-s", cluster.url(), "--monitor", monitor, "--write")
    assert rc == 0, out + err
    assert took < 30  # the collection's deadline is 3 s
    assert "VARZ answer(s) did not come from a server of the connected cluster and were left out" in err
    text = (tmp_path / ".jsops.yaml").read_text()
    assert "evil" not in text and "az:9" not in text
    servers = load_config(str(tmp_path / ".jsops.yaml"), search=False).target.servers
    assert [s.name for s in servers or ()] == ["n1", "n2", "n3"]

    # a liar answering in the name of a real server (its id, from the monitor) is caught: two answers
    # for one server, and nothing about servers is written
    n2 = _monitor_id(cluster, 1)
    forged = [
        {
            "server": {"id": n2, "name": "n2"},
            "data": {"server_id": n2, "server_name": "n2", "cluster": {"name": "C1"}, "tags": ["az:9"]},
        }
    ]
    (tmp_path / ".jsops.yaml").unlink()
    with Liar(cluster.url(2), forged):
        rc, out, err, took = _discover(tmp_path, "-s", cluster.url(), "--monitor", monitor, "--write")
    assert rc == 0, out + err
    assert "answered more than once" in err and took < 30
    assert load_config(str(tmp_path / ".jsops.yaml"), search=False).target.servers is None
    assert "az:9" not in (tmp_path / ".jsops.yaml").read_text()


def test_without_a_monitor_servers_are_left_out(cluster: Cluster, tmp_path: Path) -> None:
    fake = [{"server": {"id": "NFAKE", "name": "evil"}, "data": {"server_id": "NFAKE", "tags": ["az:9"]}}]
    with Liar(cluster.url(1), fake):
        rc, out, err, took = _discover(tmp_path, "-s", cluster.url(), "--write")
    assert rc == 0, out + err
    assert "can be checked only against the server's monitoring endpoint (--monitor)" in err
    config = load_config(str(tmp_path / ".jsops.yaml"), search=False)
    assert config.target.servers is None and config.target.cluster_name == "C1"
    assert took < 30


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ({"version": "2.15.1\nservers: [evil]"}, "the release '2.15.1\\nservers: [evil]'"),
        ({"version": "2.15.1", "cluster": "C1\nx", "connect_urls": ["a:1", "b:1"]}, "the cluster name 'C1\\nx'"),
        ({"version": "2.15.1", "max_payload": 1 << 40}, "max_payload 1099511627776"),
    ],
)
def test_implausible_facts_are_not_written(tmp_path: Path, info: dict[str, Any], expected: str) -> None:
    def answer(subject: str, payload: bytes) -> Any:
        return {"limits": {}} if subject == "$JS.API.INFO" else None

    (tmp_path / ".jsops.yaml").write_text("# ours\n")
    with FakeNats(answer, info=info) as fake:
        rc, out, err, _ = _discover(tmp_path, "-s", fake.url, "--write")
    assert rc == 1, out + err
    assert expected in err and "not plausible; nothing was written" in err, err
    assert "internal error" not in err and [ln for ln in err.splitlines() if "error" in ln] == [
        err.strip().splitlines()[-1]
    ]
    assert (tmp_path / ".jsops.yaml").read_text() == "# ours\n"


SAID = "the server's INFO (what it tells every client on connect) is malformed: "


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        (
            {"max_payload": "1MB"},
            "max_payload is a string, expected an integer",
        ),  # was "'>' not supported between 'int' and 'str'"
        ({"max_payload": None}, "max_payload is null, expected an integer"),
        ({"max_payload": True}, "max_payload is a boolean, expected an integer"),
        ({"version": 2}, "version is an integer, expected a string"),  # was written as no release at all
        ({"version": None}, "version is null, expected a string"),
        ({"cluster": 5, "connect_urls": ["a:1"]}, "cluster is an integer, expected a string"),
        ({"cluster": "C1", "connect_urls": "a:1"}, "connect_urls is a string, expected a list"),
        ({"cluster": "C1", "connect_urls": ["a:1", 2]}, "connect_urls[1] is an integer, expected a string"),
        ({"jetstream": "yes"}, "jetstream is a string, expected a boolean"),
        ({"server_id": ["N"]}, "server_id is a list, expected a string"),
    ],
)
def test_an_info_of_odd_types_names_the_field_and_what_was_expected(
    tmp_path: Path, info: dict[str, Any], expected: str
) -> None:
    """The server's INFO is checked against its declared shape (``answers.SERVER_INFO``) as the client
    connects, before any request: ``discover`` says which key is of which wrong type, in one line,
    and writes nothing."""

    def answer(subject: str, payload: bytes) -> Any:
        return {"limits": {}} if subject == "$JS.API.INFO" else None

    (tmp_path / ".jsops.yaml").write_text("# ours\n")
    with FakeNats(answer, info=info) as fake:
        rc, out, err, _ = _discover(tmp_path, "-s", fake.url, "--write")
    assert rc == 1, out + err
    assert SAID + expected in err, err
    assert "Traceback" not in err and "not supported between" not in err and len(err.strip().splitlines()) == 1, err
    assert (tmp_path / ".jsops.yaml").read_text() == "# ours\n"


def test_plan_refuses_an_info_of_odd_types_too(tmp_path: Path) -> None:
    """The check is the client's: every command connecting to such a server says the same."""
    from .helpers import manifest, run

    with FakeNats(lambda subject, payload: None, info={"max_payload": "1MB"}) as fake:
        manifest(
            tmp_path / "m", "a.yaml", "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n"
        )
        rc, out, err = run("plan", str(tmp_path / "m"), "--server", fake.url)
    assert rc == 1 and SAID + "max_payload is a string, expected an integer" in err, out + err
    assert fake.requests == []  # refused before any request


@pytest.mark.parametrize(
    ("endpoint", "body", "expected"),
    [
        (
            "/varz",
            {"server_id": "NFAKE", "jetstream": {"limits": {"max_ack_pending": "100"}}},
            "jetstream.limits.max_ack_pending is a string, expected an integer",
        ),
        ("/varz", {"server_id": "NFAKE", "tags": "az:1"}, "tags is a string, expected a list"),
    ],
)
def test_a_monitor_answer_of_odd_types_names_the_field(
    tmp_path: Path, endpoint: str, body: dict[str, Any], expected: str
) -> None:
    """The monitoring endpoints' answers are checked the same way (``answers.MONITOR_SHAPES``)."""
    from fakeservers import FakeHttp

    def behave(path: str, wfile: Any) -> None:
        data = json.dumps(body if path == endpoint else {}).encode()
        wfile.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(data) + data
        )

    def answer(subject: str, payload: bytes) -> Any:
        return {"limits": {}} if subject == "$JS.API.INFO" else None

    with FakeNats(answer, info={"server_id": "NFAKE"}) as fake, FakeHttp(behave) as http:
        rc, out, err, _ = _discover(tmp_path, "-s", fake.url, "--monitor", http.url)
    assert rc == 1, out + err
    assert f"the server's answer to {endpoint} is malformed: {expected}" in err, err
    assert "Traceback" not in err
