"""Checks one supported release makes and another does not, found by reading each release's
config checks (docs/server-checks.md), each labelled with every release's answer and proven on the
binaries (issue 24 g).

Each case is an estate and, per release, the err_code nats-server answers for each object (None:
created). For every release: the server still answers as labelled, and jsops (target
``{server_version: <release>, clustered: false}``) predicts exactly that (an error finding with the
server's err_code when it refuses, no error finding when it accepts).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import nats
import pytest
from natsserver import NatsServer, release_binary

from jsops.linter.engine import lint_estate
from jsops.linter.model.target import Target
from jsops.linter.semantics.releases import SUPPORTED
from tests.rules.test_estate import RULES, C, S, load_estate

from .test_rules_estate_server import apply_estate, delete_all, predicted_errors, server_answers

pytestmark = pytest.mark.integration

EXT = {"api": "$JS.hub.API"}
Answers = tuple[int | None, int | None, int | None, int | None, int | None]  # in SUPPORTED order


def _split(old: int | None, new: int | None) -> Answers:
    """2.10.26 and 2.11.11 answer ``old``; 2.12.8, 2.14.6 and 2.15.1 ``new``."""
    return (old, old, new, new, new)


@dataclass(frozen=True)
class ReleaseCase:
    id: str
    docs: tuple[dict[str, Any], ...]
    refused: str  # the object the case is about
    answers: Answers  # each release's err_code for it (None: created)
    pedantic: bool = False  # sent with "pedantic": true, judged with the target {pedantic: true}

    def answer(self, release: str) -> int | None:
        return self.answers[SUPPORTED.index(release)]


CASES = [
    # template_owner: decoded until 2.12 (a create naming a template: 10049, JS128), an unknown field from 2.14
    # (10025, JS311)
    ReleaseCase("template-owner", (S("A", template_owner="TPL"),), "A", (10049, 10049, 10049, 10025, 10025)),
    # filter_subjects that collide without a subset: 2.10, 2.11 compare with SubjectsCollide
    ReleaseCase(
        "filters-collide",
        (S("A", subjects=["a.>"]), C("c", "A", filter_subjects=["a.*.x", "a.y.*"])),
        "c",
        _split(10138, None),
    ),
    ReleaseCase(
        "filters-contained",
        (S("A", subjects=["a.>"]), C("c", "A", filter_subjects=["a.>", "a.b"])),
        "c",
        _split(10138, 10138),
    ),
    # '/' in a sourced or mirrored stream's name: isValidName (2.10, 2.11) allows it
    ReleaseCase("source-name-slash", (S("A", sources=[{"name": "X/Y"}]),), "A", _split(None, 10141)),
    ReleaseCase(
        "external-source-name-slash", (S("A", sources=[{"name": "X/Y", "external": EXT}]),), "A", _split(None, 10141)
    ),
    ReleaseCase("mirror-name-slash", (S("A", mirror={"name": "X/Y"}),), "A", _split(None, 10142)),
    ReleaseCase("source-name-dot", (S("A", sources=[{"name": "X.Y"}]),), "A", _split(10141, 10141)),
    # an external source's filter and transforms: checked from 2.12, only built before
    ReleaseCase(
        "external-filter-and-transform",
        (
            S(
                "A",
                sources=[
                    {
                        "name": "X",
                        "external": EXT,
                        "filter_subject": "a",
                        "subject_transforms": [{"src": "b", "dest": "c"}],
                    }
                ],
            ),
        ),
        "A",
        _split(None, 10144),
    ),
    ReleaseCase(
        "external-overlapping-transforms",
        (
            S(
                "A",
                sources=[
                    {
                        "name": "X",
                        "external": EXT,
                        "subject_transforms": [{"src": "b.>", "dest": "c.>"}, {"src": "b.x", "dest": "d"}],
                    }
                ],
            ),
        ),
        "A",
        _split(None, 10147),
    ),
    ReleaseCase(
        "external-transform-does-not-build",
        (
            S(
                "A",
                sources=[
                    {"name": "X", "external": EXT, "subject_transforms": [{"src": "a.*", "dest": "b.{{wildcard(3)}}"}]}
                ],
            ),
        ),
        "A",
        _split(10049, 10146),
    ),
    ReleaseCase(
        "external-transform-builds",
        (S("A", sources=[{"name": "X", "external": EXT, "subject_transforms": [{"src": "a.*", "dest": "b c.x"}]}]),),
        "A",
        _split(None, 10146),
    ),
    ReleaseCase(
        "external-transform-bad-src",
        (S("A", sources=[{"name": "X", "external": EXT, "subject_transforms": [{"src": "a..x", "dest": "b"}]}]),),
        "A",
        _split(10049, 10145),
    ),
    ReleaseCase(
        "external-empty-src",
        (S("A", sources=[{"name": "X", "external": EXT, "subject_transforms": [{"src": "", "dest": "b.>"}]}]),),
        "A",
        _split(None, None),
    ),
    # an invalid filter_subject of a source or a mirror: the create fails on every release
    ReleaseCase(
        "source-filter-invalid", (S("A", sources=[{"name": "X", "filter_subject": "a..b"}]),), "A", _split(10049, 10049)
    ),
    ReleaseCase(
        "external-source-filter-invalid",
        (S("A", sources=[{"name": "X", "external": EXT, "filter_subject": "a..b"}]),),
        "A",
        _split(10049, 10049),
    ),
    # an external delivery prefix under which a sourced stream's subject collides with itself: every release
    ReleaseCase(
        "external-deliver-prefix-overlaps",
        (S("X", subjects=["x.>"]), S("A", sources=[{"name": "X"}, {"name": "Y", "external": {**EXT, "deliver": "x"}}])),
        "A",
        _split(10022, 10022),
    ),
    ReleaseCase(
        "external-deliver-prefix-apart",
        (
            S("X", subjects=["x.>"]),
            S("A", sources=[{"name": "X"}, {"name": "Y", "external": {**EXT, "deliver": "dlv"}}]),
        ),
        "A",
        _split(None, None),
    ),
    # direct: true on a declared consumer (the server's sourcing consumers only): every release
    ReleaseCase(
        "consumer-direct-pull", (S("A", subjects=["a.>"]), C("c", "A", direct=True)), "c", _split(10090, 10090)
    ),
    ReleaseCase(
        "consumer-direct-durable",
        (S("A", subjects=["a.>"]), C("c", "A", direct=True, deliver_subject="dd")),
        "c",
        _split(10091, 10091),
    ),
    # pedantic requests: 2.10 does not read pedantic; negative limits are refused from 2.12 (stored
    # as given before); an omitted duplicate_window of a sourcing stream is checked by 2.11, 2.12
    ReleaseCase(
        "pedantic-negative-max-msgs", (S("A", subjects=["a.>"], max_msgs=-5),), "A", _split(None, 10157), pedantic=True
    ),
    ReleaseCase(
        "pedantic-negative-max-deliver",
        (S("A", subjects=["a.>"]), C("c", "A", max_deliver=-5)),
        "c",
        _split(None, 10157),
        pedantic=True,
    ),
    ReleaseCase(
        "pedantic-backoff-differs",
        (S("A", subjects=["a.>"]), C("c", "A", max_deliver=3, ack_wait="5s", backoff=["1s", "10s"])),
        "c",
        (None, 10157, 10157, 10157, 10157),
        pedantic=True,
    ),
    ReleaseCase(
        "pedantic-sourcing-short-max-age",
        (S("O", subjects=["o.>"]), S("A", sources=[{"name": "O"}], max_age="1m")),
        "A",
        (None, 10157, 10157, None, None),
        pedantic=True,
    ),
    ReleaseCase(
        "pedantic-schedules-without-rollup",
        (S("A", subjects=["a.>"], allow_msg_schedules=True),),
        "A",
        (None, None, 10052, 10052, 10052),
        pedantic=True,
    ),
    ReleaseCase(
        "mirror-filter-invalid", (S("A", mirror={"name": "X", "filter_subject": "a b"}),), "A", _split(10049, 10049)
    ),
]


def _text(case: ReleaseCase) -> str:
    return "\n---\n".join(json.dumps(d) for d in case.docs) + "\n"


async def _answers(url: str) -> dict[str, dict[tuple[str, str], int | None]]:
    nc = await nats.connect(url)
    out = {}
    try:
        await delete_all(nc)
        for case in CASES:
            out[case.id], _ = await apply_estate(nc, load_estate(_text(case)), timeout=10.0, pedantic=case.pedantic)
            await delete_all(nc)
    finally:
        await nc.close()
    return out


def test_cases_are_release_differences_or_checks_jsops_missed():
    assert sum(len(set(c.answers)) > 1 for c in CASES) >= 10
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("release", SUPPORTED)
def test_release_answers_as_labelled_and_jsops_predicts_it(release: str):
    binary = release_binary(release)
    if binary is None:
        pytest.skip(f"nats-server {release} was not fetched at install")
    with NatsServer(binary=binary) as srv:
        answers = asyncio.run(_answers(srv.url))
    problems = []
    for case in CASES:
        target = Target(server_version=release, clustered=False, pedantic=case.pedantic or None)
        results = answers[case.id]
        kind = next(d["kind"] for d in case.docs if d["metadata"]["name"] == case.refused)
        if results.get((kind, case.refused)) != case.answer(release):
            problems.append(f"{case.id}: nats-server {release} answered {results} (labelled {case.answer(release)})")
        findings = lint_estate(load_estate(_text(case)), RULES, target=target, read_source=None).findings
        predicted, marked = predicted_errors(findings), server_answers(findings)
        for key, code in results.items():
            mine = predicted.get(key, [])
            if (code is None and mine) or (code is not None and code != marked.get(key)):
                problems.append(
                    f"{case.id}: {key} nats-server {release} {code}, jsops marked {marked.get(key)} of {mine}"
                )
    assert not problems, "\n".join(problems)
