"""The plan's lint gate judges the objects the plan acts on (issue 14, Speed): a plan without
changes runs no rule, an error of an object the plan leaves alone refuses nothing, an error of one
it changes refuses the run; the loader's errors refuse every plan (an object that did not load is
in no plan, and ``--prune`` would delete it); without a server the manifests' errors come first."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsops.linter.findings import Finding, ObjectRef, Severity
from jsops.reconciler.plan import Blocked, Intent, Plan, PlanItem
from jsops.reconciler.plan.migration_spec import MigrationSpec
from jsops.reconciler.preflight import GateFindings, judged
from jsops.reconciler.vocabulary import ActionKind

from .helpers import Js, NatsServer, free_port_url, manifest, run
from .records import consumer_record, stream_record

STREAM = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: S}
spec: {subjects: ["s.>"]}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: c, stream: S}
spec: {ack_policy: explicit, max_deliver: 3%s}
"""
OTHER = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: T}
spec: {subjects: ["t.>"]%s}
"""
# JS406 (a consumer with max_deliver and no dead-letter handling) is advice; this config makes it an error.
STRICT = "severity:\n  JS406: error\n"


@pytest.mark.integration
def test_errors_count_for_the_objects_the_plan_acts_on(server: NatsServer, js: Js, tmp_path: Path) -> None:
    d = tmp_path / "m"
    manifest(d, "s.yaml", STREAM % "")
    manifest(d, "t.yaml", OTHER % "")
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    (tmp_path / "strict.yaml").write_text(STRICT)
    strict = ("--server", server.url, "--config", str(tmp_path / "strict.yaml"))
    rc, out, err = run("plan", str(d), *strict)
    assert rc == 0 and out.startswith("No changes."), out + err  # consumer c is left alone: its error refuses nothing
    manifest(d, "t.yaml", OTHER % ", max_age: 1h")
    rc, out, err = run("plan", str(d), *strict)
    assert rc == 2 and "~ Stream T" in out, out + err  # an update of T; c still left alone
    manifest(d, "s.yaml", STREAM % ", ack_wait: 1m")
    rc, out, err = run("apply", str(d), *strict, "--yes")
    assert rc == 1 and "s.yaml:" in err and "JS406" in err and "`jsops lint" in err, out + err
    assert js.consumer("S", "c")["config"]["ack_wait"] == 30_000_000_000  # type: ignore[index]  # nothing was sent
    assert js.stream("T")["config"]["max_age"] == 0  # type: ignore[index]  # not even for T


@pytest.mark.integration
def test_the_loaders_errors_refuse_a_plan_without_changes(server: NatsServer, js: Js, tmp_path: Path) -> None:
    d = tmp_path / "m"
    manifest(d, "s.yaml", STREAM % "")
    manifest(d, "t.yaml", OTHER % "")
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    manifest(d, "t.yaml", OTHER % ", max_agee: 1h")  # T no longer loads: with --prune it would be deleted
    rc, out, err = run("apply", str(d), "--server", server.url, "--prune", "--yes")
    assert rc == 1 and "t.yaml:" in err and "JS005" in err and "max_agee" in err, out + err
    assert js.streams() == ["S", "T"]


def test_without_a_server_every_error_comes_before_the_connection_error(tmp_path: Path) -> None:
    d = tmp_path / "m"
    manifest(d, "s.yaml", STREAM % "")
    (tmp_path / "strict.yaml").write_text(STRICT)
    rc, out, err = run("plan", str(d), "--server", free_port_url(), "--config", str(tmp_path / "strict.yaml"))
    assert rc == 1 and "JS406" in err and "lint error(s)" in err and "cannot connect" not in err, err
    rc, out, err = run("plan", str(d), "--server", free_port_url())
    assert rc == 1 and "cannot connect" in err, err


def _error(rule: str, kind: str, name: str, stream: str | None = None) -> Finding:
    return Finding(rule, rule, Severity.ERROR, "m", "m.yaml", 1, 1, ObjectRef(kind, name, stream), 10000)


def test_judged_keeps_the_errors_of_what_the_plan_does() -> None:
    migrate = Intent(
        ActionKind.MIGRATE,
        "Stream",
        "NEW",
        None,
        [],
        None,
        stream_record({"name": "NEW"}),
        migration=MigrationSpec("OLD", "NEW", consumers={"w": consumer_record({"durable_name": "w"})}),
    )
    update = Intent(ActionKind.UPDATE, "Stream", "U", None, [], None, stream_record({"name": "U"}))
    blocked = Intent(ActionKind.CREATE, "Stream", "B", None, [], None, stream_record({"name": "B"}))
    plan = Plan("nats://x:1", "fp", [PlanItem(migrate), PlanItem(update), PlanItem(blocked, Blocked("no"))])
    found = GateFindings(
        errors=[
            _error("JS101", "Stream", "U"),
            _error("JS101", "Stream", "IDLE"),
            _error("JS005", "Stream", "GONE"),
            _error("JS201", "Consumer", "w", "NEW"),
        ],
        create_only=[
            _error("JS114", "Stream", "U"),
            _error("JS114", "Stream", "B"),
            _error("JS212", "Consumer", "w", "NEW"),
        ],
    )
    kept = [(f.rule, str(f.object)) for f in judged(found, plan)]
    assert sorted(kept) == sorted(
        [
            ("JS101", "Stream U"),  # updated
            ("JS005", "Stream GONE"),  # the loader's: always
            ("JS201", "Consumer NEW/w"),
            ("JS212", "Consumer NEW/w"),  # the migration creates its consumers
            ("JS114", "Stream B"),  # blocked creates are judged as creates
        ]
    )


def test_gate_lines_are_lint_lines_once_each() -> None:
    """The lint gate prints each refusal as `jsops lint` does, and a template line repeated for each object
    it renders once."""
    from jsops.linter.findings import Finding, Severity
    from jsops.reconciler.cli.plans import _error_lines

    f = Finding(
        "JS315",
        "target-stream-replicas-unsupported",
        Severity.ERROR,
        "num_replicas 3 on a standalone server",
        "s.yaml.j2",
        7,
        16,
        None,
        10074,
    )
    text = _error_lines([f, f, f])
    assert (
        text
        == "s.yaml.j2:7:16: error JS315 num_replicas 3 on a standalone server [target-stream-replicas-unsupported] (nats-server err_code 10074)"
    )
