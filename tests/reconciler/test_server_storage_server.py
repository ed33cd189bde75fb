"""Plan refuses a stream the standalone server's own JetStream storage cannot hold (issue 35 item 12).

A stream create whose ``max_bytes`` x replicas does not fit the server's ``max_file_store`` (``max_mem_store``
for a memory stream) beside what its streams reserve is refused by nats-server with 10047 (10028); the
account's limits may well be unlimited. With ``--monitor`` the plan reads the server's storage from ``/varz``
and blocks the create with the server's code before any request, on every supported release; the controller
reads it the same way when its target names a monitor URL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from natsserver import NatsServer, release_binary

from jsops.linter.semantics.releases import SUPPORTED
from jsops.reconciler.client import Target
from jsops.reconciler.controller.loop import Controller, ControllerOptions

from .helpers import Js, manifest, run

pytestmark = pytest.mark.integration

ESTATE = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: BIG}
spec: {subjects: ["big.>"], max_bytes: 100TiB, max_age: 1h}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: HALF_A}
spec: {subjects: ["a.>"], max_bytes: 600MB, max_age: 1h}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: HALF_B}
spec: {subjects: ["b.>"], max_bytes: 600MB, max_age: 1h}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: RAM}
spec: {subjects: ["ram.>"], storage: memory, max_bytes: 1GiB, max_age: 1h}
"""


def _blocked(plan: dict[str, object]) -> dict[str, int | None]:
    actions = plan["actions"]
    assert isinstance(actions, list)
    return {a["object"]["name"]: a.get("err_code") for a in actions if a["action"] == "blocked"}


@pytest.mark.parametrize("version", SUPPORTED)
def test_plan_refuses_what_the_server_storage_cannot_hold(version: str, tmp_path: Path) -> None:
    binary = release_binary(version)
    if binary is None:
        pytest.skip(f"nats-server {version} was not fetched at install (.ci/fetch-nats-servers)")
    manifest(tmp_path, "streams.yaml", ESTATE)
    with NatsServer(binary=binary, monitor=True) as server:  # max_file_store 1GiB, max_mem_store 256MiB
        monitor = f"http://127.0.0.1:{server.monitor_port}"
        rc, out, err = run("plan", str(tmp_path), "--server", server.url, "--format", "json")
        assert rc == 2 and _blocked(json.loads(out)) == {}, out + err  # without --monitor: not known
        rc, out, err = run("plan", str(tmp_path), "--server", server.url, "--monitor", monitor, "--format", "json")
        assert rc == 2, out + err
        # HALF_A fits; HALF_B not beside it; RAM is memory storage
        assert _blocked(json.loads(out)) == {"BIG": 10047, "HALF_B": 10047, "RAM": 10028}
        rc, out, err = run("plan", str(tmp_path), "--server", server.url, "--monitor", monitor)
        assert (
            "! Stream BIG  (blocked create: the server would refuse it: the server's JetStream file storage "
            "(max_file_store) is 1GiB, none of it reserved; this stream needs 100TiB (max_bytes x replicas) "
            "(err_code 10047); nothing is sent for it)"
        ) in out, out
        # the server answers as predicted
        js = Js(server.url)
        try:
            for name, body, code in (
                ("BIG", {"max_bytes": 100 * 2**40}, 10047),
                ("HALF_A", {"max_bytes": 600 * 10**6}, None),
                ("HALF_B", {"max_bytes": 600 * 10**6}, 10047),
                ("RAM", {"max_bytes": 2**30, "storage": "memory"}, 10028),
            ):
                answer = js.request(f"$JS.API.STREAM.CREATE.{name}", {"name": name, "subjects": [f"{name}.>"], **body})
                assert (answer.get("error") or {}).get("err_code") == code, (name, answer)
        finally:
            js.close()
        # HALF_A now holds its reservation: a plan of the rest still blocks HALF_B
        rc, out, err = run("plan", str(tmp_path), "--server", server.url, "--monitor", monitor, "--format", "json")
        assert _blocked(json.loads(out)).get("HALF_B") == 10047, out


class _Sink:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, event: str, **fields: Any) -> None:
        self.events.append({"event": event, **fields})


def test_controller_refuses_what_the_server_storage_cannot_hold(tmp_path: Path) -> None:
    """The controller reads the server's storage as ``jsops plan --monitor`` does when its target names a
    monitor URL: the create that cannot fit is an error of the round with 10047 and nothing is sent for it;
    the others are created."""
    manifest(tmp_path / "m", "streams.yaml", ESTATE)
    with NatsServer(monitor=True) as server:  # max_file_store 1GiB, max_mem_store 256MiB
        log = _Sink()
        target = Target(servers=(server.url,), monitor=f"http://127.0.0.1:{server.monitor_port}")
        ctl = Controller(
            ControllerOptions(paths=[str(tmp_path / "m")], listen=None, lease=False, interval=0.1), target, log=log
        )  # type: ignore[arg-type]
        js = Js(server.url)
        try:
            assert not ctl.round()  # refused creates: the round is not clean
            errors = {e["message"].split(":")[0]: e["err_code"] for e in log.events if e["event"] == "error"}
            assert errors == {"Stream BIG": 10047, "Stream HALF_B": 10047, "Stream RAM": 10028}, log.events
            for name in ("BIG", "HALF_B", "RAM"):  # nothing sent for them
                answer = js.request(f"$JS.API.STREAM.INFO.{name}", {})
                assert (answer.get("error") or {}).get("err_code") == 10059, (name, answer)
            assert js.stream("HALF_A")
        finally:
            js.close()
            ctl.close()
