"""Buckets (jsops.linter.model.buckets, jsops.linter.load.buckets): the stream each bucket kind is, as the Go client
and nats-py build it (facts read from their sources; the server-side proof is in
tests/integration/test_buckets_effective_server.py), recognition for export, and loading with
findings at the bucket's own fields."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsops.linter.engine import lint_estate
from jsops.linter.findings import LOAD_CODES
from jsops.linter.load import Estate, load_paths, load_text
from jsops.linter.model.buckets import KeyValueConfig, ObjectStoreConfig, bucket_of_stream, kv_stream, object_stream
from jsops.linter.model.config import StreamConfig
from jsops.linter.semantics.effective import effective_stream
from jsops.linter.semantics.effective_types import api_json

NAME_MISMATCH = LOAD_CODES["name-mismatch"].code
MIN, H = 60_000_000_000, 3_600_000_000_000


def kv(**kw: object) -> KeyValueConfig:
    return KeyValueConfig.model_validate(kw)


def test_go_kv_defaults() -> None:
    s = kv_stream(kv(), "b")
    assert s == {
        "name": "KV_b",
        "subjects": ["$KV.b.>"],
        "max_msgs_per_subject": 1,
        "max_bytes": -1,
        "max_age": 0,
        "max_msg_size": -1,
        "max_msgs": -1,
        "max_consumers": -1,
        "storage": "file",
        "num_replicas": 1,
        "allow_rollup_hdrs": True,
        "deny_delete": True,
        "discard": "new",
        "duplicate_window": 2 * MIN,
        "allow_direct": True,
    }


@pytest.mark.parametrize(("ttl", "window"), [("30s", 30_000_000_000), ("1h", 2 * MIN), (None, 2 * MIN)])
def test_kv_duplicate_window_is_ttl_when_shorter_than_two_minutes(ttl: str | None, window: int) -> None:
    assert kv_stream(kv(ttl=ttl), "b")["duplicate_window"] == window


def test_kv_limit_marker_turns_on_message_ttls_and_compression_is_s2() -> None:
    s = kv_stream(kv(limit_marker_ttl="5m", compression=True, history=7), "b")
    assert (s["allow_msg_ttl"], s["subject_delete_marker_ttl"], s["compression"], s["max_msgs_per_subject"]) == (
        True,
        5 * MIN,
        "s2",
        7,
    )
    assert "allow_msg_ttl" not in kv_stream(kv(), "b")  # the Go client sends it only with a marker TTL


def test_kv_mirror_names_the_origin_stream_and_has_no_subjects() -> None:
    s = kv_stream(kv(mirror={"name": "origin"}), "b")
    assert "subjects" not in s and s["mirror"] == {"name": "KV_origin"} and s["mirror_direct"] is True
    assert kv_stream(kv(mirror={"name": "KV_origin"}), "b")["mirror"] == {"name": "KV_origin"}


def test_kv_sources_get_subject_transforms_unless_given() -> None:
    s = kv_stream(
        kv(
            sources=[
                {"name": "a"},
                {"name": "KV_c"},
                {"name": "raw", "subject_transforms": [{"src": "x.>", "dest": "$KV.b.>"}]},
            ]
        ),
        "b",
    )
    assert s["sources"] == [
        {"name": "KV_a", "subject_transforms": [{"src": "$KV.a.>", "dest": "$KV.b.>"}]},
        {"name": "KV_c", "subject_transforms": [{"src": "$KV.c.>", "dest": "$KV.b.>"}]},
        {"name": "raw", "subject_transforms": [{"src": "x.>", "dest": "$KV.b.>"}]},
    ]
    # an external source of the same bucket needs no transform
    same = kv_stream(kv(sources=[{"name": "b", "external": {"api": "$JS.hub.API"}}]), "b")["sources"][0]
    assert "subject_transforms" not in same and same["name"] == "KV_b"


def test_direct_false_opts_out_and_round_trips() -> None:
    s = kv_stream(kv(direct=False), "b")
    assert s["allow_direct"] is False
    assert bucket_of_stream(api_json(effective_stream(StreamConfig.model_validate(s))))[2] == {"direct": False}  # type: ignore[index]


def test_nats_py_kv_differs_from_go() -> None:
    go, py = (
        kv_stream(kv(placement={"cluster": "c"}), "b"),
        kv_stream(kv(placement={"cluster": "c"}), "b", client="nats-py"),
    )
    assert go["allow_direct"] is True and "allow_direct" not in py
    assert "allow_msg_ttl" not in go and py["allow_msg_ttl"] is True
    assert "placement" in go and "placement" not in py


def test_object_store_shape() -> None:
    o = object_stream(ObjectStoreConfig.model_validate({"ttl": "1h", "compression": True}), "files")
    assert o["name"] == "OBJ_files" and o["subjects"] == ["$O.files.C.>", "$O.files.M.>"]
    assert (o["discard"], o["allow_rollup_hdrs"], o["allow_direct"], o["max_age"], o["compression"]) == (
        "new",
        True,
        True,
        H,
        "s2",
    )
    assert object_stream(ObjectStoreConfig(), "files", client="nats-py")["max_consumers"] == 0


@pytest.mark.parametrize(
    "spec",
    [
        {},
        {"history": 10, "ttl": H, "max_bytes": 1024, "max_value_size": 64, "storage": "memory", "replicas": 3},
        {
            "compression": True,
            "metadata": {"a": "b"},
            "limit_marker_ttl": MIN,
            "republish": {"src": ">", "dest": "r.>"},
        },
    ],
)
def test_recognised_kv_gives_back_its_spec(spec: dict) -> None:
    live = api_json(effective_stream(StreamConfig.model_validate(kv_stream(kv(**spec), "b"))))
    kind, bucket, got = bucket_of_stream(live)  # type: ignore[misc]
    want = {k: (v if k != "republish" else {"src": ">", "dest": "r.>"}) for k, v in spec.items()}
    assert (kind, bucket, got) == ("KeyValue", "b", want)


def test_plain_streams_are_not_buckets() -> None:
    assert bucket_of_stream({"name": "KV_b", "subjects": ["other.>"]}) is None
    assert bucket_of_stream({"name": "ORDERS", "subjects": ["$KV.b.>"]}) is None
    assert bucket_of_stream({"name": "OBJ_f", "subjects": ["$O.f.C.>"]}) is None


def _load(text: str) -> Estate:
    estate = Estate()
    load_text(text.encode(), "m.yaml", estate)
    return estate


NATIVE = """apiVersion: jsops/v1
kind: KeyValue
metadata: {name: sessions}
spec:
  history: HIST
  ttl: 1h
"""
NACK = """apiVersion: jetstream.nats.io/v1beta2
kind: KeyValue
metadata: {name: s}
spec:
  bucket: sessions
  history: 5
  ttl: TTL
  maxValueSize: 1024
"""


def test_native_kv_loads_as_its_stream() -> None:
    estate = _load(NATIVE.replace("HIST", "5"))
    (r,) = estate.resources
    assert (r.kind, r.name, r.bucket) == ("Stream", "KV_sessions", "KeyValue")
    assert r.config.max_msgs_per_subject == 5 and r.config.max_age == H and r.config.deny_delete is True
    assert r.locate(("max_msgs_per_subject",)) == (5, 12)  # findings on the stream field point at history


@pytest.mark.parametrize("history", ["70", "-1"])
def test_history_out_of_bounds_is_refused_at_the_field(history: str) -> None:
    estate = _load(NATIVE.replace("HIST", history))
    (f,) = estate.findings
    assert (f.rule, f.line, f.column) == ("JS005", 5, 12) and "1 to 64" in f.message
    assert estate.resources == []


def test_history_zero_is_the_default_one() -> None:
    (r,) = _load(NATIVE.replace("HIST", "0")).resources
    assert r.config.max_msgs_per_subject == 1


def test_invalid_bucket_name_and_spec_bucket_mismatch() -> None:
    bad = _load(NATIVE.replace("HIST", "1").replace("sessions", "a.b"))
    assert [f.rule for f in bad.findings] == ["JS005"] and "letters, digits" in bad.findings[0].message
    mism = _load(NATIVE.replace("HIST", "1") + "  bucket: other\n")
    assert [f.rule for f in mism.findings] == [NAME_MISMATCH] and "differs from metadata.name" in mism.findings[
        0
    ].message
    assert mism.resources == []


def test_nack_kv_loads_with_go_durations_only() -> None:
    estate = _load(NACK.replace("TTL", "24h"))
    (r,) = estate.resources
    assert (r.name, r.dialect, r.config.max_msg_size, r.config.max_age) == ("KV_sessions", "nack/v1beta2", 1024, 24 * H)
    assert r.locate(("max_msg_size",)) == (8, 17)
    bad = _load(NACK.replace("TTL", "1d"))
    assert "time.ParseDuration" in bad.findings[0].message and bad.findings[0].line == 7


def test_nack_unknown_field_is_named_with_a_suggestion() -> None:
    estate = _load(NACK.replace("TTL", "1h").replace("maxValueSize", "maxValSize"))
    assert "did you mean 'maxValueSize'?" in estate.findings[0].message


def test_bucket_stream_collides_with_declared_stream_and_subjects(tmp_path: Path) -> None:
    text = (
        NATIVE.replace("HIST", "1")
        + """---
apiVersion: jsops/v1
kind: Stream
metadata: {name: TAP}
spec: {subjects: ["$KV.sessions.>"], max_age: 1h}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: KV_sessions}
spec: {subjects: ["x.>"], max_age: 1h}
"""
    )
    (tmp_path / "m.yaml").write_text(text)
    result = lint_estate(load_paths([str(tmp_path)]))
    codes = {f.rule for f in result.findings}
    assert {"JS007", "JS301"} <= codes


def test_fixes_never_write_stream_fields_into_a_bucket() -> None:
    estate = _load("apiVersion: jsops/v1\nkind: ObjectStore\nmetadata: {name: files}\nspec: {}\n")
    for f in lint_estate(estate).findings:
        for e in f.fix.edits if f.fix else ():
            assert e.path[-1] in (
                "ttl",
                "max_bytes",
                "replicas",
                "storage",
                "history",
                "max_value_size",
                "description",
                "placement",
                "metadata",
            ), (
                f.rule,
                e.path,
            )


def test_stream_rules_on_a_bucket_name_the_bucket_field() -> None:
    from jsops.linter.model.target import Target

    text = NATIVE.replace("HIST", "5") + "  limit_marker_ttl: 100ms\n  max_value_size: 2MiB\n  max_bytes: 10MiB\n"
    target = Target.model_validate({"server_version": "2.11.11", "max_payload": "1MiB"})
    by = {f.rule: f for f in lint_estate(_load(text), target=target).findings}
    # the marker TTL: too short (the server's 10052), at limit_marker_ttl (line 7)
    assert by["JS111"].server_error_code == 10052 and by["JS111"].line == 7
    assert by["JS111"].message.startswith("limit_marker_ttl 100ms is shorter than 1s")
    assert by["JS442"].message.startswith("max_value_size 2MiB is larger than") and by["JS442"].line == 8
    # 2.10 knows no marker TTL: it drops the field silently (a warning, not a predicted rejection)
    old = {
        f.rule: f
        for f in lint_estate(_load(text), target=target.model_copy(update={"server_version": "2.10.26"})).findings
    }
    assert "JS111" not in old and old["JS311"].severity.value == "warning" and old["JS311"].line == 7


@pytest.mark.parametrize(
    ("spec", "fires"),
    [
        ("history: 5\n  max_bytes: 64MiB", True),
        ("history: 5\n  max_bytes: 64MiB\n  ttl: 7d", False),
        ("history: 5", False),
    ],
)
def test_js460_full_bucket_refuses_writes(spec: str, fires: bool) -> None:
    text = f"apiVersion: jsops/v1\nkind: KeyValue\nmetadata: {{name: b}}\nspec:\n  {spec}\n"
    got = [f for f in lint_estate(_load(text)).findings if f.rule == "JS460"]
    assert len(got) == (1 if fires else 0)
    if fires:
        assert got[0].line == 6 and "every put is refused" in got[0].message


def test_js460_is_silent_on_plain_streams() -> None:
    text = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: S}\nspec: {subjects: [s], max_bytes: 1MiB, discard: new}\n"
    assert [f for f in lint_estate(_load(text)).findings if f.rule == "JS460"] == []


def test_html_report_names_the_bucket_of_a_stream() -> None:
    from jsops.linter.report.html import render_html, report_from_paths

    root = Path(__file__).resolve().parents[2]
    data = report_from_paths([str(root / "manifests")])
    carts = next(s for s in data.streams if s.name == "KV_carts")
    assert carts.bucket == "KeyValue carts" and all(not s.bucket for s in data.streams if s is not carts)
    assert "<h2>KV_carts <small>(KeyValue carts)</small></h2>" in render_html(data)


def test_a_nats_py_bucket_is_recognised_and_rebuilt_exactly() -> None:
    """nats-py's shape (no direct gets, message TTLs on) is a KeyValue with direct: false and
    allow_msg_ttl: true, which the Go shape then rebuilds field by field."""
    from jsops.reconciler.diff import diff_configs

    stored = effective_stream(StreamConfig.model_validate(kv_stream(kv(history=3, ttl="1h"), "b", client="nats-py")))
    kind, bucket, spec = bucket_of_stream(api_json(stored))  # type: ignore[misc]
    assert spec == {"history": 3, "ttl": H, "direct": False, "allow_msg_ttl": True}
    rebuilt = effective_stream(StreamConfig.model_validate(kv_stream(kv(**spec), bucket)))
    assert diff_configs("Stream", stored, rebuilt) == []


def test_mirror_and_sources_together_are_refused_at_sources() -> None:
    estate = _load(
        "apiVersion: jsops/v1\nkind: KeyValue\nmetadata: {name: c}\nspec:\n  mirror: {name: a}\n  sources: [{name: b}]\n"
    )
    (f,) = estate.findings
    assert f.line == 6 and "mirror or sources, not both" in f.message and estate.resources == []


def test_nack_bucket_sizes_are_integers() -> None:
    estate = _load(NACK.replace("TTL", "1h").replace("maxValueSize: 1024", "maxValueSize: 1KiB\n  maxBytes: 1GB"))
    # kube-apiserver refuses them first (JS030), and jsops's own reading says the same (JS005)
    assert sorted((f.line, f.rule) for f in estate.findings) == [(8, "JS005"), (8, "JS030"), (9, "JS005"), (9, "JS030")]
    assert all("integer numbers of bytes" in f.message for f in estate.findings)


_STREAM_WORDS = (
    "max_age",
    "max_msgs_per_subject",
    "max_msg_size",
    "num_replicas",
    "subject_delete_marker_ttl",
    "stream KV_",
    "stream OBJ_",
)
BUCKETS = """\
apiVersion: jsops/v1
kind: KeyValue
metadata: {name: short}
spec: {ttl: 50ms, history: 2, max_bytes: 1MiB, max_value_size: 2MiB}
---
apiVersion: jsops/v1
kind: ObjectStore
metadata: {name: nolimit}
spec: {}
---
apiVersion: jsops/v1
kind: KeyValue
metadata: {name: marker}
spec: {ttl: 1h, limit_marker_ttl: 100ms, replicas: 2, max_bytes: 1GiB}
---
apiVersion: jsops/v1
kind: KeyValue
metadata: {name: wide}
spec: {ttl: 7d, replicas: 7, max_bytes: 1GiB}
"""


@pytest.mark.parametrize(
    "target",
    [
        {"server_version": "2.12.8", "clustered": False, "max_payload": "1MiB"},
        {"server_version": "2.12.8", "clustered": True, "cluster_size": 5, "max_payload": "1MiB"},
    ],
)
def test_messages_about_buckets_speak_bucket(target: dict[str, object]) -> None:
    """Every finding on these buckets names the bucket and its fields (ttl, history, max_value_size,
    replicas, limit_marker_ttl), never the stream fields behind them."""
    from jsops.linter.model.target import Target

    findings = lint_estate(_load(BUCKETS), target=Target.model_validate(target)).findings
    assert {f.rule for f in findings} >= {"JS106", "JS111", "JS442", "JS431"}
    for f in findings:
        assert not any(w in f.message for w in _STREAM_WORDS), (f.rule, f.message)
        assert f.fix is None or not any(w in f.fix.description for w in _STREAM_WORDS), (f.rule, f.fix.description)
    by = {(f.rule, f.object.name if f.object else ""): f.message for f in findings}
    assert by[("JS106", "KV_short")].startswith("ttl 50ms is shorter than 100ms")
    assert ("JS107", "KV_short") not in by  # the window the client sets from ttl: one finding, at ttl
    assert by[("JS442", "KV_short")].startswith("max_value_size 2MiB is larger than the target's max_payload 1MiB")
    assert by[("JS431", "OBJ_nolimit")].startswith("ObjectStore 'nolimit' has no ttl or max_bytes:")
    assert by[("JS111", "KV_marker")].startswith("limit_marker_ttl 100ms is shorter than 1s")
    if target["clustered"]:
        assert by[("JS105", "KV_wide")].startswith("replicas 7 is above the maximum of 5")
        assert by[("JS435", "KV_marker")].startswith("replicas 2 tolerates no server failure")
    else:
        assert by[("JS315", "KV_marker")].startswith("replicas 2 on a standalone server")
    assert [f.rule for f in findings if f.rule == "JS446"] == ["JS446"]  # ttl 50ms only, not the window behind it


@pytest.mark.parametrize(
    ("kind", "written", "meant"),
    [
        ("KeyValue", "max_age", "ttl"),
        ("KeyValue", "maxAge", "ttl"),
        ("KeyValue", "max_msgs_per_subject", "history"),
        ("KeyValue", "max_msg_size", "max_value_size"),
        ("KeyValue", "num_replicas", "replicas"),
        ("KeyValue", "max_bucket_size", "max_bytes"),
        ("ObjectStore", "max_age", "ttl"),
        ("ObjectStore", "max_bucket_size", "max_bytes"),
        ("KeyValue", "histroy", "history"),
    ],
)
def test_did_you_mean_suggests_bucket_fields(kind: str, written: str, meant: str) -> None:
    estate = Estate()
    load_text(
        f"apiVersion: jsops/v1\nkind: {kind}\nmetadata: {{name: b}}\nspec: {{{written}: 1}}\n".encode(),
        "b.yaml",
        estate,
    )
    (f,) = estate.findings
    assert f.rule == "JS005" and f"unknown field {written!r} in spec; did you mean {meant!r}?" in f.message, f.message
