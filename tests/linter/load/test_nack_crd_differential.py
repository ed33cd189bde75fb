"""JS030's schema walk against an independent validator (jsonschema) on the same CRD facts.

The facts table of each NACK release is turned back into a JSON Schema (type, enum, pattern,
bounds, lengths, item counts, required; properties, items, additionalProperties) and every mutation
of the valid corpus documents (each CRD field of each kind set to values of every JSON type) is
judged by both: the paths jsops's walk refuses must be the paths jsonschema refuses. What
kube-apiserver does beyond JSON Schema (nulls in a mapping pruned, unknown fields, metadata, the
served version) is tested in test_nack_crd.py, not here.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from jsops.linter.load import nack_crd
from jsops.linter.load.nack_releases import known_releases, nack_release

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "nack-crd" / "accepted"
VALUES: tuple[Any, ...] = ("x", "", "a.b", 3, -5, 0, 7, 1.5, True, [], ["s"], [3], {}, {"k": "v"}, {"k": 1})
_KEYWORDS = (
    "type",
    "enum",
    "pattern",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "required",
)


def _json_schema(facts: dict[str, dict[str, Any]], at: str) -> dict[str, Any]:
    node = {k: v for k, v in facts.get(at, {}).items() if k in _KEYWORDS}
    if node.get("type") in ("array",):
        node.pop("minLength", None)  # a string keyword on an array: kube-apiserver ignores it, and so does JSON Schema
    props = {
        p[len(at) + 1 :]: _json_schema(facts, p)
        for p in facts
        if p.startswith(at + ".") and "." not in p[len(at) + 1 :] and "[" not in p[len(at) + 1 :]
    }
    props = {k: v for k, v in props.items() if not k.endswith("{}")}
    if props:
        node["properties"] = props
    if at + "[]" in facts:
        node["items"] = _json_schema(facts, at + "[]")
    if at + "{}" in facts:
        node["additionalProperties"] = _json_schema(facts, at + "{}")
    return node


def _pruned(value: Any) -> Any:
    """What kube-apiserver validates: nulls in mappings pruned."""
    if isinstance(value, dict):
        return {k: _pruned(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def _documents() -> list[dict[str, Any]]:
    docs = []
    for path in sorted(CORPUS.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    return docs


def _mutations(doc: dict[str, Any], facts: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for path in facts:
        if not path.startswith("spec.") or "[]" in path or "{}" in path:
            continue
        keys = path.split(".")[1:]
        for value in VALUES:
            mutated = copy.deepcopy(doc)
            node = mutated["spec"]
            for key in keys[:-1]:
                if not isinstance(node.get(key), dict):
                    node[key] = {}
                node = node[key]
            node[keys[-1]] = copy.deepcopy(value)
            out.append(mutated)
    return out


@pytest.mark.parametrize("tag", [known_releases()[0], "v0.20.0"])
def test_the_walk_refuses_exactly_what_json_schema_refuses(tag: str) -> None:
    release = nack_release(tag)
    compared = 0
    for doc in _documents():
        kind = doc["kind"]
        facts = release.schema(kind)
        validator = jsonschema.Draft4Validator(_json_schema(facts, "spec"))
        for mutated in _mutations(doc, facts):
            spec = mutated["spec"]
            theirs = {tuple(e.absolute_path) for e in validator.iter_errors(_pruned(spec)) if e.validator in _KEYWORDS}
            ours = {
                path[1:]
                for path, key, message in nack_crd._problems(
                    mutated, kind, "jetstream.nats.io/" + str(release.served(kind)), release
                )
                if path[0] == "spec" and not key and "unknown field" not in message
            }
            # jsonschema names the mapping for a missing required key; so does the walk
            assert ours == theirs, (kind, spec, ours, theirs)
            compared += 1
    assert compared > 1000
