"""Bare consumer configs (natscli's `nats consumer add STREAM --config consumer.json`; issue 24): the
file names no stream. Which stream it is for is a layout question, never a server err code: without
one jsops warns at the file (JS024) and lints nothing of it; with the stream given (``--stream``, or
``consumer-streams`` in the config) the consumer lints exactly as the same file in a directory named
after its stream (natscli's convention, JS022)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jsops.linter.cli.app import main

STREAM = '{"name": "ORDERS", "subjects": ["orders.>"], "retention": "workqueue", "max_age": 86400000000000, "storage": "file"}\n'
# Two consumers without a filter on a workqueue stream (a server error), a short ack_wait, no dead letter.
CONSUMER = '{\n  "durable_name": "%s",\n  "ack_policy": "explicit",\n  "ack_wait": 1000000000,\n  "max_deliver": 3\n}\n'


def _lint(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]]]:
    rc = main(["lint", *argv, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)["findings"]


def _shape(findings: list[dict[str, object]], name: str) -> list[tuple[object, ...]]:
    """What a consumer's file gets, without the message's wording (JS022 says where the stream came from)."""
    return sorted((f["rule"], f["severity"], f["line"], f["column"], f["server_error_code"]) for f in findings if str(f["file"]).endswith(name))


@pytest.fixture
def layouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``dir/`` as natscli users keep it (stream.json beside the consumers) and ``bydir/`` with the
    consumers in a directory named after their stream."""
    flat, bydir = tmp_path / "flat", tmp_path / "bydir"
    (bydir / "ORDERS").mkdir(parents=True)
    flat.mkdir()
    for d, sub in ((flat, flat), (bydir, bydir / "ORDERS")):
        (d / "stream.json").write_text(STREAM)
        (sub / "shipper.json").write_text(CONSUMER % "shipper")
        (sub / "billing.json").write_text(CONSUMER % "billing")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_without_a_stream_a_warning_at_the_file_and_no_server_code(layouts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, findings = _lint(capsys, "flat")
    assert rc == 0  # warnings only
    mine = [f for f in findings if "shipper" in str(f["file"]) or "billing" in str(f["file"])]
    assert sorted((Path(str(f["file"])).name, f["rule"], f["severity"], f["line"], f["column"], f["server_error_code"]) for f in mine) == [
        ("billing.json", "JS024", "warning", 1, 1, None),
        ("shipper.json", "JS024", "warning", 1, 1, None),
    ]
    assert "--stream STREAM" in str(mine[0]["message"]) and "consumer-streams" in str(mine[0]["message"])
    assert not any(f["server_error_code"] == 10059 for f in findings)


def test_stream_given_on_the_command_line_lints_as_a_stream_directory(layouts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc_dir, by_dir = _lint(capsys, "bydir")
    rc_flag, by_flag = _lint(capsys, "flat", "--stream", "ORDERS")
    assert rc_dir == rc_flag == 1  # the two unfiltered consumers on a workqueue stream
    for name in ("shipper.json", "billing.json", "stream.json"):
        assert _shape(by_flag, name) == _shape(by_dir, name), name
    assert any(f["server_error_code"] for f in by_dir)  # the comparison covers server codes
    assert [f["message"] for f in by_flag if f["rule"] == "JS022" and "shipper" in str(f["file"])] == [
        "consumer 'shipper' names no stream (as `nats consumer add --output` writes it): it belongs to stream 'ORDERS', as given (--stream or consumer-streams)"
    ]


def test_stream_given_in_the_config_by_file_glob(layouts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (layouts / ".jsops.yaml").write_text("consumer-streams:\n  flat/ship*.json: ORDERS\n  billing.json: ORDERS\n")
    _, by_dir = _lint(capsys, "bydir")
    _, by_config = _lint(capsys, "flat")
    for name in ("shipper.json", "billing.json", "stream.json"):
        assert _shape(by_config, name) == _shape(by_dir, name), name
    # the config's mapping wins over --stream, which takes the rest
    (layouts / ".jsops.yaml").write_text("consumer-streams:\n  flat/ship*.json: ORDERS\n")
    _, alone = _lint(capsys, "flat")
    assert [f["rule"] for f in alone if str(f["file"]).endswith("billing.json")] == ["JS024"]  # not mapped
    _, both = _lint(capsys, "flat", "--stream", "NOPE")
    # the user named a stream no manifest declares: that one is the server's "stream not found"
    assert [(f["rule"], f["server_error_code"]) for f in both if str(f["file"]).endswith("billing.json") and f["rule"] == "JS006"] == [("JS006", 10059)]
    assert not [f for f in both if str(f["file"]).endswith("shipper.json") and f["rule"] in ("JS006", "JS024")]
