"""Differential test of the plan's predicted refusals (jsops.reconciler.plan.predict) against what
nats-server does: small random (live estate, desired estate) pairs with overlapping subjects,
workqueue consumers and account limits; per action, the predicted err_code must be the one the
server answers when the plan is applied *without* the predictions (None for both when it
succeeds). The agreement rate is printed; on the fixed seeds it must be 100%."""

from __future__ import annotations

import random
from typing import Any

import pytest

from .helpers import Js, NatsServer

pytestmark = pytest.mark.integration

SEEDS = range(30)
SUBJECTS = ["a.>", "a.x", "a.*", "b.y", "b.*", "c"]


def _free(rng: random.Random, pool: list[str], taken: list[str], n: int) -> list[str]:
    """Up to ``n`` subjects of ``pool`` colliding with none of ``taken`` (manifests that overlap
    each other never pass the lint gate), which takes them."""
    from jsops.linter.semantics.subjects import subjects_collide

    out: list[str] = []
    for s in rng.sample(pool, len(pool)):
        if len(out) < n and not any(subjects_collide(s, t) for t in taken):
            out.append(s)
            taken.append(s)
    return out


def _stream(rng: random.Random, taken: list[str]) -> dict[str, Any]:
    cfg: dict[str, Any] = {"subjects": _free(rng, SUBJECTS, taken, rng.randint(1, 2)) or [f"z{len(taken)}"]}
    if rng.random() < 0.4:
        cfg["retention"] = "workqueue"
    if rng.random() < 0.4:
        cfg["max_bytes"] = rng.choice([1, 3, 6]) << 20
    if rng.random() < 0.2:
        cfg["max_consumers"] = 1
    return cfg


def _consumers(rng: random.Random, stream: dict[str, Any], prefix: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    taken: list[str] = []
    for i in range(rng.randint(0, 2)):
        cfg: dict[str, Any] = {"ack_policy": "explicit"}
        if rng.random() < 0.8:
            pick = _free(
                rng, ["a.x", "a.y", "b.y", "a.>", "c"], taken if stream.get("retention") == "workqueue" else [], 1
            )
            if not pick:
                continue
            cfg["filter_subject"] = pick[0]
        out[f"{prefix}{i}"] = cfg
    return out


def _estate(seed: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, int]]:
    rng = random.Random(seed)
    live_taken: list[str] = []
    live = {f"L{i}": (s := _stream(rng, live_taken), _consumers(rng, s, "lc")) for i in range(rng.randint(1, 3))}
    taken: list[str] = []
    desired = {f"D{i}": (s := _stream(rng, taken), _consumers(rng, s, "dc")) for i in range(rng.randint(1, 3))}
    limits = {"max_streams": rng.randint(2, 5), "max_consumers": rng.randint(1, 4), "max_file": rng.choice([8, 16, 64])}
    return live, desired, limits


def _desired(desired: dict[str, Any]) -> list[Any] | None:
    """The desired objects, or None when the lint gate refuses the manifests (plan never gets to the server)."""
    from jsops.linter import Estate, Resource
    from jsops.linter.config import Config
    from jsops.linter.model.config import ConsumerConfig, StreamConfig
    from jsops.reconciler.plan import desired_from_estate
    from jsops.reconciler.preflight import gate_lint

    res = []
    for name, (scfg, consumers) in desired.items():
        res.append(Resource(kind="Stream", name=name, stream=None, config=StreamConfig(**scfg), file=""))
        for cname, ccfg in consumers.items():
            res.append(
                Resource(
                    kind="Consumer", name=cname, stream=name, config=ConsumerConfig(durable_name=cname, **ccfg), file=""
                )
            )
    estate = Estate(resources=res)
    found = gate_lint(estate, Config(), read_source=None)
    if found.errors or found.create_only:
        return None
    return desired_from_estate(estate, root="/")


def _server_live(js: Js, live: dict[str, Any]) -> None:
    for name, (scfg, consumers) in live.items():
        if "error" in js.request(f"$JS.API.STREAM.CREATE.{name}", {"name": name, **scfg}):
            continue  # the live estate is whatever the server took
        for cname, ccfg in consumers.items():
            js.request(
                f"$JS.API.CONSUMER.CREATE.{name}.{cname}",
                {"stream_name": name, "config": {"durable_name": cname, **ccfg}},
            )


def _one(seed: int, binary: str | None = None) -> tuple[int, int, list[str]] | None:
    from jsops.reconciler.apply import execute_plan
    from jsops.reconciler.client import JsClient, Target
    from jsops.reconciler.live import read_live
    from jsops.reconciler.plan import account_usage, build_plan, predict

    live, desired, limits = _estate(seed)
    wanted = _desired(desired)
    if wanted is None:
        return None
    acc = (
        "accounts { A { jetstream { "
        + f"max_streams: {limits['max_streams']}, max_consumers: {limits['max_consumers']}, "
        f"max_file: {limits['max_file']}MB" + " }, users [{user: a, password: a}] } }"
    )
    with NatsServer(extra_config=acc, binary=binary) as server:
        url = server.url.replace("nats://", "nats://a:a@")
        js = Js(url)
        try:
            _server_live(js, live)
        finally:
            js.close()
        # One request at a time, in plan order: here every action is sent, also those the plan
        # predicts to fail (a real apply never sends them, so its outcome does not hang on the
        # order). Sent concurrently, two creates racing for the account's last stream slot get
        # their refusals in whichever order the server takes them, and one refused for two
        # reasons (an overlap and the limit) is named by whichever check it meets first.
        client = JsClient(Target(servers=(url,)), concurrency=1)
        try:
            state = read_live(client)
            plan = build_plan(wanted, state)
            if any(a.action == "blocked" for a in plan.actions):
                return None  # not a plan the server decides (ownership, flags)
            predicted = predict(plan, state, account_usage(client.request("INFO")))
            report = execute_plan(client, plan, state, _options())
        finally:
            client.close()
    agree, total, wrong = 0, 0, []
    index = {id(a): i for i, a in enumerate(plan.actions)}
    for r in report.results:
        i = index[id(r.action)]
        want = predicted[i].err_code if i in predicted else None
        got = r.err_code if r.status == "failed" else None
        total += 1
        if want == got:
            agree += 1
        else:
            wrong.append(
                f"seed {seed}: {r.action.label}: predicted {want}, server {got} ({r.detail}; {predicted.get(i)})"
            )
    return agree, total, wrong


def _options() -> Any:
    from jsops.reconciler.plan import PlanOptions

    return PlanOptions(allow_recreate=True, allow_data_loss=True)


@pytest.mark.parametrize("release", [None, "2.10.26"])
def test_predictions_agree_with_the_server(capsys, release):
    from natsserver import release_binary

    binary = release_binary(release) if release else None
    if release and binary is None:
        pytest.skip(f"nats-server {release} was not fetched")
    agree = total = samples = 0
    wrong: list[str] = []
    for seed in SEEDS if release is None else SEEDS[::3]:
        got = _one(seed, binary)
        if got is None:
            continue
        samples += 1
        agree += got[0]
        total += got[1]
        wrong += got[2]
    with capsys.disabled():
        print(
            f"\npredicted vs actual: {agree}/{total} actions agree ({100 * agree / max(total, 1):.1f}%) over {samples} estates"
        )
    assert samples >= (8 if release is None else 4) and total > 0
    assert wrong == [], "\n".join(wrong)
