"""The JSON and SARIF reports are written by jsops.linter.report.jsontext: its text must be exactly
``json.dumps(doc, indent=2, ensure_ascii=False)`` for any document, plain or not."""

import json
import random

import pytest

from jsops.linter.report.jsontext import dumps_indented

_SCALARS = [
    0,
    1,
    -7,
    10**30,
    1.5,
    -0.0,
    1e300,
    float("nan"),
    float("inf"),
    True,
    False,
    None,
    "",
    "a",
    'é\u2028"\\\n\x00\t',
    "\udc80",
    "名前",
]


def _doc(rnd: random.Random, depth: int = 0):
    c = rnd.random()
    if depth > 5 or c < 0.5:
        return rnd.choice([*_SCALARS, (1, "t")])
    if c < 0.75:
        return {
            rnd.choice(["k", "é", '"', "z", 1, None, True, 2.5]): _doc(rnd, depth + 1) for _ in range(rnd.randint(0, 3))
        }
    return [_doc(rnd, depth + 1) for _ in range(rnd.randint(0, 3))]


@pytest.mark.parametrize("seed", range(4))
def test_text_equals_the_standard_librarys(seed):
    rnd = random.Random(seed)
    for _ in range(5000):
        doc = _doc(rnd)
        assert dumps_indented(doc) == json.dumps(doc, indent=2, ensure_ascii=False), doc


def test_deep_and_report_shaped_documents():
    deep: list = []
    inner = deep
    for _ in range(400):
        inner.append([])
        inner = inner[0]
    assert dumps_indented(deep) == json.dumps(deep, indent=2, ensure_ascii=False)
    report = {
        "version": "1",
        "findings": [{"rule": "JS001", "line": 3, "object": {"kind": "Stream", "stream": None}, "fix": None}] * 3,
        "summary": {},
    }
    assert dumps_indented(report) == json.dumps(report, indent=2, ensure_ascii=False)
