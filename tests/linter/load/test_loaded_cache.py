"""Loaded entries (jsops.linter.cache.loaded_cache): objects rebuilt from a file's entry are the
objects the loader validates (records, values, fields set, order), an edit is seen, a file with
findings is processed every time, a damaged entry is a miss."""

from __future__ import annotations

import hashlib
import marshal
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from jsops.linter.cache import load_paths
from jsops.linter.cache.parse_cache import ParseCache
from jsops.linter.cli.app import main
from jsops.linter.load import files as load_files
from jsops.linter.model.records.record import Record

STREAM = """apiVersion: jsops/v1
kind: Stream
metadata:
  name: {name}
  annotations: {{team: a}}
spec:
  subjects: ["{lower}.>"]
  max_age: 7d
  max_bytes: 1GiB
  duplicate_window: 2m
  metadata: {{owner: x}}
  consumer_limits: {{inactive_threshold: 1h, max_ack_pending: {pending}}}
{extra}---
apiVersion: jsops/v1
kind: Consumer
metadata:
  name: c1
  stream: {name}
spec:
  ack_wait: 5s
  backoff: [5s, 30s]
  max_deliver: 5
  filter_subjects: ["{lower}.a", "{lower}.b"]
"""


def _tree(root: Path, pending: int = 100) -> None:
    root.mkdir(exist_ok=True)
    for i in range(4):
        extra = f"  sources: [{{name: S{i - 1}, filter_subject: s{i - 1}.a}}]\n" if i else ""
        (root / f"s{i}.yaml").write_text(STREAM.format(name=f"S{i}", lower=f"s{i}", pending=pending, extra=extra))


def _processed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    process = load_files.process

    def spy(docs: Any, problems: Any, trailing: Any, file: str, *rest: Any) -> bool:
        seen.append(Path(file).name)
        return process(docs, problems, trailing, file, *rest)

    monkeypatch.setattr(load_files, "process", spy)
    return seen


def _deep(v: Any) -> Any:
    """A value with every record's class, field order and fields set spelled out."""
    if isinstance(v, Record):
        return (type(v), [(k, _deep(x)) for k, x in v.__dict__.items()], sorted(v.model_fields_set))
    if isinstance(v, (list, tuple)):
        return (type(v), [_deep(x) for x in v])
    if isinstance(v, dict):
        return [(k, _deep(x)) for k, x in v.items()]
    return (type(v), v)


def _objects(root: Path, cache: bool) -> list[Any]:
    estate = load_paths([str(root)], cache=cache)
    # positions are compared by what they resolve to (a cached parse keeps them packed)
    return [
        (replace(r, positions=None), _deep(r.config), r.locate(("max_age",)), r.locate(("backoff", 1)))
        for r in estate.resources
    ]


@pytest.mark.parametrize("direct", [True, False])
def test_rebuilt_objects_are_the_validated_ones(
    direct: bool, lint_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "jsops.linter.cache.loaded_cache._DIRECT", direct
    )  # False: built through Resource's constructor
    root = tmp_path / "estate"
    _tree(root)
    truth = _objects(root, cache=False)
    assert _objects(root, cache=True) == truth  # fills the entries
    seen = _processed(monkeypatch)
    gets: list[str] = []
    get = ParseCache.get

    def spy(self: ParseCache, key: str) -> Any:
        gets.append(key)
        return get(self, key)

    monkeypatch.setattr(ParseCache, "get", spy)
    estate = load_paths([str(root)], cache=True)
    assert seen == [] and gets == [], "every file was rebuilt from its loaded entry, no parse decoded"
    estate.resources[0].locate(("max_age",))
    assert len(gets) == 1, "a position asked for decodes its file's parse"
    assert _objects(root, cache=True) == truth


def test_an_edit_to_an_object_is_seen(lint_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "estate"
    _tree(root)
    load_paths([str(root)], cache=True)
    f = root / "s2.yaml"
    f.write_text(f.read_text().replace("max_ack_pending: 100", "max_ack_pending: 7"))
    seen = _processed(monkeypatch)
    objects = _objects(root, cache=True)
    assert seen == ["s2.yaml"]
    assert objects == _objects(root, cache=False)
    s2 = next(o[0] for o in objects if o[0].name == "S2")
    assert s2.config.consumer_limits is not None and s2.config.consumer_limits.max_ack_pending == 7


def test_a_file_with_findings_is_processed_every_time(
    lint_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "estate"
    _tree(root)
    (root / "bad.yaml").write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: B}\nspec: {max_age: soon}\n")
    load_paths([str(root)], cache=True)
    seen = _processed(monkeypatch)
    load_paths([str(root)], cache=True)
    assert seen == ["bad.yaml"]


def _lint(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> tuple[int, str]:
    rc = main(["lint", str(root), "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return rc, out


_DAMAGED: list[Any] = [
    b"\x00not marshal",
    marshal.dumps("a string"),
    marshal.dumps((True, [("Stream",)])),
    marshal.dumps((True, [("Stream", "S0", None, "default", {}, 99, 1, ("spec",), {}, None)])),
    marshal.dumps((True, [("Stream", "S0", None, "default", {}, 0, 1, ("spec",), {}, ("r", "os.system", [], [], []))])),
    marshal.dumps(
        (
            True,
            [
                (
                    "Stream",
                    "S0",
                    None,
                    "default",
                    {},
                    0,
                    1,
                    ("spec",),
                    {},
                    ("r", "jsops.linter.model.config.StreamConfig", [1], [], []),
                )
            ],
        )
    ),
]


@pytest.mark.parametrize("shape", range(len(_DAMAGED)))
def test_a_damaged_loaded_entry_is_a_miss(
    shape: int, lint_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "estate"
    _tree(root)
    truth = _lint(capsys, root, "--no-cache")
    assert _lint(capsys, root) == truth
    (pack,) = (lint_cache / "parse").iterdir()
    blob = pack.read_bytes()
    magic = blob[: blob.index(b"\n") + 1]
    salt, entries, loaded = marshal.loads(blob[len(magic) + 16 :])
    assert loaded, "the run kept loaded entries"
    body = marshal.dumps(
        (salt, entries, {k: _DAMAGED[shape] for k in loaded})
    )  # a valid checksum: only the entries are wrong
    pack.write_bytes(magic + hashlib.blake2b(body, digest_size=16).digest() + body)
    shutil.rmtree(
        lint_cache / "results"
    )  # else the unchanged tree is answered by the results cache, no parse pack read
    assert _lint(capsys, root) == truth
