"""Capacity and cost rules (JS431-JS444): pass and fail cases, profiles with known figures,
options, dialects, fixes, and the io.nats.monitor value parsers."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from jsops.linter.config import Config
from jsops.linter.engine import discover_rules, lint_estate
from jsops.linter.findings import Finding, Severity
from jsops.linter.load import Estate, check_estate, load_text
from jsops.linter.model.profiles import Profiles
from jsops.linter.model.target import Target
from jsops.linter.semantics.units import human_size
from jsops.rules.capacity._common import ceil_size, multi_node

RULES = discover_rules()
MINE = [r for r in RULES if 431 <= int(r.code[2:]) <= 459]
BY_CODE = {r.code: r for r in RULES}
S_ = 1_000_000_000
MiB = 1 << 20
GiB = 1 << 30


def S(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": name}, "spec": spec}


def C(cname: str, stream: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "jsops/v1", "kind": "Consumer", "metadata": {"name": cname, "stream": stream}, "spec": spec}


def profiles(streams: dict[str, Any]) -> Profiles:
    return Profiles.model_validate({"version": 1, "generated_at": "2026-11-21T12:00:00Z", "streams": streams})


def lint(
    docs: list[dict[str, Any]] | str,
    code: str,
    *,
    target: dict[str, Any] | None = None,
    prof: Profiles | None = None,
    options: dict[str, Any] | None = None,
    file: str = "m.yaml",
) -> list[Finding]:
    text = docs if isinstance(docs, str) else "\n---\n".join(json.dumps(d) for d in docs) + "\n"
    estate = Estate()
    load_text(text.encode(), file, estate)
    check_estate(estate)
    assert estate.findings == [], estate.findings
    config = Config(rules={code: options}) if options else None
    result = lint_estate(
        estate, [BY_CODE[code]], target=Target(**(target or {})), config=config, profiles=prof, read_source=None
    )
    return [f for f in result.findings if f.rule == code]


def test_codes_names_and_docs() -> None:
    codes = sorted(r.code for r in MINE)
    assert codes == [f"JS{n}" for n in range(431, 448)]
    for r in MINE:
        module = r.__module__.rsplit(".", 1)[-1]
        assert r.__module__.removeprefix("jsops.").split(".")[1] in ("ops", "capacity", "monitoring")
        assert r.name == "ops-" + module.replace("_", "-")
        assert r.severity in (Severity.WARNING, Severity.INFO)
        r.Options()  # every option has a default


# --- JS431 stream without limits -------------------------------------------------------------


@pytest.mark.parametrize(
    "spec,fires",
    [
        ({}, True),
        ({"retention": "interest"}, True),
        ({"max_bytes": -1, "max_msgs": -1, "max_age": "0s"}, True),
        ({"max_age": "1h"}, False),
        ({"max_bytes": "1GiB"}, False),
        ({"max_msgs": 10}, False),
        ({"max_msgs_per_subject": 1}, False),
    ],
)
def test_js431(spec: dict[str, Any], fires: bool) -> None:
    found = lint([S("A", subjects=["a.>"], **spec)], "JS431")
    assert bool(found) is fires
    if fires:
        assert found[0].severity is Severity.WARNING and "no max_age" in found[0].message
        text = json.dumps(S("A", subjects=["a.>"], **spec))
        assert (found[0].line, found[0].column) == (1, text.index('"spec"') + 1)  # at the spec key


def test_js431_points_at_spec() -> None:
    text = "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: A\nspec:\n  subjects: [a.>]\n"
    found = lint(text, "JS431")
    assert (found[0].line, found[0].column) == (5, 1)


def test_js431_nack_and_api_json() -> None:
    nack = "apiVersion: jetstream.nats.io/v1beta2\nkind: Stream\nmetadata: {name: a}\nspec: {name: A, subjects: [a.>], storage: file}\n"
    assert len(lint(nack, "JS431")) == 1
    api = json.dumps({"name": "A", "subjects": ["a.>"], "max_age": 3600 * S_})
    assert lint(api, "JS431", file="a.json") == []


# --- JS432 max_bytes fills before max_age ----------------------------------------------------

ORDERS_PROFILE = profiles({"ORDERS": {"bytes": {"mean_per_s": 7100.0, "peak_per_s": 210000}}})


def test_js432_silent_without_profile() -> None:
    assert lint([S("ORDERS", max_age="30d", max_bytes="1GiB")], "JS432") == []


def test_js432_mean_rate_known_figures() -> None:
    # 1 GiB / 7100 B/s = 151230.9 s = 42h0m (minutes); 30d x 7100 B/s = 18403200000 B -> 18GiB rounded up
    found = lint([S("ORDERS", max_age="30d", max_bytes="1GiB")], "JS432", prof=ORDERS_PROFILE)
    assert len(found) == 1
    f = found[0]
    assert "1d18h" in f.message and "mean" in f.message and "6.9KiB/s" in f.message
    assert f.fix is not None and "18GiB" in f.fix.description and f.fix.edits == ()
    assert f.line == 1  # JSON single line: points into the document
    # 17.14 GiB needed: 17GiB still fills early, 18GiB holds 30 days
    assert len(lint([S("ORDERS", max_age="30d", max_bytes="17GiB")], "JS432", prof=ORDERS_PROFILE)) == 1
    assert lint([S("ORDERS", max_age="30d", max_bytes="18GiB")], "JS432", prof=ORDERS_PROFILE) == []


def test_js432_peak_option() -> None:
    # peak 210000 B/s: 18GiB fills in 92038 s (~25.6h) < 30d; mean says fine
    docs = [S("ORDERS", max_age="30d", max_bytes="18GiB")]
    found = lint(docs, "JS432", prof=ORDERS_PROFILE, options={"rate": "peak"})
    assert len(found) == 1 and "peak" in found[0].message and "1d1h33m" in found[0].message
    # 1d of peak = 18144000000 B = 16.9GiB: 18GiB covers a 1d max_age even at the peak
    assert (
        lint([S("ORDERS", max_age="1d", max_bytes="18GiB")], "JS432", prof=ORDERS_PROFILE, options={"rate": "peak"})
        == []
    )


def test_js432_bad_option_is_config_error() -> None:
    from jsops.linter.config import ConfigError, select_rules

    with pytest.raises(ConfigError):
        select_rules(Config(rules={"JS432": {"rate": "p99"}}), RULES)


@pytest.mark.parametrize(
    "spec",
    [
        {"max_age": "30d"},  # no max_bytes
        {"max_bytes": "1GiB"},  # no max_age
        {"max_age": "30d", "max_bytes": "1GiB", "retention": "workqueue"},
        {"max_age": "30d", "max_bytes": "1GiB", "retention": "interest"},
    ],
)
def test_js432_silent_cases(spec: dict[str, Any]) -> None:
    assert lint([S("ORDERS", **spec)], "JS432", prof=ORDERS_PROFILE) == []


def test_js432_missing_figures_stay_silent() -> None:
    docs = [S("ORDERS", max_age="30d", max_bytes="1GiB")]
    assert lint(docs, "JS432", prof=profiles({"OTHER": {"bytes": {"mean_per_s": 1e9}}})) == []
    assert lint(docs, "JS432", prof=profiles({"ORDERS": {"ingest": {"messages": 10, "mean_per_s": 5.0}}})) == []
    assert lint(docs, "JS432", prof=profiles({"ORDERS": {"bytes": {"peak_per_s": 10**9}}})) == []  # mean absent
    assert lint(docs, "JS432", prof=profiles({"ORDERS": {"bytes": {"mean_per_s": 0.0}}})) == []


def test_js432_ignores_the_retention_span() -> None:
    # retention_span_ns is the age of the oldest message kept: for a young stream it is just its
    # age, so it neither proves nor disproves an early fill; the rule judges by the rate alone
    docs = [S("ORDERS", max_age="30d", max_bytes="18GiB")]
    prof = profiles({"ORDERS": {"bytes": {"mean_per_s": 7100.0}, "retention_span_ns": 600 * S_}})
    assert lint(docs, "JS432", prof=prof) == []


def test_js432_discard_new_message() -> None:
    found = lint([S("ORDERS", max_age="30d", max_bytes="1GiB", discard="new")], "JS432", prof=ORDERS_PROFILE)
    assert len(found) == 1 and "publishes are refused" in found[0].message


# --- JS433 memory streams ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec,fires,where",
    [
        ({"storage": "memory"}, True, "storage"),
        ({"storage": "memory", "max_bytes": "101MiB"}, True, "max_bytes"),
        ({"storage": "memory", "max_bytes": "100MiB"}, False, ""),
        ({"storage": "memory", "max_bytes": "64MiB"}, False, ""),
        ({"storage": "file"}, False, ""),
        ({"max_bytes": "10GiB"}, False, ""),
    ],
)
def test_js433(spec: dict[str, Any], fires: bool, where: str) -> None:
    text = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec:\n  subjects: [a.>]\n" + "".join(
        f"  {k}: {v}\n" for k, v in spec.items()
    )
    found = lint(text, "JS433")
    assert bool(found) is fires
    if fires:
        line = next(i for i, l in enumerate(text.splitlines(), 1) if l.strip().startswith(where + ":"))
        assert found[0].line == line


def test_js433_option_and_replicas() -> None:
    docs = [S("A", subjects=["a.>"], storage="memory", max_bytes="64MiB", num_replicas=3)]
    found = lint(docs, "JS433", options={"max_bytes": "32MiB"})
    assert (
        len(found) == 1 and "192MiB of RAM over 3 replicas" in found[0].message and "32MiB budget" in found[0].message
    )
    assert lint(docs, "JS433", options={"max_bytes": 64 * MiB}) == []


def test_js433_without_max_bytes_uses_hard_bounds_then_the_profile() -> None:
    mem = {"subjects": ["a.>"], "storage": "memory"}
    # max_msgs x max_msg_size = 100KiB: bounded within the budget by declared limits alone
    assert lint([S("A", **mem, max_msgs=100, max_msg_size="1KiB")], "JS433") == []
    # max_msgs x the target's max_payload (1000 x 1MiB) is over the budget; no profile: no byte bound
    found = lint([S("A", **mem, max_msgs=1000)], "JS433", target={"max_payload": "1MiB"})
    assert len(found) == 1 and "without max_bytes: it may grow" in found[0].message
    assert lint([S("A", **mem, max_msgs=100)], "JS433", target={"max_payload": "1MiB"}) == []
    # profile: 7100 B/s x 1h = 25560000 B (24.4MiB) fits; x 1d = 613440000 B (585MiB) does not
    prof = profiles({"A": {"bytes": {"mean_per_s": 7100.0, "stored_msg_size_mean": 512.0}}})
    assert lint([S("A", **mem, max_age="1h")], "JS433", prof=prof) == []
    found = lint([S("A", **mem, max_age="1d")], "JS433", prof=prof)
    assert len(found) == 1 and "about 585MiB" in found[0].message and "profiled mean 6.9KiB/s" in found[0].message
    # max_msgs x 512 B: 1e6 -> 488.3MiB (flagged), 1e5 -> 48.8MiB (fits), the smaller estimate wins
    found = lint([S("A", **mem, max_age="1d", max_msgs=1_000_000)], "JS433", prof=prof)
    assert len(found) == 1 and "about 488.3MiB" in found[0].message and "stored size 512B" in found[0].message
    assert lint([S("A", **mem, max_age="1d", max_msgs=100_000)], "JS433", prof=prof) == []


# --- JS434 large uncompressed file streams --------------------------------------------------


def test_js434_declared_max_bytes() -> None:
    found = lint([S("A", subjects=["a.>"], max_bytes="2GiB")], "JS434")
    assert len(found) == 1 and found[0].severity is Severity.INFO
    fix = found[0].fix
    assert fix is not None and fix.applicability == "unsafe" and fix.edits[0].value == "s2"
    assert lint([S("A", subjects=["a.>"], max_bytes="2GiB", compression="s2")], "JS434") == []
    assert lint([S("A", subjects=["a.>"], max_bytes="1GiB")], "JS434") == []  # not more than the threshold
    assert lint([S("A", subjects=["a.>"], max_bytes="2GiB", storage="memory")], "JS434") == []
    assert len(lint([S("A", subjects=["a.>"], max_bytes="600MiB")], "JS434", options={"max_bytes": "512MiB"})) == 1


def test_js434_profile_estimate_when_max_bytes_unset() -> None:
    # 7100 B/s x 30d = 18403200000 B (~17.1GiB) > 1GiB; x 1h = 25560000 B < 1GiB
    assert lint([S("ORDERS", max_age="30d")], "JS434") == []  # no profile: silent
    found = lint([S("ORDERS", max_age="30d")], "JS434", prof=ORDERS_PROFILE)
    assert len(found) == 1 and "17.1GiB" in found[0].message
    assert lint([S("ORDERS", max_age="1h")], "JS434", prof=ORDERS_PROFILE) == []
    assert lint([S("ORDERS")], "JS434", prof=ORDERS_PROFILE) == []  # no max_age: no estimate
    # max_msgs 1000 x max_msg_size 64KiB = 62.5MiB caps the estimate
    assert lint([S("ORDERS", max_age="30d", max_msgs=1000, max_msg_size="64KiB")], "JS434", prof=ORDERS_PROFILE) == []
    found = lint([S("ORDERS", max_age="30d", max_msgs=100_000, max_msg_size="64KiB")], "JS434", prof=ORDERS_PROFILE)
    assert len(found) == 1 and "6.1GiB" in found[0].message and "largest message" in found[0].message


FIXABLE = """\
apiVersion: jsops/v1
kind: Stream
metadata: {name: A}
spec:
  subjects: [a.>]
  max_bytes: 2GiB     # big
  num_replicas: 2
  max_msg_size: 8MiB
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: c, stream: A}
spec:
  deliver_subject: d.c
  max_ack_pending: -1
"""


def test_fixes_apply_and_clear_the_findings() -> None:
    from jsops.linter.fix import fix_findings

    codes = ["JS434", "JS435", "JS437", "JS438", "JS439", "JS442"]
    target = Target(cluster_size=3, max_payload=MiB)

    def run(text: str) -> list[Finding]:
        estate = Estate()
        load_text(text.encode(), "m.yaml", estate)
        check_estate(estate)
        assert estate.findings == []
        return lint_estate(estate, [BY_CODE[c] for c in codes], target=target, read_source=None).findings

    before = run(FIXABLE)
    assert sorted(f.rule for f in before) == codes
    safe = fix_findings(before, unsafe=False, read=lambda _f: FIXABLE)
    assert safe.applied == 1  # only JS442 is safe
    report = fix_findings(before, unsafe=True, read=lambda _f: FIXABLE)
    assert report.notes == [] and report.applied == len(codes)
    after = report.changed["m.yaml"][1]
    assert "max_bytes: 2GiB     # big" in after and "compression: s2" in after
    assert "num_replicas: 3" in after and "max_ack_pending" not in after and "max_msg_size: 1MiB" in after
    assert "idle_heartbeat: 15s" in after and "flow_control: true" in after
    assert run(after) == []


# --- JS435 R2 / R4 ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "replicas,target,fires",
    [
        (2, {}, True),
        (4, {}, True),
        (3, {}, False),
        (1, {}, False),
        (5, {}, False),
        (2, {"clustered": False}, False),  # the server refuses it (JS315)
        (4, {"clustered": True, "cluster_size": 3}, False),  # more replicas than servers: JS315
        (4, {"clustered": True, "cluster_size": 5}, True),
        (2, {"clustered": True, "cluster_size": 2}, True),
    ],
)
def test_js435_streams(replicas: int, target: dict[str, Any], fires: bool) -> None:
    found = lint([S("A", subjects=["a.>"], num_replicas=replicas)], "JS435", target=target)
    assert bool(found) is fires


def test_js435_fix_depends_on_cluster_size() -> None:
    big = lint([S("A", subjects=["a.>"], num_replicas=2)], "JS435", target={"cluster_size": 5})[0]
    assert big.fix is not None and big.fix.edits and big.fix.edits[0].value == 3
    small = lint([S("A", subjects=["a.>"], num_replicas=2)], "JS435", target={"cluster_size": 2})[0]
    assert small.fix is not None and small.fix.edits == ()


def test_js435_consumers() -> None:
    r3 = S("A", subjects=["a.>"], num_replicas=3)
    found = lint([r3, C("c", "A", num_replicas=2)], "JS435")
    assert [f.object.kind for f in found] == ["Consumer"]
    # same count as its R2 stream: only the stream is reported
    found = lint([S("A", subjects=["a.>"], num_replicas=2), C("c", "A", num_replicas=2)], "JS435")
    assert [f.object.kind for f in found] == ["Stream"]
    assert lint([r3, C("c", "A")], "JS435") == []


# --- JS436 R1 in a multi-node target --------------------------------------------------------


@pytest.mark.parametrize(
    "target,fires",
    [
        ({}, False),  # unknown: silent
        ({"clustered": False}, False),
        ({"cluster_size": 1}, False),
        ({"clustered": True}, True),
        ({"clustered": True, "cluster_size": 3}, True),
        ({"cluster_size": 2}, True),
    ],
)
def test_js436_target(target: dict[str, Any], fires: bool) -> None:
    assert bool(lint([S("A", subjects=["a.>"])], "JS436", target=target)) is fires


def test_js436_memory_option_and_fix() -> None:
    t = {"clustered": True, "cluster_size": 3}
    mem = [S("A", subjects=["a.>"], storage="memory")]
    assert lint(mem, "JS436", target=t) == []
    assert len(lint(mem, "JS436", target=t, options={"include_memory": True})) == 1
    assert lint([S("A", subjects=["a.>"], num_replicas=3)], "JS436", target=t) == []
    f = lint([S("A", subjects=["a.>"])], "JS436", target=t)[0]
    assert f.severity is Severity.INFO and "3-server cluster" in f.message
    assert f.fix is not None and f.fix.edits[0].value == 3
    two = lint([S("A", subjects=["a.>"])], "JS436", target={"cluster_size": 2})[0]
    assert two.fix is not None and two.fix.edits == ()


def test_multi_node() -> None:
    assert multi_node(Target()) is None
    assert multi_node(Target(clustered=True)) is True
    assert multi_node(Target(clustered=True, cluster_size=1)) is False
    assert multi_node(Target(clustered=False)) is False
    assert multi_node(Target(cluster_size=3)) is True


# --- JS437 allow_direct off on R>1 ----------------------------------------------------------


@pytest.mark.parametrize(
    "spec,fires",
    [
        ({"num_replicas": 3}, True),
        ({"num_replicas": 3, "allow_direct": False}, True),
        ({"num_replicas": 3, "allow_direct": True}, False),
        ({"num_replicas": 1}, False),
        ({}, False),
    ],
)
def test_js437(spec: dict[str, Any], fires: bool) -> None:
    found = lint([S("A", subjects=["a.>"], **spec)], "JS437")
    assert bool(found) is fires
    if fires:
        assert found[0].fix is not None and found[0].fix.edits[0].value is True


# --- JS438 max_ack_pending -1 -----------------------------------------------------------------

STREAM_A = S("A", subjects=["a.>"], max_age="1d")


@pytest.mark.parametrize(
    "spec,fires",
    [
        ({"max_ack_pending": -1}, True),
        ({"max_ack_pending": -5}, True),
        ({"max_ack_pending": -1, "ack_policy": "all"}, True),
        ({"max_ack_pending": -1, "ack_policy": "none"}, False),  # nothing is pending without acks
        ({"max_ack_pending": 1000}, False),
        ({}, False),  # server default 1000
    ],
)
def test_js438(spec: dict[str, Any], fires: bool) -> None:
    found = lint([STREAM_A, C("c", "A", **spec)], "JS438")
    assert bool(found) is fires
    if fires:
        assert found[0].fix is not None and found[0].fix.edits[0].op == "remove"


def test_js438_push_message() -> None:
    found = lint([STREAM_A, C("c", "A", max_ack_pending=-1, deliver_subject="d.c", idle_heartbeat="5s")], "JS438")
    assert "only flow control" in found[0].message
    found = lint(
        [STREAM_A, C("c", "A", max_ack_pending=-1, deliver_subject="d.c", idle_heartbeat="5s", flow_control=True)],
        "JS438",
    )
    assert len(found) == 1 and "only flow control" not in found[0].message


# --- JS439 push consumers without heartbeats / flow control ---------------------------------


@pytest.mark.parametrize(
    "spec,missing",
    [
        ({"deliver_subject": "d.c"}, ["idle_heartbeat", "flow_control"]),
        ({"deliver_subject": "d.c", "idle_heartbeat": "15s"}, ["flow_control"]),
        ({"deliver_subject": "d.c", "idle_heartbeat": "15s", "flow_control": True}, []),
        ({"deliver_subject": "d.c", "deliver_group": "workers"}, []),  # queue subscriptions cannot use them
        ({}, []),  # pull
    ],
)
def test_js439(spec: dict[str, Any], missing: list[str]) -> None:
    found = lint([STREAM_A, C("c", "A", **spec)], "JS439")
    assert bool(found) is bool(missing)
    if missing:
        f = found[0]
        assert [e.path[-1] for e in f.fix.edits] == missing  # type: ignore[union-attr]
        for m in missing:
            assert m in f.message


def test_js439_option() -> None:
    docs = [STREAM_A, C("c", "A", deliver_subject="d.c", idle_heartbeat="15s")]
    assert lint(docs, "JS439", options={"require_flow_control": False}) == []
    hb = lint([STREAM_A, C("c", "A", deliver_subject="d.c")], "JS439", options={"require_flow_control": False})
    assert len(hb) == 1 and "idle_heartbeat" in hb[0].message and "flow_control" not in hb[0].message


# --- JS440 ephemeral consumers ----------------------------------------------------------------


def test_js440_native() -> None:
    found = lint([STREAM_A, C("c", "A", name="c")], "JS440")
    assert len(found) == 1 and "5s" in found[0].message
    assert "1h" in lint([STREAM_A, C("c", "A", name="c", inactive_threshold="1h")], "JS440")[0].message
    assert lint([STREAM_A, C("c", "A")], "JS440") == []  # the name comes from metadata: durable
    assert lint([STREAM_A, C("c", "A", durable_name="c")], "JS440") == []


def test_js440_api_json() -> None:
    text = json.dumps({"stream_name": "A", "config": {"name": "c", "ack_policy": "explicit"}})
    estate_text = json.dumps({"name": "A", "subjects": ["a.>"]})
    estate = Estate()
    load_text(estate_text.encode(), "a.json", estate)
    load_text(text.encode(), "c.json", estate)
    check_estate(estate)
    assert estate.findings == []
    found = [f for f in lint_estate(estate, [BY_CODE["JS440"]], read_source=None).findings if f.rule == "JS440"]
    assert len(found) == 1 and found[0].file == "c.json"


# --- JS441 interest streams without consumers ---------------------------------------------


def test_js441() -> None:
    interest = S("SHIPPING", subjects=["shipping.>"], retention="interest", max_age="1d")
    found = lint([interest], "JS441")
    assert len(found) == 1 and "SHIPPING" in found[0].message and found[0].line == 1
    assert lint([interest, C("printer", "SHIPPING")], "JS441") == []
    # a consumer of another stream does not count
    assert len(lint([interest, STREAM_A, C("c", "A")], "JS441")) == 1
    # a mirror or a source reads it through a server-made consumer
    assert lint([interest, S("COPY", mirror={"name": "SHIPPING"})], "JS441") == []
    assert lint([interest, S("AGG", sources=[{"name": "SHIPPING"}])], "JS441") == []
    ext = S("AGG", sources=[{"name": "SHIPPING", "external": {"api": "$JS.hub.API"}}])
    assert len(lint([interest, ext], "JS441")) == 1
    assert lint([S("L", subjects=["l.>"], max_age="1d")], "JS441") == []  # limits retention


def test_js441_many_streams_each_reported_once() -> None:
    docs: list[dict[str, Any]] = []
    for i in range(300):
        docs.append(S(f"I{i}", subjects=[f"i{i}.>"], retention="interest", max_age="1d"))
        if i % 2:
            docs.append(C("c", f"I{i}"))
    found = lint(docs, "JS441")
    assert sorted(f.object.name for f in found) == sorted(f"I{i}" for i in range(0, 300, 2))


# --- JS442 max_msg_size above max_payload ---------------------------------------------------


@pytest.mark.parametrize(
    "size,target,fires",
    [
        ("8MiB", {"max_payload": "1MiB"}, True),
        ("1MiB", {"max_payload": "1MiB"}, False),
        ("512KiB", {"max_payload": "1MiB"}, False),
        ("8MiB", {}, False),  # max_payload unknown: silent
        (None, {"max_payload": "1MiB"}, False),  # unlimited max_msg_size: bounded by max_payload anyway
    ],
)
def test_js442(size: str | None, target: dict[str, Any], fires: bool) -> None:
    spec = {"max_msg_size": size} if size else {}
    found = lint([S("A", subjects=["a.>"], **spec)], "JS442", target=target)
    assert bool(found) is fires
    if fires:
        f = found[0]
        assert f.fix is not None and f.fix.applicability == "safe" and f.fix.edits[0].value == "1MiB"


def test_js442_nack_fix_writes_an_integer() -> None:
    nack = (
        "apiVersion: jetstream.nats.io/v1beta2\nkind: Stream\nmetadata: {name: a}\n"
        "spec: {name: A, subjects: [a.>], storage: file, maxMsgSize: 8388608, maxAge: 1h}\n"
    )
    found = lint(nack, "JS442", target={"max_payload": "1MiB"})
    assert (
        found[0].fix is not None
        and found[0].fix.edits[0].value == MiB
        and found[0].fix.edits[0].path[-1] == "maxMsgSize"
    )


# --- JS443 / JS444 io.nats.monitor metadata --------------------------------------------------


def test_js443_unknown_keys() -> None:
    meta = {
        "io.nats.monitor.lag_critical": "200",  # typo
        "io.nats.monitor.waiting-critical": "20",  # consumer key on a stream
        "io.nats.monitor.lag-critical": "200",  # fine
        "owner": "team",  # not a monitor key
    }
    found = lint([S("A", subjects=["a.>"], metadata=meta)], "JS443")
    msgs = sorted(f.message for f in found)
    assert len(found) == 2
    assert any("did you mean io.nats.monitor.lag-critical" in m for m in msgs)
    assert any("it is a consumer key" in m for m in msgs)


def test_js443_consumer_and_position() -> None:
    text = (
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a.>], max_age: 1d}\n---\n"
        "apiVersion: jsops/v1\nkind: Consumer\nmetadata: {name: c, stream: A}\nspec:\n  metadata:\n"
        "    io.nats.monitor.pinned: 'true'\n    io.nats.monitor.msgs-warn: '10'\n"
    )
    found = lint(text, "JS443")
    assert len(found) == 1 and "it is a stream key" in found[0].message
    assert (found[0].line, found[0].column) == (12, 5)  # at the key


@pytest.mark.parametrize(
    "kind,key,value,ok",
    [
        ("Stream", "enabled", "true", True),
        ("Stream", "enabled", "yes", False),
        ("Stream", "lag-critical", "200", True),
        ("Stream", "lag-critical", "-1", False),  # unsigned
        ("Stream", "lag-critical", "2e3", False),
        ("Stream", "seen-critical", "5m", True),
        ("Stream", "seen-critical", "300", False),  # a duration needs a unit
        ("Stream", "seen-critical", "0", True),
        ("Stream", "peer-expect", "-3", True),  # signed int parses (natscli does not judge it)
        ("Stream", "subjects-warn", "1_000", False),
        ("Consumer", "last-ack-critical", "1h30m", True),
        ("Consumer", "last-ack-critical", "2d", True),
        ("Consumer", "last-ack-critical", "5 minutes", False),
        ("Consumer", "pinned", "T", True),
        ("Consumer", "pinned", "on", False),
        ("Consumer", "redelivery-critical", "10.5", False),
    ],
)
def test_js444_values(kind: str, key: str, value: str, ok: bool) -> None:
    meta = {f"io.nats.monitor.{key}": value}
    docs = [STREAM_A, C("c", "A", metadata=meta)] if kind == "Consumer" else [S("A", subjects=["a.>"], metadata=meta)]
    found = lint(docs, "JS444")
    assert (found == []) is ok
    if not ok:
        assert ("reports CRITICAL" if kind == "Stream" else "nats audit") in found[0].message


def test_js444_ignores_unknown_and_wrong_kind_keys() -> None:
    meta = {"io.nats.monitor.nope": "x", "io.nats.monitor.pinned": "x"}  # pinned is a consumer key
    assert lint([S("A", subjects=["a.>"], metadata=meta)], "JS444") == []


@pytest.mark.parametrize(
    "spec,fires",
    [
        ({"metadata": {"io.nats.monitor.pinned": "true"}}, True),
        ({"metadata": {"io.nats.monitor.pinned": "1"}}, True),
        ({"metadata": {"io.nats.monitor.pinned": "false"}}, False),
        ({"metadata": {"io.nats.monitor.pinned": "nope"}}, False),  # JS444's business
        (
            {
                "metadata": {"io.nats.monitor.pinned": "true"},
                "priority_policy": "pinned_client",
                "priority_groups": ["g"],
            },
            False,
        ),
        (
            {"metadata": {"io.nats.monitor.pinned": "true"}, "priority_policy": "overflow", "priority_groups": ["g"]},
            True,
        ),
        ({}, False),
    ],
)
def test_js445(spec: dict[str, Any], fires: bool) -> None:
    assert bool(lint([STREAM_A, C("c", "A", **spec)], "JS445")) is fires


def test_helpers() -> None:
    assert human_size(7100) == "6.9KiB" and human_size(512) == "512B" and human_size(GiB) == "1GiB"
    assert ceil_size(18_403_200_000) == 18 * GiB and ceil_size(MiB + 1) == 2 * MiB and ceil_size(10) == 10


# --- golden: the text report and the unsafe-fix diff on tests/golden/capacity ------------------

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "capacity"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"


def _golden(path: Path, text: str) -> None:
    if UPDATE:
        path.write_text(text)
    assert text == path.read_text(), (
        f"{path.name} differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    )


@pytest.mark.parametrize(
    "extra,golden",
    [([], "lint.txt"), (["--diff", "--unsafe-fixes"], "fix.diff")],
)
def test_cli_golden(extra: list[str], golden: str, tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    from jsops.linter.cli.app import main

    for name in ("estate.yaml", "jsops.yaml", "profiles.json"):
        shutil.copy(GOLDEN / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    rc = main(["lint", "estate.yaml", "--config", "jsops.yaml", "--profiles", "profiles.json", *extra])
    out, err = capsys.readouterr()
    assert err == "" and rc == 1
    _golden(GOLDEN / golden, out)
    assert (tmp_path / "estate.yaml").read_text() == (GOLDEN / "estate.yaml").read_text()  # --diff writes nothing


def test_groups_select_the_capacity_and_monitoring_rules() -> None:
    from jsops.linter.config import select_rules

    capacity = {r.code for r in select_rules(Config(select=["capacity"]), RULES).rules}
    monitoring = {r.code for r in select_rules(Config(select=["monitoring"]), RULES).rules}
    cost = {r.code for r in select_rules(Config(select=["cost"]), RULES).rules}
    assert monitoring == {"JS443", "JS444", "JS445"}
    assert cost == {"JS433", "JS434"}
    assert capacity == {f"JS{n}" for n in range(431, 443)}
