"""``jsops controller`` against a real nats-server: converge, heal drift, reject lint-error
revisions, dry-run, annotation policy, the HTTP endpoints and the metrics."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .helpers import Js, NatsServer, manifest, writes
from .test_controller_helpers import STREAM_YAML, Running, get, parse_prometheus, sample, wait_for

pytestmark = pytest.mark.integration

GOLDEN = Path(__file__).parent / "golden" / "controller_metrics_help.txt"


def _max_age(js: Js, name: str) -> int | None:
    info = js.stream(name)
    return None if info is None else int(info["config"]["max_age"])


def test_converges_and_heals_drift(server: NatsServer, js: Js, tmp_path: Path) -> None:
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    with Running([str(tmp_path / "m")], server.url) as ctl:
        wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the estate to be created")
        wait_for(lambda: sample(ctl.metrics(), "jsops_controller_ready") == 1, what="ready")
        assert get(ctl.port, "/readyz")[0] == 200

        # deleted behind its back
        js.ok("$JS.API.CONSUMER.DELETE.ORDERS.shipper")
        wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the consumer to come back")
        # a field changed behind its back
        cfg = js.stream("ORDERS")["config"]  # type: ignore[index]
        js.ok("$JS.API.STREAM.UPDATE.ORDERS", {**cfg, "max_age": 7_200_000_000_000})
        wait_for(lambda: _max_age(js, "ORDERS") == 3_600_000_000_000, what="max_age to be healed")
        # the whole stream deleted
        js.ok("$JS.API.STREAM.DELETE.ORDERS")
        wait_for(
            lambda: js.stream("ORDERS") and js.consumer("ORDERS", "shipper"), what="stream and consumer to come back"
        )

        ctl.settle()
        m = ctl.metrics()
        assert sample(m, "jsops_controller_drift_objects", context="default") == 0
        assert (
            sample(
                m,
                "jsops_controller_object_sync_state",
                context="default",
                kind="Stream",
                stream="",
                name="ORDERS",
                state="synced",
            )
            == 1
        )
        assert (
            sample(
                m,
                "jsops_controller_object_sync_state",
                context="default",
                kind="Consumer",
                stream="ORDERS",
                name="shipper",
                state="synced",
            )
            == 1
        )
        assert (
            sample(m, "jsops_controller_actions_total", context="default", action="create", status="done") or 0
        ) >= 5
        assert (
            sample(m, "jsops_controller_actions_total", context="default", action="update", status="done") or 0
        ) >= 1
        healed = {e["object"] for e in ctl.events("action") if e["status"] == "done"}
        assert healed == {"Stream ORDERS", "Consumer ORDERS/shipper"}
    assert ctl.code == 0


def test_lint_error_revision_is_not_applied(server: NatsServer, js: Js, tmp_path: Path) -> None:
    path = manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    with Running([str(tmp_path / "m")], server.url) as ctl:
        wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the estate to be created")
        good = ctl.controller.current.id
        # a new revision that changes max_age but also has a lint error (JS102: duplicate_window > max_age)
        path.write_text(STREAM_YAML.replace("max_age: 1h", "max_age: 2h\n  duplicate_window: 3h"))
        wait_for(
            lambda: sample(ctl.metrics(), "jsops_controller_revision_rejected") == 1, what="the revision to be rejected"
        )
        rejected = ctl.events("revision_rejected")
        assert len(rejected) == 1 and rejected[0]["in_force"] == good
        assert any("JS102" in f and "orders.yaml" in f for f in rejected[0]["findings"])
        m = ctl.metrics()
        assert sample(m, "jsops_controller_lint_errors") == 1
        assert sample(m, "jsops_controller_errors_total", context="", type="lint", err_code="") == 1
        assert sample(m, "jsops_controller_revision_info", revision=good) == 1

        # the last good revision stays in force: its max_age, and drift is still healed
        js.ok("$JS.API.CONSUMER.DELETE.ORDERS.shipper")
        wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the consumer to come back")
        assert _max_age(js, "ORDERS") == 3_600_000_000_000
        assert len(ctl.events("revision_rejected")) == 1  # reported once per revision, not every round

        # fixed: the new revision is applied
        path.write_text(STREAM_YAML.replace("max_age: 1h", "max_age: 2h"))
        wait_for(lambda: _max_age(js, "ORDERS") == 7_200_000_000_000, what="the fixed revision to be applied")
        assert sample(ctl.metrics(), "jsops_controller_revision_rejected") == 0


def test_dry_run_changes_nothing(server: NatsServer, js: Js, tmp_path: Path) -> None:
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    with Running([str(tmp_path / "m")], server.url, dry_run=True, lease=True) as ctl:
        wait_for(lambda: ctl.rounds() >= 3 and ctl.controller.ready, what="three rounds")
        m = ctl.metrics()
        assert sample(m, "jsops_controller_drift_objects", context="default") == 2
        assert (
            sample(
                m,
                "jsops_controller_object_sync_state",
                context="default",
                kind="Stream",
                stream="",
                name="ORDERS",
                state="out_of_sync",
            )
            == 1
        )
        assert sample(m, "jsops_controller_leader", context="default") == 0
        assert {e["object"] for e in ctl.events("change")} == {"Stream ORDERS", "Consumer ORDERS/shipper"}
        assert ctl.events("action") == []
    assert js.streams() == []  # nothing created, not even the lease bucket


def test_once_exit_codes(server: NatsServer, js: Js, tmp_path: Path) -> None:
    from jsops.reconciler.controller.cli import main

    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    common = [
        str(tmp_path / "m"),
        "--server",
        server.url,
        "--listen",
        "none",
        "--once",
        "--log-file",
        str(tmp_path / "log"),
    ]
    assert main([*common, "--dry-run"]) == 2  # drift found, nothing changed
    assert js.streams() == []
    assert main([*common]) == 0  # takes the lease, applies in its one round, releases the lease
    assert js.consumer("ORDERS", "shipper") is not None
    assert main([*common, "--dry-run"]) == 0
    assert main([*common, "--no-lease"]) == 0
    assert main([str(tmp_path / "nope"), "--once"]) == 2


def test_recreate_needs_annotation(server: NatsServer, js: Js, tmp_path: Path) -> None:
    path = manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    with Running([str(tmp_path / "m")], server.url) as ctl:
        wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the estate to be created")
        js.publish("orders.new", 3)
        # storage file -> memory needs a recreate: blocked without the annotation
        path.write_text(STREAM_YAML.replace("max_age: 1h", "max_age: 1h\n  storage: memory"))
        wait_for(
            lambda: (
                sample(ctl.metrics(), "jsops_controller_blocked_objects", context="default", needs="allow-recreate")
                == 1
            ),
            what="blocked",
        )
        assert (
            sample(
                ctl.metrics(),
                "jsops_controller_object_sync_state",
                context="default",
                kind="Stream",
                stream="",
                name="ORDERS",
                state="blocked",
            )
            == 1
        )
        # allowed to recreate, but it holds messages: still blocked, now on data loss
        path.write_text(
            path.read_text().replace(
                "  name: ORDERS\n", '  name: ORDERS\n  annotations:\n    jsops.io/allow-recreate: "true"\n', 1
            )
        )
        wait_for(
            lambda: (
                sample(ctl.metrics(), "jsops_controller_blocked_objects", context="default", needs="allow-data-loss")
                == 1
            ),
            what="blocked on data loss",
        )
        assert js.stream("ORDERS")["config"]["storage"] == "file"  # type: ignore[index]
        assert js.stream("ORDERS")["state"]["messages"] == 3  # type: ignore[index]
        # both annotations: recreated (messages lost, consumer created again)
        path.write_text(
            path.read_text().replace(
                'jsops.io/allow-recreate: "true"\n',
                'jsops.io/allow-recreate: "true"\n    jsops.io/allow-data-loss: "true"\n',
                1,
            )
        )
        wait_for(lambda: (js.stream("ORDERS") or {}).get("config", {}).get("storage") == "memory", what="recreate")
        wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the consumer to be created again")
        assert js.stream("ORDERS")["state"]["messages"] == 0  # type: ignore[index]


def test_prune_needs_annotation(server: NatsServer, js: Js, tmp_path: Path) -> None:
    keep = STREAM_YAML
    extra = """
apiVersion: jsops/v1
kind: Stream
metadata:
  name: {name}
{annotations}spec:
  subjects: ["{subject}.>"]
"""
    manifest(tmp_path / "m", "orders.yaml", keep)
    manifest(tmp_path / "m", "a.yaml", extra.format(name="OLD_A", subject="a", annotations=""))
    manifest(
        tmp_path / "m",
        "b.yaml",
        extra.format(name="OLD_B", subject="b", annotations='  annotations:\n    jsops.io/allow-prune: "true"\n'),
    )
    with Running([str(tmp_path / "m")], server.url) as ctl:
        wait_for(
            lambda: js.stream("OLD_A") and js.stream("OLD_B") and js.consumer("ORDERS", "shipper"), what="creation"
        )
        assert js.stream("OLD_B")["config"]["metadata"]["io.jsops.allow-prune"] == "true"  # type: ignore[index]
        os.remove(tmp_path / "m" / "a.yaml")
        os.remove(tmp_path / "m" / "b.yaml")
        wait_for(lambda: js.stream("OLD_B") is None, what="OLD_B to be pruned")
        wait_for(
            lambda: (
                sample(ctl.metrics(), "jsops_controller_blocked_objects", context="default", needs="allow-prune") == 1
            ),
            what="OLD_A blocked",
        )
        assert js.stream("OLD_A") is not None
        wait_for(
            lambda: (
                sample(
                    ctl.metrics(), "jsops_controller_actions_total", context="default", action="delete", status="done"
                )
                == 1
            ),
            what="the delete counted",
        )
        ctl.settle()
        assert (
            sample(ctl.metrics(), "jsops_controller_actions_total", context="default", action="delete", status="done")
            == 1
        )


def test_endpoints_while_the_server_is_down(tmp_path: Path) -> None:
    from natsserver import free_port

    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    with Running([str(tmp_path / "m")], f"nats://127.0.0.1:{free_port()}") as ctl:
        # rounds() counts rounds as they start: wait for two to have ended (and been counted)
        wait_for(
            lambda: (sample(ctl.metrics(), "jsops_controller_reconcile_total", result="error") or 0) >= 2,
            what="two rounds",
        )
        assert get(ctl.port, "/healthz") == (200, "ok\n")
        code, body = get(ctl.port, "/readyz")
        assert code == 503 and "not ready" in body
        assert get(ctl.port, "/nope")[0] == 404
        m = ctl.metrics()
        assert sample(m, "jsops_controller_ready") == 0
        assert (sample(m, "jsops_controller_errors_total", context="default", type="connection", err_code="") or 0) >= 2
        assert (sample(m, "jsops_controller_reconcile_total", result="error") or 0) >= 2
        assert sample(m, "jsops_controller_last_success_timestamp_seconds") == 0


def test_metrics_golden_and_format(server: NatsServer, tmp_path: Path) -> None:
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    with Running([str(tmp_path / "m")], server.url) as ctl:
        wait_for(lambda: ctl.controller.ready, what="ready")
        code, text = get(ctl.port, "/metrics")
    assert code == 200
    parsed = parse_prometheus(text)
    assert sample(parsed, "jsops_controller_reconcile_duration_seconds_bucket", le="+Inf") == sample(
        parsed, "jsops_controller_reconcile_duration_seconds_count"
    )
    assert (sample(parsed, "jsops_controller_last_success_timestamp_seconds") or 0) > 1.7e9
    help_lines = "".join(line + "\n" for line in text.splitlines() if line.startswith("# "))
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(help_lines)
    assert help_lines == GOLDEN.read_text(), f"{GOLDEN.name} differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1"


def test_git_pulls_before_each_round(server: NatsServer, js: Js, tmp_path: Path) -> None:
    import subprocess

    def git(cwd: Path, *args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", *args],
            cwd=cwd,
            check=True,
            capture_output=True,
        )

    (tmp_path / "origin.git").mkdir()
    git(tmp_path / "origin.git", "init", "--bare", "-q")
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), "author")
    manifest(tmp_path / "author", "orders.yaml", STREAM_YAML)
    git(tmp_path / "author", "add", "orders.yaml")
    git(tmp_path / "author", "commit", "-q", "-m", "one")
    git(tmp_path / "author", "push", "-q", "origin", "HEAD")
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), "watched")
    with Running([str(tmp_path / "watched")], server.url, git=True) as ctl:
        wait_for(lambda: _max_age(js, "ORDERS") == 3_600_000_000_000, what="the first commit to be applied")
        (tmp_path / "author" / "orders.yaml").write_text(STREAM_YAML.replace("max_age: 1h", "max_age: 2h"))
        git(tmp_path / "author", "commit", "-q", "-am", "two")
        git(tmp_path / "author", "push", "-q", "origin", "HEAD")
        wait_for(lambda: _max_age(js, "ORDERS") == 7_200_000_000_000, what="the pushed commit to be pulled and applied")
        revisions = [e["revision"] for e in ctl.events("revision_accepted")]
        assert len(revisions) == 2 and all(r.startswith("git:") for r in revisions)
        assert ctl.events("error") == []


def test_env_renders_templates(server: NatsServer, js: Js, tmp_path: Path) -> None:
    template = STREAM_YAML.replace("max_age: 1h", "max_age: {{ retention }}")
    manifest(tmp_path / "m", "orders.yaml.j2", template)
    values = manifest(tmp_path / "m" / "environments", "dev.yaml", "retention: 1h\n")
    with Running([str(tmp_path / "m")], server.url, env="dev") as ctl:
        wait_for(lambda: _max_age(js, "ORDERS") == 3_600_000_000_000, what="the rendered template to be applied")
        values.write_text("retention: 2h\n")  # a values change is a manifest change
        wait_for(lambda: _max_age(js, "ORDERS") == 7_200_000_000_000, what="the new values to be applied")
        assert ctl.events("error") == []


def test_server_refusals_are_predicted_and_counted_by_err_code(
    server: NatsServer, js: Js, tmp_path: Path, sent: list[str]
) -> None:
    """The desired stream overlaps a live unmanaged stream: the controller's preflight (the one
    ``jsops apply`` runs) refuses it and its consumer before any request, and reports the err_code
    the server would answer (10065) as it reported the refusal itself: the error counted and
    logged every round, the object in state ``error``, the round failed."""
    js.ok("$JS.API.STREAM.CREATE.FOREIGN", {"name": "FOREIGN", "subjects": ["orders.>"], "storage": "memory"})
    foreign = js.stream("FOREIGN")["config"]  # type: ignore[index]
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    with Running([str(tmp_path / "m")], server.url) as ctl:
        wait_for(
            lambda: (
                (
                    sample(
                        ctl.metrics(), "jsops_controller_errors_total", context="default", type="api", err_code="10065"
                    )
                    or 0
                )
                >= 2
            ),
            what="the overlap refusal (10065) to be counted",
        )
        m = ctl.metrics()
        assert (
            sample(
                m,
                "jsops_controller_object_sync_state",
                context="default",
                kind="Stream",
                stream="",
                name="ORDERS",
                state="error",
            )
            == 1
        )
        assert (
            sample(
                m,
                "jsops_controller_object_sync_state",
                context="default",
                kind="Consumer",
                stream="ORDERS",
                name="shipper",
                state="blocked",
            )
            == 1
        )
        assert sample(m, "jsops_controller_ready") == 0
        assert writes(sent) == [] and ctl.events("action") == []  # nothing was sent for either
        errors = [e for e in ctl.events("error") if e["err_code"] == 10065]
        assert errors and errors[0]["type"] == "api" and errors[0]["context"] == "default", errors
        assert (
            "Stream ORDERS: the server would refuse it: subjects overlap with live stream FOREIGN"
            in errors[0]["message"]
        )
        drift = {e["object"]: e for e in ctl.events("change")}
        assert drift["Stream ORDERS"]["action"] == "blocked" and drift["Stream ORDERS"]["wanted"] == "create"
        assert drift["Stream ORDERS"]["err_code"] == 10065 and "err_code" not in drift["Consumer ORDERS/shipper"]
        assert js.streams() == ["FOREIGN"] and js.stream("FOREIGN")["config"] == foreign  # type: ignore[index]
        # the overlap is removed by hand: the controller converges on its own
        js.ok("$JS.API.STREAM.DELETE.FOREIGN")
        wait_for(lambda: js.consumer("ORDERS", "shipper"), what="convergence once the overlap is gone")
        wait_for(lambda: sample(ctl.metrics(), "jsops_controller_ready") == 1, what="ready")


def test_event_log_golden(server: NatsServer, tmp_path: Path) -> None:
    """The event log of a dry run and an apply run (one round each), with times, durations, the
    server URL, the identity and revision ids replaced by placeholders."""
    import json

    from jsops.reconciler.controller.cli import main

    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    log = tmp_path / "events.jsonl"
    common = [
        str(tmp_path / "m"),
        "--server",
        server.url,
        "--listen",
        "none",
        "--once",
        "--no-lease",
        "--identity",
        "ctl-1",
        "--log-file",
        str(log),
    ]
    assert main([*common, "--dry-run"]) == 2
    assert main(common) == 0
    placeholders = {"time": "TIME", "seconds": 0, "target": "TARGET", "revision": "REV", "in_force": "REV"}
    lines = []
    for line in log.read_text().splitlines():
        event = json.loads(line)
        for k, v in placeholders.items():
            if k in event and event[k] is not None:
                event[k] = v
        if "paths" in event:
            event["paths"] = ["M"]
        lines.append(json.dumps(event, sort_keys=True))
    out = "\n".join(lines).replace(server.url, "TARGET") + "\n"
    golden = GOLDEN.parent / "controller_events.jsonl"
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        golden.write_text(out)
    assert out == golden.read_text(), f"{golden.name} differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1"
