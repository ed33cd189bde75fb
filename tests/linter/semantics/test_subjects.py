import random

import pytest

from jsops.linter.semantics.subjects import (
    SubjectIndex,
    is_literal,
    is_subset_match,
    is_valid_asset_name,
    is_valid_publish_subject,
    is_valid_subject,
    subjects_collide,
)


@pytest.mark.parametrize("s", ["a", "a.b", "a.*", "a.>", ">", "*", "*.b.>", "$JS.API.>", "a.b-c_d"])
def test_valid_subjects(s):
    assert is_valid_subject(s)


@pytest.mark.parametrize("s", ["", "a..b", ".a", "a.", "a.>.b", ">.a", "a b", "a.\t", "a. .b"])
def test_invalid_subjects(s):
    assert not is_valid_subject(s)


def test_literal_and_publish():
    assert is_literal("a.b") and not is_literal("a.*") and not is_literal("a.>")
    assert is_literal("a.b*")  # only whole-token wildcards count
    assert is_valid_publish_subject("ovd") and not is_valid_publish_subject("ovd.*")


@pytest.mark.parametrize(
    "a,b,expected",
    [
        ("ovx.>", "ovx.*", True),
        ("ovx.a", "ovx.*", True),
        ("a.b", "a.c", False),
        ("a.*", "b.*", False),
        ("a.*", "a.*.c", False),
        ("a.>", "a", False),
        ("a.*.c", "a.>", True),
        (">", "x.y.z", True),
        ("*.b", "a.*", True),
        ("dup", "dup", True),
    ],
)
def test_subjects_collide(a, b, expected):
    assert subjects_collide(a, b) is expected
    assert subjects_collide(b, a) is expected


@pytest.mark.parametrize(
    "subject,test,expected",
    [
        ("cs.a", "cs.>", True),
        ("cs.>", "cs.a", False),
        ("a.*", "a.*", True),
        ("a.*", "a.b", False),
        ("a.b", "a.*", True),
        ("a", ">", True),
        ("a.b", "a", False),
    ],
)
def test_is_subset_match(subject, test, expected):
    assert is_subset_match(subject, test) is expected


@pytest.mark.parametrize(
    "name,ok",
    [
        ("ORDERS", True),
        ("a-b_c", True),
        ("", False),
        ("a.b", False),
        ("a b", False),
        ("a*", False),
        ("a>", False),
        ("a/b", False),
        ("a\\b", False),
    ],
)
def test_asset_names(name, ok):
    assert is_valid_asset_name(name) is ok


def _random_subject(rng: random.Random) -> str:
    n = rng.randint(1, 4)
    toks = [rng.choice(["a", "b", "c", "*"]) for _ in range(n)]
    if rng.random() < 0.3:
        toks[-1] = ">"
    return ".".join(toks)


def test_index_agrees_with_pairwise_collision():
    rng = random.Random(7)
    subjects = sorted({_random_subject(rng) for _ in range(300)})
    index = SubjectIndex((s, s) for s in subjects)
    for q in subjects + [_random_subject(rng) for _ in range(200)]:
        expected = {s for s in subjects if subjects_collide(q, s)}
        assert {s for s, _ in index.colliding(q)} == expected, q
