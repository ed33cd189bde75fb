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
    return sorted(
        (f["rule"], f["severity"], f["line"], f["column"], f["server_error_code"])
        for f in findings
        if str(f["file"]).endswith(name)
    )


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


def test_without_a_stream_a_warning_at_the_file_and_no_server_code(
    layouts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, findings = _lint(capsys, "flat")
    assert rc == 0  # warnings only
    mine = [f for f in findings if "shipper" in str(f["file"]) or "billing" in str(f["file"])]
    assert sorted(
        (Path(str(f["file"])).name, f["rule"], f["severity"], f["line"], f["column"], f["server_error_code"])
        for f in mine
    ) == [
        ("billing.json", "JS024", "warning", 1, 1, None),
        ("shipper.json", "JS024", "warning", 1, 1, None),
    ]
    assert "--stream STREAM" in str(mine[0]["message"]) and "consumer-streams" in str(mine[0]["message"])
    assert not any(f["server_error_code"] == 10059 for f in findings)


def test_stream_given_on_the_command_line_lints_as_a_stream_directory(
    layouts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
    assert [
        (f["rule"], f["server_error_code"])
        for f in both
        if str(f["file"]).endswith("billing.json") and f["rule"] == "JS006"
    ] == [("JS006", 10059)]
    assert not [f for f in both if str(f["file"]).endswith("shipper.json") and f["rule"] in ("JS006", "JS024")]


# --- issue 35: a bare consumer is checked without its stream; a fragment is known by its keys ----------

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "fixtures" / "bare-consumers"
GOLDEN = ROOT / "tests" / "golden"
# What nats-server answers for each file of the corpus (natscli's shape, no stream in it), created on
# a plain stream; measured on the five releases by tests/integration/test_bare_consumers_server.py
# (the same from 2.11 on; 2.10 drops the priority fields). jsops at 2.15.1 on a standalone target
# must name exactly these, with the rule that makes the check.
ANSWERS: dict[str, tuple[str, int] | None] = {
    "ok-pull": None,
    "ok-push": None,
    "ok-push-fragment": None,
    "ok-deliver-group": None,
    "ok-backoff": None,
    "ok-start-seq": None,
    "ok-priority": None,
    "pull-deliver-group": None,
    "push-max-batch": None,
    "push-max-expires": None,
    "backoff-over-max-deliver": ("JS206", 10116),
    "max-deliver-one-with-backoff": ("JS206", 10116),
    "deliver-subject-wildcard": ("JS208", 10079),
    "description-too-long": ("JS207", 10107),
    "filter-subject-and-subjects": ("JS215", 10136),
    "filter-subjects-overlap": ("JS217", 10138),
    "flow-control-without-heartbeat": ("JS220", 10108),
    "heartbeat-too-small": ("JS211", 10083),
    "metadata-too-large": ("JS221", 10135),
    "name-too-long": ("JS202", 10102),
    "priority-groups-on-push": ("JS222", 10178),
    "priority-policy-without-groups": ("JS223", 10159),
    "pull-flow-control": ("JS213", 10088),
    "pull-heartbeat": ("JS213", 10088),
    "push-ack-none-max-ack-pending": ("JS210", 10082),
    "push-max-waiting": ("JS209", 10080),
    "rate-limit-on-pull": ("JS213", 10086),
    "replicas-negative": ("JS203", 10133),
    "replicas-standalone": ("JS203", 10074),
    "sample-freq-invalid": ("JS219", 10095),
    "start-seq-missing": ("JS218", 10094),
    "start-seq-with-all": ("JS218", 10094),
    "start-time-missing": ("JS218", 10094),
    "start-time-with-new": ("JS218", 10094),
}


def test_the_corpus_is_the_table() -> None:
    assert sorted(p.stem for p in CORPUS.glob("*.json")) == sorted(ANSWERS)


@pytest.mark.parametrize("stem", sorted(ANSWERS))
def test_a_bare_consumer_gets_every_check_that_needs_no_stream(stem: str) -> None:
    """Each file alone, as `nats consumer add STREAM --config FILE` reads it: the rejected ones get the
    server's code (a pass case: no error at all), and one JS024 says the stream is unknown."""
    from jsops.linter.engine import lint_estate
    from jsops.linter.findings import Severity
    from jsops.linter.load import load_paths
    from jsops.linter.model.target import Target

    estate = load_paths([str(CORPUS / f"{stem}.json")])
    assert [r.kind for r in estate.bare] == ["Consumer"] and estate.resources == []
    found = lint_estate(estate, target=Target(server_version="2.15.1", clustered=False)).findings
    errors = sorted((f.rule, f.server_error_code) for f in found if f.severity is Severity.ERROR)
    assert errors == ([] if ANSWERS[stem] is None else [ANSWERS[stem]])
    assert [f.rule for f in found if f.rule == "JS024"] == ["JS024"]


@pytest.mark.parametrize(("fmt", "golden"), [("text", "bare-consumers.txt"), ("json", "bare-consumers.json")])
def test_the_checks_skipped_for_want_of_the_stream_are_named(
    fmt: str, golden: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from jsops.linter.cli.app import VERSION

    monkeypatch.chdir(ROOT)
    files = [
        f"tests/fixtures/bare-consumers/{n}.json"
        for n in ("ok-push-fragment", "push-ack-none-max-ack-pending", "start-seq-missing")
    ]
    rc = main(["lint", *files, "--format", fmt, "--no-config", "--no-cache"])
    out = capsys.readouterr().out.replace(f'"{VERSION}"', '"VERSION"')
    path = GOLDEN / golden
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        path.write_text(out)
    assert out == path.read_text(), (
        f"{golden} differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    )
    assert rc == 1


def test_never_a_code_from_a_guessed_stream(layouts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The commonest natscli layout (stream.json beside the consumers, a workqueue stream): an ack-none
    consumer there is refused by a workqueue stream, but the file does not say its stream is that one."""
    (layouts / "flat" / "notify.json").write_text(
        '{"durable_name": "notify", "ack_policy": "none", "filter_subject": "orders.x"}\n'
    )
    _, findings = _lint(capsys, "flat")
    mine = [f for f in findings if str(f["file"]).endswith("notify.json")]
    assert [(f["rule"], f["server_error_code"]) for f in mine] == [("JS024", None)]
    assert "JS212 consumer-workqueue-requires-explicit-ack" in str(mine[0]["message"])
    _, given = _lint(capsys, "flat", "--stream", "ORDERS")  # given: the workqueue check is made
    assert ("JS212", 10084) in [
        (f["rule"], f["server_error_code"]) for f in given if str(f["file"]).endswith("notify.json")
    ]


@pytest.mark.parametrize(
    "doc",
    [
        {"deliver_subject": "out.a"},
        {"flow_control": True, "idle_heartbeat": 5000000000, "deliver_subject": "out.a"},
        {"idle_heartbeat": 5000000000},
        {"deliver_group": "workers"},
    ],
    ids=["deliver_subject", "flow_control", "idle_heartbeat", "deliver_group"],
)
def test_a_consumer_fragment_is_known_by_its_keys(doc: dict[str, object], tmp_path: Path) -> None:
    from jsops.linter.load import load_paths

    (tmp_path / "ORDERS.json").write_text(STREAM)
    (tmp_path / "push.json").write_text(json.dumps(doc))
    estate = load_paths([str(tmp_path)], consumer_streams=[("push.json", "ORDERS")])
    assert not [f for f in estate.findings if f.rule == "JS004"], estate.findings
    assert sorted((r.kind, r.name, r.stream) for r in estate.resources) == [
        ("Consumer", "push", "ORDERS"),
        ("Stream", "ORDERS", None),
    ]


def test_a_stream_with_a_stray_consumer_key_stays_a_stream(tmp_path: Path) -> None:
    from jsops.linter.load import load_paths

    (tmp_path / "s.json").write_text('{"name": "S", "subjects": ["s.>"], "max_age": 0, "max_deliver": 3}')
    estate = load_paths([str(tmp_path)])
    assert [f.rule for f in estate.findings] == ["JS005"] and "max_deliver" in estate.findings[0].message
    assert estate.bare == [] and not estate.resources  # an invalid stream, not a consumer named S


def test_a_bucket_config_is_named_as_one(tmp_path: Path) -> None:
    from jsops.linter.load import load_paths

    (tmp_path / "b.json").write_text('{"bucket": "cfg", "history": 5, "storage": "file", "compression": true}')
    (f,) = load_paths([str(tmp_path)]).findings
    assert f.rule == "JS004" and "KeyValue bucket config" in f.message and "kind: KeyValue" in f.message


def test_own_fields_come_from_the_catalog() -> None:
    from jsops.linter.load.api_json import KINDS, own_fields
    from jsops.linter.semantics import catalog

    assert {"deliver_subject", "flow_control", "idle_heartbeat", "deliver_group", "durable_name"} <= own_fields(
        "Consumer"
    )
    assert {"subjects", "retention"} <= own_fields("Stream") and "history" in own_fields("KeyValue")
    for kind in KINDS:
        assert own_fields(kind) <= set(catalog.record(kind).names())
        others = {name for k in KINDS if k != kind for name in catalog.record(k).names()}
        assert not own_fields(kind) & others


def test_the_stream_decides_only_inherited_fields() -> None:
    from jsops.linter.model.config import ConsumerConfig
    from jsops.linter.semantics.effective import StreamUnknown, streamless_consumer

    unset = streamless_consumer(ConsumerConfig(durable_name="a", ack_policy="explicit"))
    with pytest.raises(StreamUnknown):
        _ = unset.max_ack_pending  # inherited from the stream's consumer_limits when unset
    assert unset.ack_wait == 30_000_000_000 and unset.deliver_policy == "all"
    written = streamless_consumer(
        ConsumerConfig(durable_name="a", ack_policy="explicit", max_ack_pending=5, inactive_threshold=10**9)
    )
    assert (written.max_ack_pending, written.inactive_threshold) == (5, 10**9)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            '{"config": {"durable_name": "c", "ack_policy": "explicit"}}',
            'the $JS.API.CONSUMER.CREATE body {"stream_name": "STREAM", "config": {...}}',
        ),
        ('{"durable_name": "c", "ack_policy": "explicit", "ack_wait": 30000000000}', "consumer config names no stream"),
    ],
    ids=["wrapped-config", "bare-config"],
)
def test_a_consumer_without_its_stream_is_one_warning_at_the_file(text: str, says: str) -> None:
    from jsops.linter.engine import lint_estate
    from jsops.linter.findings import Severity
    from jsops.linter.load import Estate, check_estate, load_text

    estate = Estate()
    load_text(text.encode(), "c.json", estate)
    check_estate(estate)
    assert estate.findings == [] and [r.name for r in estate.bare] == ["c"]
    (f,) = lint_estate(estate).findings
    assert (f.rule, f.severity, f.server_error_code, f.line, f.column) == ("JS024", Severity.WARNING, None, 1, 1)
    assert says in f.message and "checked without it" in f.message
