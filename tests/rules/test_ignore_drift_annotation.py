"""JS447 ops-ignore-drift-unknown-field: a ``jsops.io/ignore-drift`` annotation that names a field
jsops will not hold (docs/drift.md). Pass and fail cases, the did-you-mean, file:line:col at the
annotation's value (native and NACK manifests), no err_code (nats-server never sees the annotation),
and the reconciler holding exactly the fields the rule accepts."""

from __future__ import annotations

import pytest

from jsops.linter.cli.app import main
from jsops.linter.engine import discover_rules
from jsops.linter.findings import Finding
from jsops.linter.testing import lint_text

RULES = [r for r in discover_rules() if r.code == "JS447"]


def _stream(fields: str, extra: str = "") -> str:
    return (
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: ORDERS\n"
        f'  annotations: {{jsops.io/ignore-drift: "{fields}"}}\n'
        f"spec: {{subjects: ['orders.>'], num_replicas: 1{extra}}}\n"
    )


def _consumer(fields: str) -> str:
    return (
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: ORDERS}\nspec: {subjects: ['orders.>']}\n---\n"
        "apiVersion: jsops/v1\nkind: Consumer\nmetadata:\n  name: C1\n  stream: ORDERS\n"
        f'  annotations: {{jsops.io/ignore-drift: "{fields}"}}\nspec: {{ack_policy: explicit}}\n'
    )


def _lint(text: str) -> list[Finding]:
    return sorted(lint_text(text, RULES), key=lambda f: f.message)


@pytest.mark.parametrize(
    "text",
    [
        _stream("num_replicas"),
        _stream("[num_replicas, max_age]"),
        _stream("num_replicas max_msgs,max_bytes"),
        _stream(""),
        _consumer("[max_deliver, ack_wait]"),
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: ORDERS}\nspec: {subjects: ['orders.>']}\n",
    ],
    ids=["one", "brackets", "spaces-and-commas", "empty", "consumer", "no-annotation"],
)
def test_pass(text: str) -> None:
    assert _lint(text) == []


@pytest.mark.parametrize(
    ("text", "name", "says"),
    [
        (_stream("[num_replica]"), "num_replica", "a stream has no field num_replica"),
        (_stream("ack_wait"), "ack_wait", "ack_wait is a consumer field"),
        (_stream("name"), "name", "the stream's name is never held"),
        (_stream("metadata"), "metadata", "the stream's metadata is never held"),
        (_consumer("max_delivr"), "max_delivr", "a consumer has no field max_delivr"),
        (_consumer("durable_name"), "durable_name", "the consumer's durable_name is never held"),
        (_consumer("max_age"), "max_age", "max_age is a stream field"),
    ],
    ids=["typo", "other-kind", "name", "metadata", "consumer-typo", "durable-name", "stream-field-on-consumer"],
)
def test_fail(text: str, name: str, says: str) -> None:
    (f,) = _lint(text)
    assert f.rule == "JS447" and f.name == "ops-ignore-drift-unknown-field"
    assert f.message.startswith(f"jsops.io/ignore-drift names {name!r}: {says}, so jsops does not leave it")
    assert f.server_error_code is None  # jsops's own check: the server never sees the annotation


def test_did_you_mean_and_where() -> None:
    found = _lint(_stream("[num_replica, max_age, zzz]"))
    assert found[0].message.endswith(
        "(plan, apply and the controller reconcile it as usual); did you mean num_replicas?"
    )
    assert found[1].message.endswith("(plan, apply and the controller reconcile it as usual)")  # zzz: nothing close
    assert {(f.file, f.line, f.column) for f in found} == {("manifest.yaml", 5, 40)}  # the annotation's value
    assert found[0].fix is not None and found[0].fix.description == "rename it to num_replicas"


def test_consumer_where() -> None:
    (f,) = _lint(_consumer("max_delivr"))
    assert (f.line, f.column) == (11, 40) and f.object is not None and f.object.kind == "Consumer"


def test_nack_manifest_is_checked_at_its_annotation() -> None:
    text = (
        "apiVersion: jetstream.nats.io/v1beta2\nkind: Stream\nmetadata:\n  name: orders\n"
        "  annotations:\n    jsops.io/ignore-drift: maxAge\n"
        "spec: {name: ORDERS, subjects: [orders.>], storage: file}\n"
    )
    (f,) = _lint(text)
    assert (f.line, f.column) == (6, 28) and "'maxAge'" in f.message  # the API's field names, as plan holds them


def test_a_bucket_names_the_streams_fields() -> None:
    text = (
        "apiVersion: jsops/v1\nkind: KeyValue\nmetadata:\n  name: sessions\n"
        '  annotations: {jsops.io/ignore-drift: "ttl"}\nspec: {history: 1}\n'
    )
    (f,) = _lint(text)
    assert "ttl is the bucket's word" in f.message and f.message.endswith("; did you mean max_age?")


def test_the_reconciler_holds_exactly_what_the_rule_accepts() -> None:
    from jsops.reconciler.drift import unknown_fields

    for fields in ("num_replicas", "[num_replica, max_age, zzz, name]", "ack_wait"):
        named = [f for f in fields.strip("[]").replace(",", " ").split() if f]
        assert len(_lint(_stream(fields))) == len(unknown_fields("Stream", named))


def test_lint_cli_reports_it_and_exits_0_on_a_warning(tmp_path, capsys) -> None:
    (tmp_path / "orders.yaml").write_text(_stream("[num_replica]"))
    rc = main(["lint", str(tmp_path / "orders.yaml"), "--no-config"])
    out = capsys.readouterr().out
    assert rc == 0  # a warning: lint fails on errors by default
    assert f"{tmp_path / 'orders.yaml'}:5:40: warning JS447 " in out and "did you mean num_replicas?" in out
