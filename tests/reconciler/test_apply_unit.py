"""Pure functions of issue 12: saved-plan seal and manifest digest, the per-action re-check, the
read-back verdict, and the closing lines of apply (golden)."""

from __future__ import annotations

import copy
import json
import os
import signal
from pathlib import Path

from jsops.linter import api_json
from jsops.reconciler.apply import ActionResult, Stop
from jsops.reconciler.live import LiveConsumer, LiveState, LiveStream
from jsops.reconciler.plan import Intent, Plan, PlanItem, PlanOptions, PlanSet, seal, seal_intact
from jsops.reconciler.readback import applied
from jsops.reconciler.render_json import render_saved
from jsops.reconciler.render_text import outcome_lines
from jsops.reconciler.saved import manifest_digest, recheck

from .records import consumer_record, stream_record

GOLDEN = Path(__file__).parent / "golden"
OWN = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/a.yaml"}


def cfg(name: str, **meta: str):
    return stream_record({"name": name, "subjects": [f"{name.lower()}.>"], "metadata": {**OWN, **meta}})


def live() -> LiveState:
    st = LiveState()
    st.streams["OWNED"] = LiveStream(cfg("OWNED"), messages=0)
    st.streams["ELSEWHERE"] = LiveStream(cfg("ELSEWHERE", **{"io.jsops.source": "other/b.yaml"}))
    st.streams["HAND"] = LiveStream(stream_record({"name": "HAND", "subjects": ["hand.>"]}), messages=5)
    st.consumers[("HAND", "r")] = LiveConsumer("HAND", consumer_record({"durable_name": "r"}))
    return st


def planset() -> PlanSet:
    p = Plan(
        "nats://127.0.0.1:4222",
        "sha256:live",
        [PlanItem(Intent("create", "Stream", "NEW", None, [], None, cfg("NEW")))],
    )
    return PlanSet([p])


def test_seal_detects_any_edit() -> None:
    data = seal(planset(), {"paths": ["m"], "env": None, "manifests": "sha256:m", "files": 1})
    assert seal_intact(data)
    assert PlanSet.from_json(data).binding == data["binding"]
    edits = [
        lambda d: d["actions"][0]["config"].update(name="OTHER"),
        lambda d: d["targets"][0].update(fingerprint="sha256:other"),
        lambda d: d["targets"][0].update(target="nats://elsewhere:4222"),
        lambda d: d["binding"].update(manifests="sha256:x"),
        lambda d: d["binding"].update(paths=["."]),
        lambda d: d["actions"].append(copy.deepcopy(d["actions"][0])),
        lambda d: d.pop("binding"),
    ]
    for edit in edits:
        changed = copy.deepcopy(data)
        edit(changed)
        assert not seal_intact(changed), edit


def test_manifest_digest_covers_paths_and_bytes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m").mkdir()
    a = tmp_path / "m" / "a.yaml"
    a.write_text("x: 1\n")
    first = manifest_digest([str(a)])
    assert manifest_digest([str(a), str(a)]) == first
    a.write_text("x: 2\n")
    assert manifest_digest([str(a)]) != first
    a.write_text("x: 1\n")
    b = tmp_path / "m" / "b.yaml"
    os.rename(a, b)
    assert manifest_digest([str(b)]) != first  # same bytes, another path


def test_recheck_keeps_actions_to_owned_objects_and_the_scope() -> None:
    st = live()
    scoped = PlanOptions(prune=True, prune_paths=("m",))
    assert recheck(Intent("delete", "Stream", "OWNED"), st, scoped) is None
    assert "not managed by jsops" in str(recheck(Intent("delete", "Stream", "HAND"), st, scoped))
    assert "not managed by jsops" in str(recheck(Intent("delete", "Consumer", "r", "HAND"), st, scoped))
    assert "outside the prune scope" in str(recheck(Intent("delete", "Stream", "ELSEWHERE"), st, scoped))
    assert recheck(Intent("delete", "Stream", "NEVER_THERE"), st, scoped) is None
    upd = Intent("update", "Stream", "HAND", None, [], None, cfg("HAND"))
    assert "--adopt HAND" in str(recheck(upd, st, scoped))
    assert recheck(upd, st, PlanOptions(adopt=frozenset({"HAND"}))) is None
    assert "does not exist" in str(recheck(Intent("update", "Stream", "NEW", None, [], None, cfg("NEW")), st, scoped))
    assert "names 'HAND'" in str(recheck(Intent("update", "Stream", "OWNED", None, [], None, cfg("HAND")), st, scoped))
    bare = Intent("create", "Stream", "NEW", None, [], None, stream_record({"name": "NEW"}))
    assert "ownership" in str(recheck(bare, st, scoped))
    assert recheck(Intent("create", "Stream", "NEW", None, [], None, cfg("NEW")), st, scoped) is None
    assert "not managed" in str(recheck(Intent("create", "Stream", "HAND", None, [], None, cfg("HAND")), st, scoped))


def test_applied_verdict() -> None:
    want = cfg("A")
    assert applied(
        Intent("create", "Stream", "A", None, [], None, want), want._replace(metadata={**OWN, "_nats.ver": "x"})
    )
    assert not applied(Intent("create", "Stream", "A", None, [], None, want), None)
    assert not applied(
        Intent("update", "Stream", "A", None, [], None, want), stream_record({"name": "A", "subjects": ["a.>"]})
    )  # not owned
    assert not applied(Intent("update", "Stream", "A", None, [], None, want), want._replace(subjects=("b.>",)))
    assert applied(Intent("delete", "Stream", "A"), None)
    assert not applied(Intent("delete", "Stream", "A"), want)


def test_stop_flag_keeps_the_first_signal() -> None:
    stop = Stop()
    assert not stop and stop.name == ""
    stop.set(signal.SIGTERM)
    stop.set(signal.SIGINT)
    assert stop and stop.name == "SIGTERM"


def _results() -> list[ActionResult]:
    def a(act: str, name: str, stream: str | None = None) -> PlanItem:
        return PlanItem(Intent(act, "Consumer" if stream else "Stream", name, stream))

    out = [
        ActionResult(a("create", "A"), "done", "created"),
        ActionResult(a("update", "B"), "done", "no answer to stream request: nats: timeout; read back: applied"),
        ActionResult(a("create", "C"), "failed", "no answer; read back after reconnecting: not applied"),
        ActionResult(a("delete", "D"), "unknown", "could not read it back"),
        ActionResult(a("recreate", "E"), "blocked", "needs --allow-recreate"),
    ]
    out += [
        ActionResult(a("create", f"S{i:02d}"), "skipped", "not attempted: interrupted (SIGINT)", interrupted=True)
        for i in range(12)
    ]
    out.append(
        ActionResult(a("create", "c", "S00"), "skipped", "not attempted: interrupted (SIGINT)", interrupted=True)
    )
    return out


def test_golden_outcome_lines() -> None:
    rs = _results()
    text = (
        "\n".join(
            [
                "# interrupted",
                *outcome_lines(rs, "SIGINT"),
                "# not interrupted",
                *outcome_lines(rs[:5]),
                "# converged",
                *outcome_lines(rs[:2]),
            ]
        )
        + "\n"
    )
    path = GOLDEN / "apply_outcome.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def test_golden_saved_plan() -> None:
    text = render_saved(planset(), {"paths": ["m"], "env": None, "manifests": "sha256:" + "0" * 64, "files": 1})
    path = GOLDEN / "saved_plan.json"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
    assert seal_intact(json.loads(text))


def test_only_unanswered_requests_count_as_lost() -> None:
    from jsops.reconciler.apply import _no_answer
    from jsops.reconciler.client import JsApiError

    assert _no_answer(JsApiError("no answer to stream request: nats: timeout"))
    assert _no_answer(JsApiError("the connection to the server was lost"))
    assert not _no_answer(JsApiError("stream name already in use with a different configuration", 10058, 400))
    assert not _no_answer(JsApiError("the scale did not settle in time; the move was not made (run apply again)"))


def test_not_applied_says_when_a_recreate_lost_the_object() -> None:
    from jsops.reconciler.readback import _not_applied

    assert "deleted and not created again" in _not_applied(
        Intent("recreate", "Stream", "A", None, [], None, cfg("A")), None
    )
    assert _not_applied(Intent("create", "Stream", "A", None, [], None, cfg("A")), None) == "not applied"


def test_a_saved_plan_of_the_previous_release_loads_and_is_rederived() -> None:
    """A plan saved by the previous release (configs as dicts; this one a partial config no load makes) still
    reads: its seal holds, its configs read into records at the edge, and ``apply PLAN`` refuses an action
    whose config is not what the manifests now give, saying so (nothing is sent); the one made again is sent."""
    from jsops.reconciler.saved import rederive

    data = json.loads((Path(__file__).parent / "data" / "saved_plan_previous_release.json").read_text())
    assert seal_intact(data)
    (plan,) = PlanSet.from_json(data).plans
    (a,) = plan.actions
    assert a.config is not None and a.config.name == "NEW" and a.config.subjects == ("new.>",)
    assert a.config.metadata == OWN and not a.extra
    fresh = Plan(
        plan.target, plan.fingerprint, [PlanItem(Intent("create", "Stream", "NEW", None, [], None, cfg("NEW")))]
    )
    assert rederive(plan, fresh) == ["Stream NEW (create): its config is not the one the manifests give"]
    same = PlanSet.from_json(json.loads(render_saved(PlanSet([fresh]), {"paths": ["m"]}))).plans[0]
    assert rederive(same, fresh) == [] and same.actions == fresh.actions


def test_a_newer_release_field_goes_back_with_the_update() -> None:
    """A field the catalog does not know (a newer server's) is kept beside the live record, not diffed, and
    sent back with an update (and written in the plan's JSON with the config), so the update loses nothing."""
    from jsops.reconciler.plan import Desired, build_plan

    sent = {**api_json(cfg("OWNED")), "max_age": 5, "allow_time_travel": True}
    st = LiveState(streams={"OWNED": LiveStream.from_json(sent)})
    assert st.streams["OWNED"].extra.fields == {"allow_time_travel": True}
    plan = build_plan([Desired("Stream", "OWNED", None, cfg("OWNED"), "m/a.yaml")], st)
    (a,) = plan.actions
    assert a.action == "update" and [c.path for c in a.changes] == ["max_age"]
    assert a.request()["allow_time_travel"] is True and a.request()["max_age"] == 0
    again = Plan.from_json(json.loads(json.dumps(plan.to_json()))).actions[0]
    assert again.extra == a.extra and again.extra.fields == {"allow_time_travel": True} and again.config == a.config
