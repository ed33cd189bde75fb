"""Subject-mapping validation (linter/semantics/transforms.py); the rules' cases run through it in
tests/test_rules_stream.py and against real servers in tests/integration/test_differential.py."""

from __future__ import annotations

import pytest

from jsops.linter.semantics.transforms import (
    BUILD_ONLY_BEFORE,
    EMPTY_SRC_REFUSED_BEFORE,
    LEFT_RIGHT_VALIDATED,
    LOOSE_PARTITION_RANDOM,
    mapping_problem,
    mapping_stage,
    transform_problem,
)


@pytest.mark.parametrize(
    "src,dest,mapping_ok,transform_ok",
    [
        ("a.*", "b.$1", True, True),
        ("a.*", "b.{{wildcard(2)}}", False, False),
        ("a.*", "b.*", False, False),
        ("a.>", "b", False, False),
        ("a.*", "b c.$1", False, True),  # whitespace: mapping validation only
        ("a.*", "b.{{upper(1)}}", False, False),
        ("a.*.*", "b.{{partition(4,1,2)}}.$2", True, True),
        ("a.*", "b.{{left(1,2)}}", True, True),
        ("", "x.>", True, True),
        ("a.*", "", True, True),
    ],
)
def test_mapping_and_transform(src: str, dest: str, mapping_ok: bool, transform_ok: bool) -> None:
    assert (mapping_problem(src, dest) is None) is mapping_ok
    assert (transform_problem(src, dest) is None) is transform_ok


def test_release_dependent_checks() -> None:
    assert mapping_problem("a.*", "b.{{left(1,2)}}", (2, 14, 6)) is not None
    assert mapping_problem("a.*", "b.{{left(1,2)}}", LEFT_RIGHT_VALIDATED) is None
    assert transform_problem("a.x", "b.{{partition(3)}}", (2, 11, 11)) is not None
    assert transform_problem("a.x", "b.{{partition(3)}}", LOOSE_PARTITION_RANDOM) is None
    assert BUILD_ONLY_BEFORE == EMPTY_SRC_REFUSED_BEFORE == (2, 11, 0)


def test_mapping_stage_names_the_stage() -> None:
    assert mapping_stage("a.*", "b c.$1") == ("validate", "destination token 'b c' holds whitespace")
    stage = mapping_stage("a.*", "b.$2")
    assert stage is not None and stage[0] == "build"
    assert mapping_stage("a.*", "b.$1") is None
