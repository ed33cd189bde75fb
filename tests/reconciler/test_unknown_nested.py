"""Fields a newer nats-server sends that this jsops does not know, inside nested records and list elements
(a source, its ``external`` and transforms, ``placement``, ``republish``, ``consumer_limits``), are kept where
they were and sent back: an update or a migration planned and applied by jsops erases none of them.

A real server holds no field it does not know: 2.10.26 and 2.11.11 drop an unknown field of a create or update
without a word, 2.12.8, 2.14.6 and 2.15.1 refuse it (10025, "invalid JSON: json: unknown field"; checked in
:func:`test_a_real_server_holds_no_field_it_does_not_know`). So the server tests set a field the server knows
with the API (as a newer tool would) and read it as a jsops whose catalog did not know it yet: that
record's known fields narrowed (:data:`~jsops.linter.semantics.effective_json.KNOWN_FIELDS`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jsops.linter import UnknownFields, api_json, parse_version, stream_from_api_json
from jsops.linter.semantics.effective_json import KNOWN_FIELDS
from jsops.linter.semantics.unknown_fields import identity
from jsops.reconciler.configs import config_json
from jsops.reconciler.live import LiveConsumer, LiveState, LiveStream
from jsops.reconciler.plan import Desired, Plan, build_plan
from tests.natsserver import release_or_skip

from .helpers import Js, NatsServer, manifest, run
from .migrate_helpers import positions, seed, snapshot
from .records import stream_record

OWN = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/a.yaml"}
RELEASES = ["2.10.26", "2.11.11", "2.12.8", "2.14.6", "2.15.1"]
MIGRATING = ["2.12.8", "2.14.6", "2.15.1"]  # a migration promotes a mirror: 2.12+ (plan.migration.PROMOTE_SINCE)


def _sources(*sources: dict[str, Any]) -> dict[str, Any]:
    return {"name": "ORDERS", "subjects": ["orders.>"], "metadata": OWN} | (
        {"sources": list(sources)} if sources else {}
    )


def test_the_unknown_fields_of_a_source_follow_its_identity_not_its_index() -> None:
    """A source's unknown fields go back into the source the server counts as the same (stream name,
    external API prefix, filter and transforms), wherever the manifest puts it; a source the manifest
    drops, or whose filter it changes (another source to the server), takes them with it; among sources
    of one identity, by order. Unknown fields inside a source's ``external`` and transforms too."""
    sent = _sources(
        {"name": "A", "filter_subject": "a.>", "zz": 1},
        {"name": "B", "external": {"api": "$JS.hub.API", "deliver": "d.hub", "yy": 2}, "xx": 3},
        {"name": "C", "subject_transforms": [{"src": "c.>", "dest": "cc.>", "ww": 4}]},
        {"name": "D", "filter_subject": "d.>", "vv": 5},
        {"name": "E", "filter_subject": "e.1", "uu": 6},
    )
    live = LiveStream.from_json(sent)
    assert live.extra.paths() == [
        "sources[].external.yy",
        "sources[].subject_transforms[].ww",
        "sources[].uu",
        "sources[].vv",
        "sources[].xx",
        "sources[].zz",
    ]
    # reordered, D dropped, E's filter changed, F new
    want = stream_record(
        _sources(
            {"name": "E", "filter_subject": "e.2"},
            {"name": "C", "subject_transforms": [{"src": "c.>", "dest": "cc.>"}]},
            {"name": "F"},
            {"name": "B", "external": {"api": "$JS.hub.API", "deliver": "d.hub"}},
            {"name": "A", "filter_subject": "a.>"},
        )
    )
    out = config_json(want, live.extra)["sources"]
    assert out == [
        {"name": "E", "filter_subject": "e.2"},
        {"name": "C", "subject_transforms": [{"src": "c.>", "dest": "cc.>", "ww": 4}]},
        {"name": "F"},
        {"name": "B", "external": {"api": "$JS.hub.API", "deliver": "d.hub", "yy": 2}, "xx": 3},
        {"name": "A", "filter_subject": "a.>", "zz": 1},
    ]
    # the identity is the server's: an empty filter is ">", the external's deliver prefix does not count
    same = stream_record(
        _sources(
            {"name": "A", "filter_subject": ">"}, {"name": "B", "external": {"api": "$JS.hub.API", "deliver": "other"}}
        )
    )
    moved = stream_record(_sources({"name": "B", "external": {"api": "$JS.other.API", "deliver": "d.hub"}}))
    empty = LiveStream.from_json(
        _sources({"name": "A", "zz": 1}, {"name": "B", "external": {"api": "$JS.hub.API", "deliver": "d.hub"}, "xx": 3})
    )
    assert [s.get("zz", s.get("xx")) for s in config_json(same, empty.extra)["sources"]] == [1, 3]
    assert config_json(moved, empty.extra)["sources"] == [
        {"name": "B", "external": {"api": "$JS.other.API", "deliver": "d.hub"}}
    ]


def test_among_equal_elements_the_unknown_fields_go_by_order() -> None:
    """Elements alike in every known field (two equal transforms of a source): the first unknown fields to the
    first of them, wherever the others go. A source whose transforms change is another source to the server:
    its transforms' unknown fields are not carried over to it."""
    sent = _sources(
        {
            "name": "A",
            "subject_transforms": [
                {"src": "a.>", "dest": "x.>", "n": 1},
                {"src": "b.>", "dest": "y.>"},
                {"src": "a.>", "dest": "x.>", "n": 2},
            ],
        }
    )
    live = LiveStream.from_json(sent)
    assert config_json(live.config, live.extra) == {**api_json(live.config), **sent}
    other = stream_record(_sources({"name": "A", "subject_transforms": [{"src": "a.>", "dest": "x.>"}]}))
    assert config_json(other, live.extra)["sources"] == [
        {"name": "A", "subject_transforms": [{"src": "a.>", "dest": "x.>"}]}
    ]
    same = identity("SubjectTransform", {"src": "a"})
    one, two = UnknownFields({"n": 1}, record="SubjectTransform"), UnknownFields({"n": 2}, record="SubjectTransform")
    unknown = UnknownFields(items={"t": ((same, one), (same, two))})
    assert unknown.put_into({"t": [{"src": "b"}, {"src": "a"}, {"src": "a"}]}) == {
        "t": [{"src": "b"}, {"src": "a", "n": 1}, {"src": "a", "n": 2}]
    }


def test_a_nested_record_the_manifest_removes_takes_its_unknown_fields_with_it() -> None:
    """``placement``, ``republish``, ``consumer_limits``, ``mirror``: kept while the config has them, gone
    (not sent as a half record) when the manifest removes them."""
    sent = {
        **_sources(),
        "placement": {"cluster": "east", "pp": 1},
        "republish": {"src": "orders.>", "dest": "r.>", "rr": 2},
        "consumer_limits": {"max_ack_pending": 9, "cc": 3},
        "top": {"t": 4},
    }
    live = LiveStream.from_json(sent)
    assert live.extra.fields == {"top": {"t": 4}} and set(live.extra.inner) == {
        "placement",
        "republish",
        "consumer_limits",
    }
    assert config_json(live.config, live.extra) == {**api_json(live.config), **sent}
    gone = config_json(live.config._replace(placement=None, republish=None), live.extra)
    assert "placement" not in gone and "republish" not in gone
    assert gone["consumer_limits"] == {"max_ack_pending": 9, "cc": 3} and gone["top"] == {"t": 4}
    mirror = LiveStream.from_json({"name": "M", "mirror": {"name": "ORDERS", "mm": 5}})
    assert config_json(mirror.config, mirror.extra)["mirror"] == {"name": "ORDERS", "mm": 5}


def test_nested_unknown_fields_go_back_with_an_update_and_in_a_saved_plan() -> None:
    """Planned against a live stream with unknown fields in a source and in ``consumer_limits``: the update
    (a known field changed) sends them back where they were, and a saved plan read again holds them."""
    want = stream_record(_sources({"name": "A"}))
    sent = {**api_json(want), "sources": [{"name": "A", "zz": 1}], "consumer_limits": {"cc": 3}, "max_age": 5}
    st = LiveState(streams={"ORDERS": LiveStream.from_json(sent)})
    (a,) = build_plan([Desired("Stream", "ORDERS", None, want, "m/a.yaml")], st).actions
    assert a.action == "update" and [c.path for c in a.changes] == ["max_age"]
    assert a.request()["sources"] == [{"name": "A", "zz": 1}] and a.request()["consumer_limits"] == {"cc": 3}
    plan = Plan("nats://x", "sha256:x", [a])
    again = Plan.from_json(json.loads(json.dumps(plan.to_json()))).actions[0]
    assert again.extra == a.extra and again.request() == a.request()


def test_an_empty_unknown_is_false_and_puts_nothing() -> None:
    assert (
        not UnknownFields() and UnknownFields({"a": 1}) and UnknownFields(inner={"p": ("[]", UnknownFields({"a": 1}))})
    )
    assert UnknownFields().put_into({"a": 1}) == {"a": 1}


@pytest.fixture
def older_jsops(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Read the server as a jsops whose catalog did not know ``record``'s ``fields`` yet."""

    def forget(record: str, *fields: str) -> None:
        assert set(fields) <= KNOWN_FIELDS[record]
        monkeypatch.setitem(KNOWN_FIELDS, record, KNOWN_FIELDS[record] - set(fields))

    yield forget


def _server(version: str) -> NatsServer:
    binary = release_or_skip(version)
    return NatsServer(binary=binary).start()


@pytest.mark.integration
@pytest.mark.parametrize("version", RELEASES)
def test_a_real_server_holds_no_field_it_does_not_know(version: str) -> None:
    """Why the server tests below use a field the server knows: an unknown one, nested or not, is dropped
    (2.10, 2.11) or refused with 10025 (2.12+) on create and update."""
    server = _server(version)
    js = Js(server.url)
    try:
        strict = parse_version(version) >= (2, 12, 0)
        resp = js.request("$JS.API.STREAM.CREATE.A", {"name": "A", "subjects": ["a"], "consumer_limits": {"zz": 1}})
        if strict:
            assert resp["error"]["err_code"] == 10025, resp
        else:
            assert "error" not in resp and resp["config"]["consumer_limits"] == {}, resp
        js.ok("$JS.API.STREAM.CREATE.B", {"name": "B", "subjects": ["b"]})
        resp = js.request("$JS.API.STREAM.UPDATE.B", {"name": "B", "subjects": ["b"], "placement": {"zz": 1}, "zz": 2})
        assert (resp.get("error") or {}).get("err_code") == (10025 if strict else None), resp
        info = js.stream("B")
        assert info is not None and "zz" not in info["config"] and "zz" not in (info["config"].get("placement") or {})
    finally:
        js.close()
        server.stop()


UPDATED = """
apiVersion: jsops/v1
kind: Stream
metadata: {{name: SRC}}
spec: {{subjects: ["src.>"]}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {{name: ORDERS}}
spec:
  subjects: ["orders.>"]
  max_age: {age}
  duplicate_window: 2m  # 2.10-2.12 store this default for a sourcing stream, 2.14+ none (jsops assumes none)
  sources: [{{name: SRC}}]
"""


def _newer_tool_sets(js: Js, stream: str, change: Callable[[dict[str, Any]], None]) -> None:
    """Change ``stream``'s config with the API, as a newer tool would (the rest as the server has it)."""
    info = js.stream(stream)
    assert info is not None
    config = info["config"]
    change(config)
    js.ok(f"$JS.API.STREAM.UPDATE.{stream}", config)


@pytest.mark.integration
@pytest.mark.parametrize("version", RELEASES)
def test_a_nested_field_this_jsops_does_not_know_survives_its_update(
    version: str, tmp_path, older_jsops: Callable[..., None]
) -> None:
    """On every release: a source's ``subject_transforms`` and ``consumer_limits.max_ack_pending``, set by a
    newer tool and unknown to this jsops, are still on the server after jsops plans and applies an update of
    the stream (``max_age``), and the plan after is empty."""
    server = _server(version)
    js = Js(server.url)
    try:
        d = tmp_path / "m"
        manifest(d, "orders.yaml", UPDATED.format(age="1h"))
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
        assert rc == 0, out + err

        def newer(config: dict[str, Any]) -> None:
            config["sources"][0]["subject_transforms"] = [{"src": "src.>", "dest": "copied.>"}]
            config["consumer_limits"] = {"max_ack_pending": 5000}

        _newer_tool_sets(js, "ORDERS", newer)
        older_jsops("StreamSource", "subject_transforms")
        older_jsops("StreamConsumerLimits", "max_ack_pending")
        rc, out, err = run("plan", str(d), "--server", server.url)
        assert rc == 0 and out.startswith("No changes."), out + err  # not diffed: this jsops does not know them

        manifest(d, "orders.yaml", UPDATED.format(age="2h"))
        rc, out, err = run("plan", str(d), "--server", server.url)
        assert rc == 2 and "~ max_age: 1h -> 2h" in out and out.count(" -> ") == 1, out + err
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
        assert rc == 0 and "Stream ORDERS: updated" in out, out + err
        info = js.stream("ORDERS")
        assert info is not None
        config = info["config"]
        assert config["max_age"] == 2 * 3600 * 10**9
        assert config["sources"] == [{"name": "SRC", "subject_transforms": [{"src": "src.>", "dest": "copied.>"}]}]
        assert config["consumer_limits"] == {"max_ack_pending": 5000}
        rc, out, err = run("plan", str(d), "--server", server.url)
        assert rc == 0 and out.startswith("No changes."), out + err
    finally:
        js.close()
        server.stop()


MIGRATED = """
apiVersion: jsops/v1
kind: Stream
metadata: {{name: ORDERS}}
spec: {{subjects: ["orders.>"], storage: {storage}, republish: {{src: "orders.>", dest: "repub.>"}}}}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {{name: shipper, stream: ORDERS}}
spec: {{ack_policy: explicit, filter_subject: "orders.new"}}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {{name: audit, stream: ORDERS}}
spec: {{ack_policy: explicit}}
"""


def _touched_by_a_newer_tool(
    server: NatsServer, js: Js, d: Path, older_jsops: Callable[..., None]
) -> tuple[dict[int, Any], dict[str, int]]:
    """ORDERS applied by jsops, then given fields by a newer tool that this jsops (``older_jsops``) does not
    know, seeded, and its storage changed in the manifest; its messages and consumers' pending counts."""
    manifest(d, "orders.yaml", MIGRATED.format(storage="file"))
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0

    def newer(config: dict[str, Any]) -> None:
        config["description"] = "set by a newer tool"
        config["allow_atomic"] = True  # refused on a mirror (10198): the copy gets it at its promotion
        config["republish"]["headers_only"] = True

    _newer_tool_sets(js, "ORDERS", newer)
    shipper = js.consumer("ORDERS", "shipper")
    assert shipper is not None
    js.ok(
        "$JS.API.CONSUMER.CREATE.ORDERS.shipper",
        {"stream_name": "ORDERS", "config": {**shipper["config"], "description": "newer"}, "action": "update"},
    )
    seed(js)
    older_jsops("Stream", "description", "allow_atomic")
    older_jsops("Republish", "headers_only")
    older_jsops("Consumer", "description")
    manifest(d, "orders.yaml", MIGRATED.format(storage="memory"))
    return snapshot(js, "ORDERS"), _pending(js)


def _pending(js: Js) -> dict[str, int]:
    """Each consumer's pending messages (2.12 reports a moved consumer's ack floor as 0 until its first ack)."""
    return {n: p for n, (_, p) in positions(js, "ORDERS").items()}


def _carried(server: NatsServer, js: Js, d: Path, before: dict[int, Any], pending: dict[str, int]) -> None:
    """ORDERS migrated with every message, pending count and field this jsops does not know; the plan empty."""
    info = js.stream("ORDERS")
    assert info is not None and js.streams() == ["ORDERS"]
    config = info["config"]
    assert (
        config["storage"] == "memory"
        and config["description"] == "set by a newer tool"
        and config["allow_atomic"] is True
    )
    assert config["republish"] == {"src": "orders.>", "dest": "repub.>", "headers_only": True}
    shipper = js.consumer("ORDERS", "shipper")
    assert shipper is not None and shipper["config"].get("description") == "newer"
    assert snapshot(js, "ORDERS") == before and _pending(js) == pending
    rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
    assert rc == 0 and out.startswith("No changes."), out + err


@pytest.mark.integration
@pytest.mark.parametrize("version", MIGRATING)
def test_a_migration_carries_the_fields_this_jsops_does_not_know(
    version: str, tmp_path, older_jsops: Callable[..., None]
) -> None:
    """A storage change migrated through the temporary stream (two legs: each copy created as a mirror, then
    promoted): the stream's top-level (``description``; ``allow_atomic``, which the server refuses on a mirror,
    given at the promotion) and nested (``republish.headers_only``, dropped from the mirror and given back at
    the promotion) fields this jsops does not know, and a consumer's (``description``), are on the migrated
    stream, with every message and pending one; the plan says it carries them. (Not
    ``consumer_limits.max_ack_pending``: the server cannot mirror a stream that has it, 10082.)"""
    server = _server(version)
    js = Js(server.url)
    try:
        d = tmp_path / "m"
        before, pending = _touched_by_a_newer_tool(server, js, d, older_jsops)
        rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
        assert rc == 2 and "ORDERS_JSOPS_MIGRATING" in out, out + err
        said = "fields of ORDERS this jsops does not know (a newer nats-server's) are carried as the server has them: "
        assert said + "allow_atomic, description, republish.headers_only\n" in out, out
        assert "consumer shipper (on ORDERS after ack floor " in out and (
            "; the fields of it this jsops does not know are carried as the server has them: description\n" in out
        ), out
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
        assert rc == 0 and "migrated from ORDERS" in out, out + err
        _carried(server, js, d, before, pending)
    finally:
        js.close()
        server.stop()


class _Killed(BaseException):
    """jsops stopped at a fault point (in this process: the older catalog view stays in force)."""


@pytest.mark.integration
@pytest.mark.parametrize("point", ["after-create@ORDERS_JSOPS_MIGRATING", "after-promote@ORDERS", "after-drop@ORDERS"])
def test_a_migration_stopped_at_a_step_carries_them_when_run_again(
    server: NatsServer, js: Js, tmp_path, older_jsops: Callable[..., None], point: str
) -> None:
    """Stopped after a copy was made without the fields (refused on a mirror), after the last promotion, or
    after the temporary stream's delete (only the last update, removing the record, is left): the run again
    takes the fields from where the server has them (the source, or the promoted copy once the source is
    gone) and the migrated stream has them all."""
    from jsops.reconciler import migration_steps

    def stop(at: str) -> None:
        if f"migrate-{point}" == at:
            raise _Killed(at)

    d = tmp_path / "m"
    before, pending = _touched_by_a_newer_tool(server, js, d, older_jsops)
    with pytest.MonkeyPatch.context() as patch, pytest.raises(_Killed):
        patch.setattr(migration_steps, "fault", stop)
        run("apply", str(d), "--server", server.url, "--yes", "--migrate")
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
    assert rc == 0, out + err
    _carried(server, js, d, before, pending)


def test_the_unknown_fields_of_a_live_stream_read_back_as_sent() -> None:
    """``stream_from_api_json`` and ``config_json`` are inverse with unknown fields at every depth."""
    sent = {
        **_sources(
            {
                "name": "A",
                "external": {"api": "x", "deliver": "y", "e": 1},
                "subject_transforms": [{"src": "a", "dest": "b", "t": 2}],
                "s": 3,
            }
        ),
        "mirror": {"name": "M", "consumer": {"name": "c", "k": 4}},
        "subject_transform": {"src": "o", "dest": "p", "q": 5},
    }
    record, unknown = stream_from_api_json(sent)
    assert config_json(record, unknown) == {**api_json(record), **sent}


def test_golden_a_migration_plan_says_which_unknown_fields_it_carries() -> None:
    """The plan of a migration of a stream (and a consumer it moves) with fields this jsops does not know
    names each (golden); a consumer the migration drops is not named."""
    import os
    from pathlib import Path

    from jsops.reconciler.plan import PlanOptions
    from jsops.reconciler.render_text import render_text

    from .records import desired_of, stored_consumer, stored_stream

    spec = {"name": "LIM", "subjects": ["lim.>"], "republish": {"src": "lim.>", "dest": "r.>"}, "metadata": OWN}
    sent = {
        **stored_stream(spec),
        "future": 1,
        "republish": {"src": "lim.>", "dest": "r.>", "later": True},
        "placement": {"near": "x"},
    }
    live = LiveState(read_at=10_000.0)
    live.streams["LIM"] = LiveStream.from_json(sent, messages=10, bytes=400, first_seq=1, last_seq=10)
    for name in ("c", "gone"):
        body = {**stored_consumer({"durable_name": name, "ack_policy": "explicit", "metadata": OWN}), "someday": 2}
        live.consumers[("LIM", name)] = LiveConsumer.from_json("LIM", body, ack_floor=4, pending=6)
    desired = [
        desired_of("Stream", "LIM", None, {**spec, "storage": "memory"}, "m/a.yaml"),
        desired_of("Consumer", "c", "LIM", {"durable_name": "c", "ack_policy": "explicit"}, "m/a.yaml"),
    ]
    plan = build_plan(desired, live, PlanOptions(migrate=True, server_version="2.15.1"), target="nats://127.0.0.1:4222")
    text = render_text(plan)
    path = Path(__file__).parent / "golden" / "plan_migrate_unknown.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
    assert "carried as the server has them: future, placement.near, republish.later\n" in text
    assert "# consumer c (on LIM after ack floor 4, 6 pending): re-created " in text  # its own, on its line
    assert "are carried as the server has them: someday\n" in text
    gone = next(line for line in text.splitlines() if "consumer gone" in line)
    assert "deleted with LIM" in gone and "someday" not in gone  # not carried: not moved


def test_a_consumer_created_again_with_its_recreated_stream_keeps_its_unknown_fields() -> None:
    """A stream recreated (``--allow-recreate``): the stream and each consumer created again with it are sent
    with the fields this jsops does not know they had."""
    from jsops.reconciler.plan import PlanOptions

    from .records import desired_of, stored_consumer, stored_stream

    spec = {"name": "ORDERS", "subjects": ["orders.>"], "metadata": OWN}
    live = LiveState()
    live.streams["ORDERS"] = LiveStream.from_json(
        {**stored_stream(spec), "placement": {"cluster": "c1", "near": "x"}, "future": 1}
    )
    body = {**stored_consumer({"durable_name": "c", "ack_policy": "explicit", "metadata": OWN}), "someday": 2}
    live.consumers[("ORDERS", "c")] = LiveConsumer.from_json("ORDERS", body)
    desired = [
        desired_of("Stream", "ORDERS", None, {**spec, "storage": "memory", "placement": {"cluster": "c1"}}, "m/a.yaml"),
        desired_of("Consumer", "c", "ORDERS", {"durable_name": "c", "ack_policy": "explicit"}, "m/a.yaml"),
    ]
    plan = build_plan(desired, live, PlanOptions(allow_recreate=True, allow_data_loss=True))
    acts = {a.kind: a for a in plan.actions}
    assert (acts["Stream"].action, acts["Consumer"].action) == ("recreate", "create")
    assert acts["Stream"].request()["future"] == 1 and acts["Stream"].request()["placement"] == {
        "cluster": "c1",
        "near": "x",
    }
    assert acts["Consumer"].request()["someday"] == 2


def test_every_nested_record_type_has_one_identity() -> None:
    """The identity rule is declared once per nested record type of the catalog, for every one (a record
    type added to the catalog without one fails here, not silently at a user's update)."""
    from jsops.linter.semantics import catalog
    from jsops.linter.semantics.unknown_fields import IDENTITIES

    nested = {f.record for r in catalog.RECORDS.values() for f in r.fields if f.record is not None}
    assert set(IDENTITIES) == nested


def test_a_nested_record_that_became_another_takes_no_unknown_fields() -> None:
    """The same rule for a nested record as for a source: a mirror whose origin (name, external API prefix,
    filter) changed, a placement whose cluster changed, a republish to other subjects, are other records and
    get none of the old one's unknown fields; the same record with other settings (a placement's tags, the
    consumer limits' values, an external's deliver prefix) keeps them."""
    sent = {
        **_sources(),
        "placement": {"cluster": "east", "tags": ["ssd"], "pp": 1},
        "republish": {"src": "orders.>", "dest": "r.>", "rr": 2},
        "consumer_limits": {"max_ack_pending": 9, "cc": 3},
    }
    live = LiveStream.from_json(sent)
    kept = config_json(live.config._replace(placement=live.config.placement._replace(tags=("hdd",))), live.extra)  # type: ignore[union-attr]
    assert kept["placement"] == {"cluster": "east", "tags": ["hdd"], "pp": 1}
    limits = live.config.consumer_limits._replace(max_ack_pending=10)
    assert config_json(live.config._replace(consumer_limits=limits), live.extra)["consumer_limits"] == {
        "max_ack_pending": 10,
        "cc": 3,
    }
    moved = config_json(live.config._replace(placement=live.config.placement._replace(cluster="west")), live.extra)  # type: ignore[union-attr]
    assert moved["placement"] == {"cluster": "west", "tags": ["ssd"]}
    other = config_json(live.config._replace(republish=live.config.republish._replace(dest="s.>")), live.extra)  # type: ignore[union-attr]
    assert other["republish"] == {"src": "orders.>", "dest": "s.>"}

    mirror = LiveStream.from_json(
        {
            "name": "M",
            "mirror": {"name": "A", "filter_subject": "a.1", "external": {"api": "$JS.hub.API", "ee": 4}, "mm": 5},
        }
    )
    was = mirror.config.mirror
    assert was is not None
    same = was._replace(external=was.external._replace(deliver="d"))  # type: ignore[union-attr]
    assert config_json(mirror.config._replace(mirror=same), mirror.extra)["mirror"] == {
        "name": "A",
        "filter_subject": "a.1",
        "external": {"api": "$JS.hub.API", "deliver": "d", "ee": 4},
        "mm": 5,
    }
    for changed in (was._replace(name="B"), was._replace(filter_subject="a.2"), was._replace(external=None)):
        out = config_json(mirror.config._replace(mirror=changed), mirror.extra)["mirror"]
        assert isinstance(out, dict) and "mm" not in out and "ee" not in (out.get("external") or {}), out


MOVED = """
apiVersion: jsops/v1
kind: Stream
metadata: {{name: A}}
spec: {{subjects: ["a.>"]}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {{name: B}}
spec: {{subjects: ["b.>"]}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {{name: M}}
spec: {{mirror: {{name: {origin}}}, max_age: {age}}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {{name: ORDERS}}
spec: {{subjects: ["orders.>"], max_age: {age}, placement: {{cluster: {cluster}}}}}
"""


@pytest.mark.integration
@pytest.mark.parametrize("version", RELEASES)
def test_unknown_fields_of_a_mirror_or_placement_do_not_follow_it_to_another_origin_or_cluster(
    version: str, tmp_path, older_jsops: Callable[..., None]
) -> None:
    """On every release, with a mirror's ``opt_start_seq`` and a placement's ``tags`` set by a newer tool and
    unknown to this jsops: an update that keeps the mirror's origin and the placement's cluster keeps them on
    the server; one that changes the origin (a recreate) and the cluster sends neither (the server stores
    placements without checking them on a single server), and the plan after is empty."""
    server = _server(version)
    js = Js(server.url)
    try:
        d = tmp_path / "m"
        manifest(d, "s.yaml", MOVED.format(origin="A", cluster="east", age="1h"))
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
        assert rc == 0, out + err
        _newer_tool_sets(js, "ORDERS", lambda c: c["placement"].update(tags=["ssd"]))
        info = js.stream("M")
        assert info is not None
        js.ok("$JS.API.STREAM.DELETE.M")
        js.ok("$JS.API.STREAM.CREATE.M", {**info["config"], "mirror": {"name": "A", "opt_start_seq": 3}})
        older_jsops("Placement", "tags")
        older_jsops("StreamSource", "opt_start_seq")
        rc, out, err = run("plan", str(d), "--server", server.url)
        assert rc == 0 and out.startswith("No changes."), out + err

        manifest(d, "s.yaml", MOVED.format(origin="A", cluster="east", age="2h"))
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
        assert rc == 0 and "Stream ORDERS: updated" in out and "Stream M: updated" in out, out + err
        assert (js.stream("ORDERS") or {})["config"]["placement"] == {"cluster": "east", "tags": ["ssd"]}
        assert (js.stream("M") or {})["config"]["mirror"] == {"name": "A", "opt_start_seq": 3}

        manifest(d, "s.yaml", MOVED.format(origin="B", cluster="west", age="2h"))
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--allow-recreate", "--allow-data-loss")
        assert rc == 0 and "Stream ORDERS: updated" in out, out + err
        moved = ((js.stream("M") or {})["config"]["mirror"], (js.stream("ORDERS") or {})["config"]["placement"])
        assert moved == ({"name": "B"}, {"cluster": "west"})
        rc, out, err = run("plan", str(d), "--server", server.url)
        assert rc == 0 and out.startswith("No changes."), out + err
    finally:
        js.close()
        server.stop()
