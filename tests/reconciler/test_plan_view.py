"""How the plan reads: defaults summary, --verbose, --compact, units, colours on a terminal only,
the exit-code contract, and what an empty PATH or the config's paths give."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from jsops.reconciler.plan import PlanOptions, build_plan
from jsops.reconciler.render_refusal import reason_of
from jsops.reconciler.render_text import format_value, render_text

from .helpers import NatsServer, manifest, run
from .records import desired_of, live_stream
from .test_plan_unit import _golden, desired, live_state

ROOT = Path(__file__).resolve().parents[2]
STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: ORDERS}\nspec: {subjects: ['orders.>'], max_age: 1h, max_bytes: 1GiB}\n"


def _plan():
    return build_plan(
        desired(), live_state(), PlanOptions(prune=True, allow_recreate=True), target="nats://127.0.0.1:4222"
    )


def test_golden_verbose_compact_and_colour() -> None:
    _golden("plan_verbose.txt", render_text(_plan(), verbose=True))
    _golden("plan_compact.txt", render_text(_plan(), compact=True))
    coloured = render_text(_plan(), color=True)
    _golden("plan_color.txt", coloured)
    assert "\x1b[32m+\x1b[0m Stream NEW" in coloured and "\x1b[33m~\x1b[0m Stream ORDERS" in coloured
    assert "\x1b[31m-/+\x1b[0m Consumer ORDERS/billing" in coloured and "\x1b[31m-\x1b[0m Stream GONE" in coloured
    assert "\x1b" not in render_text(_plan())


def test_manifest_fields_are_shown_and_the_rest_summed_up() -> None:
    d = [
        desired_of(
            "Stream",
            "S",
            None,
            {
                "name": "S",
                "subjects": ["s"],
                "retention": "limits",
                "max_bytes": 1 << 30,
                "storage": "file",
                "num_replicas": 1,
            },
            "m/s.yaml",
        )
    ]
    plan = build_plan(d, live_state().__class__(), PlanOptions(), target="nats://x:1")
    text = render_text(plan, explicit={("Stream", None, "S"): frozenset({"subjects", "max_bytes"})})
    assert "+ max_bytes: 1GiB" in text and "+ subjects" in text and "retention" not in text
    assert (
        "+ 19 server defaults (--verbose lists them)" in text
    )  # every field the server stores that the manifest leaves out
    verbose = render_text(plan, explicit={("Stream", None, "S"): frozenset({"subjects", "max_bytes"})}, verbose=True)
    assert '+ retention: "limits"  (default)' in verbose and "io.jsops.managed-by" in verbose


def test_values_read_as_people_write_them() -> None:
    assert format_value("ack_wait", 30_000_000_000) == "30s"
    assert format_value("max_age", 90 * 86400 * 10**9) == "90d"
    assert format_value("ack_wait", 30) == "30ns (30 ns: a bare number is nanoseconds)"
    assert format_value("max_bytes", 1 << 30) == "1GiB" and format_value("max_bytes", -1) == "-1 (unlimited)"
    assert format_value("max_bytes", 1000) == "1000"
    assert format_value("num_replicas", 0, "Consumer") == "0 (inherits the stream's)"
    assert format_value("num_replicas", 0, "Stream") == "0"
    assert format_value("backoff", [10**9, 60 * 10**9]) == "[1s, 1m]"


@pytest.mark.integration
def test_exit_code_contract_empty_paths_and_config_paths(server: NatsServer, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", STREAM)
    rc, out, err = run("plan", "m", "-s", server.url, "--no-detailed-exitcode")
    assert rc == 0 and "1 to create" in out  # terraform: 0 with changes unless asked
    rc, out, err = run("plan", "m", "-s", server.url)  # the helper passes --detailed-exitcode
    assert rc == 2
    (tmp_path / "empty").mkdir()
    rc, out, err = run("plan", "empty", "-s", server.url)
    assert rc == 0 and "jsops: warning: no streams or consumers in empty" in err
    # no PATH: the config's paths, as lint; the config itself is never read as a manifest
    (tmp_path / ".jsops.yaml").write_text("paths: [m]\nrules: {}\n")
    rc, out, err = run("plan", "-s", server.url)
    assert rc == 2 and "+ Stream ORDERS" in out and ".jsops.yaml" not in err, err


def _tty_run(args: list[str], env: dict[str, str]) -> str:
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jsops.linter.cli.app", *args],
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=os.getcwd(),
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait()
    os.close(master)
    return b"".join(chunks).decode()


@pytest.mark.integration
def test_colours_on_a_terminal_only(server: NatsServer, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", STREAM)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "NATS_URL", "NATS_CONTEXT")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["TERM"] = "xterm"
    out = _tty_run(["plan", "m", "-s", server.url], env)
    assert "\x1b[32m+\x1b[0m Stream ORDERS" in out, out
    assert "\x1b" not in _tty_run(["plan", "m", "-s", server.url], {**env, "NO_COLOR": "1"})
    assert "\x1b" not in _tty_run(["plan", "m", "-s", server.url, "--no-color"], env)
    piped = subprocess.run(
        [sys.executable, "-m", "jsops.linter.cli.app", "plan", "m", "-s", server.url],
        env=env,
        capture_output=True,
        text=True,
    )
    assert piped.returncode == 0 and "+ Stream ORDERS" in piped.stdout and "\x1b" not in piped.stdout


@pytest.mark.integration
def test_apply_yes_prints_the_plan_once_with_progress(server: NatsServer, tmp_path: Path) -> None:
    docs = [
        STREAM.replace("ORDERS", f"S{i}").replace("orders", f"s{i}").replace(", max_bytes: 1GiB", "") for i in range(3)
    ]
    manifest(tmp_path / "m", "s.yaml", "---\n".join(docs))
    rc, out, err = run("apply", str(tmp_path / "m"), "-s", server.url, "--yes")
    assert rc == 0, out + err
    assert out.count("Stream S0") == 1 and "+ max_age" not in out  # the summary, then one line per object
    assert out.startswith("Plan: 3 to create") and "[1/3]" in out and "done     + Stream S0: created  [" in out
    assert "[3/3]" in out and "Apply: 3 done" in out


def test_export_writes_sizes_and_durations_as_people_do() -> None:
    from jsops.linter.semantics.units import parse_duration, parse_size, readable_duration, readable_size
    from jsops.reconciler.export import export_documents
    from jsops.reconciler.live import LiveConsumer, LiveState, LiveStream

    day = 86400 * 10**9
    assert [readable_duration(v) for v in (3 * day, 7 * day, 30 * 10**9, 5400 * 10**9, 250_000_000, 30, 0)] == [
        "3d",
        "1w",
        "30s",
        "1h30m",
        "250ms",
        "30ns",
        0,
    ]
    assert [readable_size(v) for v in (1 << 30, 64 << 10, 1000, -1, 0)] == ["1GiB", "64KiB", 1000, -1, 0]
    for v in (3 * day, 5400 * 10**9, 250_000_000, 30):
        assert parse_duration(readable_duration(v)) == v  # exact: jsops reads it back unchanged
    assert parse_size("1GiB") == 1 << 30
    live = LiveState()
    live.streams["S"] = LiveStream.from_json(
        {
            "name": "S",
            "subjects": ["s"],
            "max_age": 3 * day,
            "max_bytes": 1 << 30,
            "max_msg_size": -1,
            "duplicate_window": 120 * 10**9,
        }
    )
    live.consumers[("S", "c")] = LiveConsumer.from_json(
        "S", {"durable_name": "c", "ack_wait": 30 * 10**9, "backoff": [10**9, 60 * 10**9]}
    )
    docs = export_documents(live)["S.yaml"]
    assert {k: docs[0]["spec"][k] for k in ("max_age", "max_bytes", "max_msg_size", "duplicate_window")} == {
        "max_age": "3d",
        "max_bytes": "1GiB",
        "max_msg_size": -1,
        "duplicate_window": "2m",
    }
    assert docs[1]["spec"]["ack_wait"] == "30s" and docs[1]["spec"]["backoff"] == ["1s", "1m"]


def test_lint_errors_point_at_the_lint_command_that_shows_them(tmp_path: Path, monkeypatch, capsys) -> None:
    from jsops.linter.cli.app import main as jsops

    monkeypatch.chdir(tmp_path)
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "broken.yaml").write_text("age: 1m\n")
    (tmp_path / "s.yaml.j2").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: S}\nspec:\n  subjects: [s]\n  max_age: {{ age }}\n  duplicate_window: 2m\n"
    )
    rc, out, err = run("plan", ".", "--env", "broken", "--no-config")
    assert rc == 1 and "`jsops lint . --env broken --no-config` shows them" in err
    capsys.readouterr()
    assert jsops(["lint", ".", "--env", "broken", "--no-config"]) == 1  # that command does show the error
    assert "JS102" in capsys.readouterr().out


def test_a_blocked_recreate_names_every_flag_it_needs() -> None:
    from jsops.reconciler.live import LiveState

    from .test_plan_unit import OWN, stream

    live = LiveState()
    live.streams["S"] = live_stream(stream("S", metadata=dict(OWN)), messages=12)
    want = [desired_of("Stream", "S", None, stream("S", storage="memory"), "m/orders.yaml")]
    reason = lambda **kw: reason_of(build_plan(want, live, PlanOptions(**kw), target="nats://x:1").actions[0])  # noqa: E731
    lossless = (
        "; or --migrate, which moves them to the new config without loss"  # issue 21: the lossless route is named
    )
    assert reason() == "the stream holds 12 messages; needs --allow-recreate and --allow-data-loss" + lossless
    assert reason(allow_recreate=True) == "the stream holds 12 messages; needs --allow-data-loss" + lossless
    assert reason(allow_data_loss=True) == "the stream holds 12 messages; needs --allow-recreate" + lossless
    live.streams["S"] = live_stream(stream("S", metadata=dict(OWN)), messages=0)
    assert reason() == "needs --allow-recreate"
