"""Packed position trees (what the parse cache keeps) resolve exactly as the parser's trees do, and a
packed tree of the wrong shape resolves to None, never raises (jsops.linter.model.positions)."""

from __future__ import annotations

import marshal
from typing import Any

import pytest

from jsops.linter.load.files import read_text
from jsops.linter.model.positions import compact_positions, pack_positions, resolve_position, unpack_positions

TEXT = b"""\
apiVersion: jsops/v1
kind: Stream
metadata:
  name: ORDERS
  annotations: {team: a, "x y": b}
spec:
  subjects: ["orders.>", orders.new]
  max_age: 7d
  sources:
    - {name: A, filter_subject: a.>}
    - name: B
      external: {api: "$JS.x.API"}
  1: one
  true: yes
---
- [1, [2, [3]]]
- {a: {b: {c: d}}}
"""


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*here, k))
        out.append((*here, "missing"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*here, i))
        out += [(*here, len(value)), (*here, -1), (*here, "name")]
    else:
        out.append((*here, "past", "a", "scalar"))
    return out


def test_a_packed_tree_resolves_as_the_parsed_one() -> None:
    docs = read_text(TEXT, "x.yaml", None)[0]
    assert len(docs) == 2
    checked = 0
    for d in docs:
        for packed in (
            unpack_positions(pack_positions(d.positions)),
            unpack_positions(compact_positions(pack_positions(d.positions))),
        ):
            assert isinstance(packed, list)
            for path in _paths(d.value):
                for key in (False, True):
                    assert resolve_position(packed, path, key=key) == resolve_position(d.positions, path, key=key), path
                    checked += 1
    assert checked > 100


def test_a_compact_tree_is_unmarshalled_only_below_its_start() -> None:
    d = read_text(TEXT, "x.yaml", None)[0][0]
    compact = unpack_positions(compact_positions(pack_positions(d.positions)))
    assert isinstance(compact, list) and type(compact[1]) is bytes
    assert resolve_position(compact, ()) == (1, 1)
    assert type(compact[1]) is bytes  # the start alone: nothing unmarshalled
    assert resolve_position(compact, ("spec", "max_age")) == (8, 12)
    assert type(compact[1]) is dict


@pytest.mark.parametrize(
    "tree",
    [
        "nope",
        (1,),
        ("1", 2),
        [(1, 1), b"garbage"],
        [(1, 1), marshal.dumps("a string")],
        [(1, 1), marshal.dumps({"a": ((1, 1), b"x")})],
        [(1, 1)],
        [(1, 1), {"a": "xy"}],
        [(1, 1), {"a": ((1, 1), {1, 2})}],
        [(1, 1), [None]],
        [None, {}],
        [(1, 1), 7],
        {"a": 1},
    ],
)
def test_a_packed_tree_of_the_wrong_shape_resolves_to_none_or_a_pair(tree: Any) -> None:
    for path in [(), ("a",), ("a", "b"), ("a", 0), (0,), (0, "x"), ([],)]:
        for key in (False, True):
            pos = resolve_position(unpack_positions(tree), path, key=key)
            assert pos is None or (type(pos) is tuple and len(pos) == 2 and all(type(n) is int for n in pos)), (
                tree,
                path,
                pos,
            )
