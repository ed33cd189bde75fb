"""Files real teams keep load as their tools mean them (issue 13, "every real file loads").

The corpus in tests/fixtures/field/ is written in the shapes NACK repositories and natscli keep
(mixed kinds with Kubernetes objects, NACK Accounts and buckets, `nats consumer add --output`
files without a stream, a stream config without a name, `nats stream info --json` dumps).
"""

from __future__ import annotations

import os
from pathlib import Path

from jsops.linter.findings import Severity
from jsops.linter.load import PREVENT_DELETE, Estate, load_paths, load_text
from jsops.linter.semantics.units import parse_duration

FIELD = Path(__file__).resolve().parents[2] / "fixtures" / "field"


def _codes(findings: list, severity: Severity | None = None) -> list[str]:
    return sorted(f.rule for f in findings if severity is None or f.severity is severity)


def test_nack_repository_with_deployments_and_buckets_lints_clean_of_errors() -> None:
    estate = load_paths([str(FIELD / "nack-repo")])
    assert _codes(estate.findings, Severity.ERROR) == []
    # 2 Accounts and the StreamTemplate: said plainly, never errors
    infos = [f for f in estate.findings if f.rule == "JS020"]
    assert len(infos) == 3
    assert {f.message.split(" ")[1] for f in infos} == {"Account", "StreamTemplate"}
    # the KeyValue and the ObjectStore are buckets: the streams the clients build for them
    buckets = sorted((r.bucket, r.name) for r in estate.streams() if r.bucket)
    assert [b for b, _ in buckets] == ["KeyValue", "ObjectStore"] and all(
        n.startswith(("KV_", "OBJ_")) for _, n in buckets
    )
    # the Deployment and the ConfigMap are passed over quietly and counted
    assert [s[2] for s in estate.skipped] == ["apps/v1 Deployment", "v1 ConfigMap"]


def test_nack_account_scopes_names_and_routes() -> None:
    estate = load_paths([str(FIELD / "nack-repo")])
    streams = sorted((r.context, r.name) for r in estate.streams() if not r.bucket)
    assert streams == [
        ("billing", "ORDERS"),
        ("shop", "ORDERS"),
        ("shop", "ORDERS_DLQ"),
    ]  # same name, two accounts: not duplicates
    (shipper,) = estate.consumers()
    assert (shipper.context, shipper.stream) == ("shop", "ORDERS")
    assert set(estate.accounts) == {"shop", "billing"}
    assert estate.accounts["shop"].servers == ("nats://nats.nats.svc:4222",)
    assert estate.accounts["shop"].secrets == ("creds",)
    shop = next(r for r in estate.streams() if r.context == "shop" and r.name == "ORDERS")
    assert shop.annotations[PREVENT_DELETE] == "true"
    billing = next(r for r in estate.streams() if r.context == "billing")
    assert PREVENT_DELETE not in billing.annotations


def test_nack_repository_cli_exits_0_with_the_skipped_count(capsys) -> None:  # type: ignore[no-untyped-def]
    from jsops.linter.cli.app import main

    rc = main(["lint", str(FIELD / "nack-repo")])
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1] == (
        "Found 0 errors, 1 warning, 3 info (6 objects in 3 files; 2 other Kubernetes objects skipped)."
    )
    assert rc == 0


def test_misspelt_apis_still_draw_js004_and_foreign_ones_do_not() -> None:
    docs = {
        "jsops/v2": ("Stream", True),
        "jetstream.nats.io/v1beta3": ("Stream", True),
        "jetstrem.nats.io/v1beta2": ("Stream", True),
        "v1": ("Stream", True),  # a JetStream kind under another API: a mistake
        "apps/v1": ("Deployment", False),
        "batch/v1": ("CronJob", False),
        "argoproj.io/v1alpha1": ("Application", False),
    }
    for api, (kind, error) in docs.items():
        estate = Estate()
        load_text(f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: x}}\nspec: {{}}\n".encode(), "m.yaml", estate)
        assert (_codes(estate.findings) == ["JS004"]) is error, (api, estate.findings)
        if not error:
            assert estate.findings == [] and len(estate.skipped) == 1
            assert "did you mean" not in str(estate.findings)


def test_natscli_files_take_names_from_their_paths() -> None:
    estate = load_paths([str(FIELD / "natscli")])
    assert _codes(estate.findings, Severity.ERROR) == []
    infos = [f for f in estate.findings if f.rule == "JS022"]
    assert len(infos) == 2
    assert sorted((r.kind, r.name, r.stream) for r in estate.resources) == [
        ("Consumer", "shipper", "ORDERS"),
        ("Stream", "ORDERS", None),
        ("Stream", "PAYMENTS", None),
    ]


def test_json_duplicate_key_keeps_the_last_value_with_a_warning() -> None:
    estate = load_paths([str(FIELD / "natscli" / "payments.json")])
    (dup,) = [f for f in estate.findings if f.rule == "JS023"]
    assert dup.severity is Severity.WARNING and (dup.line, dup.column) == (7, 3)
    (payments,) = estate.resources
    assert payments.config.max_age == parse_duration("168h")  # the last value, as Go decodes it


def test_yaml_duplicate_key_is_still_an_error() -> None:
    estate = Estate()
    load_text(
        b"apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec:\n  max_age: 1h\n  max_age: 2h\n",
        "a.yaml",
        estate,
    )
    assert "JS003" in _codes(estate.findings, Severity.ERROR)


def test_bare_consumer_outside_a_stream_directory_names_the_convention(tmp_path: Path) -> None:
    from jsops.linter.engine import lint_estate

    d = tmp_path / "consumers"
    d.mkdir()
    (d / "c.json").write_text('{"durable_name": "c", "ack_policy": "explicit"}')
    estate = load_paths([str(tmp_path)])
    # the directory's name was only a guess: the consumer is kept apart, its stream unknown (issue 35)
    assert estate.findings == [] and estate.resources == []
    assert [(r.kind, r.name, r.stream) for r in estate.bare] == [("Consumer", "c", None)]
    (f,) = lint_estate(estate).findings
    # a layout question, not the server's: a warning without an err code, saying what was checked
    assert (f.rule, f.severity, f.server_error_code, f.line, f.column) == ("JS024", Severity.WARNING, None, 1, 1)
    assert "its directory 'consumers' is not a declared stream" in f.message and "--stream STREAM" in f.message
    assert "stream_name" in f.message and "checked without it" in f.message


def test_nameless_stream_with_an_unusable_file_name(tmp_path: Path) -> None:
    (tmp_path / "my stream.json").write_text('{"subjects": ["a.>"]}')
    estate = load_paths([str(tmp_path)])
    (f,) = estate.findings
    assert f.rule == "JS005" and "name the file after the stream" in f.message


def test_stream_info_dump_loads() -> None:
    estate = load_paths([str(FIELD / "natscli-info")])
    assert estate.findings == []
    (audit,) = estate.resources
    assert audit.name == "AUDIT" and audit.config.max_bytes == 67108864


def test_server_codes_on_request_bodies() -> None:
    estate = Estate()
    load_text(b'{"name": "A", "subjects": ["a"], "max_agee": 5}', "a.json", estate)
    (f,) = estate.findings
    assert (f.rule, f.server_error_code) == ("JS005", 10025)
    estate = Estate()
    load_text(b'{"name": "A", "subjects": ["a"],}', "b.json", estate)
    (f,) = estate.findings
    assert (f.rule, f.server_error_code) == ("JS001", 10025)
    estate = Estate()
    load_text(b'{"name": "A", "subjects": ["a"], "sources": [null]}', "c.json", estate)
    (f,) = estate.findings
    assert (f.rule, f.server_error_code) == ("JS005", 10141)
    # a native manifest is translated by jsops: the server never sees an unknown field
    estate = Estate()
    load_text(b"apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {max_agee: 5}\n", "d.yaml", estate)
    (f,) = estate.findings
    assert (f.rule, f.server_error_code) == ("JS005", None)


def test_nack_connection_fields_are_said_not_dropped() -> None:
    estate = Estate()
    load_text(
        b"apiVersion: jetstream.nats.io/v1beta2\nkind: Stream\nmetadata: {name: a}\n"
        b'spec:\n  name: A\n  subjects: [a]\n  servers: ["nats://x:4222"]\n  creds: /c.creds\n',
        "n.yaml",
        estate,
    )
    (f,) = estate.findings
    assert f.rule == "JS021" and (f.line, f.column) == (7, 3)
    assert "spec.servers, spec.creds" in f.message
    assert os.path.basename(f.file) == "n.yaml"


def test_unknown_field_in_a_request_body_per_release(tmp_path: Path) -> None:
    """2.12+ refuses an unknown field (10025); 2.10 and 2.11 drop it silently: advice there."""
    from jsops.linter.config import Config
    from jsops.linter.engine import lint_estate
    from jsops.linter.model.target import Target

    (tmp_path / "s.json").write_text('{"name": "A", "subjects": ["a"], "max_agee": 5}')
    estate = load_paths([str(tmp_path)])
    for version, severity, code in (
        ("2.10.26", "warning", None),
        ("2.11.11", "warning", None),
        ("2.12.8", "error", 10025),
        ("2.15.1", "error", 10025),
    ):
        result = lint_estate(estate, config=Config(target=Target(server_version=version)), read_source=None)
        (f,) = [f for f in result.findings if f.rule == "JS005"]
        assert (f.severity.value, f.server_error_code) == (severity, code), version
        assert ("drops it silently" in f.message) is (code is None)


def test_terraform_translated_configs_load() -> None:
    """A terraform-provider-jetstream estate as teams translate it: a native manifest (seconds
    written as Go durations) and the stream as `terraform show -json` values map onto the API shape."""
    estate = load_paths([str(FIELD / "terraform")])
    assert [f for f in estate.findings if f.severity is Severity.ERROR] == []
    got = sorted((r.kind, r.name) for r in estate.resources)
    assert got == [("Consumer", "shipper"), ("Stream", "ORDERS"), ("Stream", "ORDERS_TF")]
    tf = next(r for r in estate.resources if r.name == "ORDERS_TF")
    assert tf.config.max_age == parse_duration("7d") and tf.config.duplicate_window == parse_duration("2m")
