"""The controller builds one plan per round and judges it once (issue 23, "plan, then authorize"),
against a real nats-server: the plan it reports names the annotations a blocked change needs, and
the same change the annotations allow is applied from that one plan."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jsops.reconciler.client import Target
from jsops.reconciler.controller.loop import Controller, ControllerOptions
from jsops.reconciler.plan import build

from .helpers import Js, NatsServer, manifest
from .test_controller_helpers import STREAM_YAML

pytestmark = pytest.mark.integration

ANNOTATED = STREAM_YAML.replace(
    "  name: ORDERS\n", '  name: ORDERS\n  annotations:\n    jsops.io/allow-recreate: "true"\n', 1
)


class _Sink:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, event: str, **fields: Any) -> None:
        self.events.append({"event": event, **fields})


def test_one_plan_per_round(server: NatsServer, js: Js, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builds = [0]
    real = build._Run

    class Counted(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            builds[0] += 1
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(build, "_Run", Counted)  # every plan is built through one _Run
    path = manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    log = _Sink()
    ctl = Controller(
        ControllerOptions(paths=[str(tmp_path / "m")], listen=None, lease=False, interval=0.1),
        Target(servers=(server.url,)),
        log=log,
    )  # type: ignore[arg-type]
    try:
        assert ctl.round() and builds[0] == 1  # creates
        assert js.consumer("ORDERS", "shipper")

        path.write_text(STREAM_YAML.replace("max_age: 1h", "max_age: 1h\n  storage: memory"))  # a recreate, not allowed
        builds[0] = 0
        ctl.round()
        assert builds[0] == 1
        drift = [e for e in log.events if e["event"] == "change" and e["object"] == "Stream ORDERS"]
        assert (
            drift[-1]["action"] == "blocked"
            and drift[-1]["reason"] == 'needs the annotation jsops.io/allow-recreate: "true" on its manifest'
        )
        assert js.stream("ORDERS")["config"]["storage"] == "file"  # type: ignore[index]

        path.write_text(ANNOTATED.replace("max_age: 1h", "max_age: 1h\n  storage: memory"))  # now allowed
        builds[0] = 0
        assert ctl.round() and builds[0] == 1
        assert js.stream("ORDERS")["config"]["storage"] == "memory"  # type: ignore[index]
        assert js.consumer("ORDERS", "shipper")  # created again with its stream
    finally:
        ctl.close()


def test_a_new_revision_is_a_change_and_a_hand_edit_is_drift(server: NatsServer, js: Js, tmp_path: Path) -> None:
    """The manifests' own change is logged as ``change``; the server's object departing from a manifest that
    stayed the same is ``drift``; neither event carries fields without a value."""
    path = manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    log = _Sink()
    ctl = Controller(
        ControllerOptions(paths=[str(tmp_path / "m")], listen=None, lease=False, interval=0.1),
        Target(servers=(server.url,)),
        log=log,
    )  # type: ignore[arg-type]

    def events(kind: str) -> list[dict[str, Any]]:
        found = [e for e in log.events if e["event"] == kind and e["object"] == "Stream ORDERS"]
        log.events.clear()
        return found

    try:
        assert ctl.round()
        assert [e["action"] for e in events("change")] == ["create"]

        path.write_text(STREAM_YAML.replace("max_age: 1h", "max_age: 2h"))
        assert ctl.round()
        changed = events("change")
        assert [(e["action"], e["changes"]) for e in changed] == [("update", ["max_age"])]
        assert all(v is not None for v in changed[0].values()), changed

        config = js.stream("ORDERS")["config"]  # type: ignore[index]
        js.ok("$JS.API.STREAM.UPDATE.ORDERS", {**config, "max_age": 3 * 3600 * 10**9})  # by hand
        assert ctl.round()
        drifted = events("drift")
        assert [(e["action"], e["changes"]) for e in drifted] == [("update", ["max_age"])]
        assert all(v is not None for v in drifted[0].values()), drifted
        assert js.stream("ORDERS")["config"]["max_age"] == 2 * 3600 * 10**9  # type: ignore[index]
    finally:
        ctl.close()
