"""The lint results cache (jsops.linter.cache.incremental, jsops.linter.cache.memo): the output with the cache
is byte for byte the output without it, cold, warm, and after every edit of a random sequence,
including edits whose effect is on findings in *other* files (a stream's subjects, retention,
consumer limits or allow_direct, which its consumers and mirrors in other files read; files added
and removed; the config's target release and options; the profiles; the dead-letter stream every
consumer's JS406 looks for), the clock moved past a consumer's start time (JS410 reads it) and a
rule plugin's code changed at the same size with its modification time put back."""

from __future__ import annotations

import importlib
import json
import os
import random
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from jsops.linter.cache.memo import ObjectMemo
from jsops.linter.cli.app import main
from jsops.linter.engine import discover_rules

RELEASES = ["2.10.26", "2.11.11", "2.12.8", None]


def _stream(name: str, rng: random.Random, streams: list[str]) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "subjects": [f"{name.lower()}.>"],
        "retention": rng.choice(["limits", "interest", "workqueue"]),
        "max_age": "1d",
    }
    if (
        streams and rng.random() < 0.25
    ):  # a mirror of another file's stream: its effective allow_direct reads the origin
        spec = {"mirror": {"name": rng.choice(streams)}, "max_age": "1d"}
    elif streams and rng.random() < 0.3:
        spec["sources"] = [{"name": rng.choice(streams)}]
    if rng.random() < 0.3:
        spec["consumer_limits"] = {"inactive_threshold": "1h", "max_ack_pending": rng.choice([10, 1000])}
    return {"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": name}, "spec": spec}


def _consumer(name: str, stream: str, rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "ack_policy": rng.choice(["explicit", "none", "all"]),
        "max_deliver": rng.choice([-1, 3, 5]),
    }
    if rng.random() < 0.5:
        spec["filter_subject"] = f"{stream.lower()}.{rng.choice(['a', 'b', '>'])}"
    if rng.random() < 0.4:
        spec["max_ack_pending"] = rng.choice([50, 5000])
    if rng.random() < 0.3:
        spec["ack_wait"] = rng.choice(["1s", "30s"])
    return {"apiVersion": "jsops/v1", "kind": "Consumer", "metadata": {"name": name, "stream": stream}, "spec": spec}


class Tree:
    """The estate as documents per file, with the comments added to each."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.docs: dict[str, list[dict[str, Any]]] = {}
        self.head: dict[str, str] = {}
        self.tail: dict[str, str] = {}

    def put(self, name: str, docs: list[dict[str, Any]]) -> None:
        self.docs[name] = docs
        self.write(name)

    def write(self, name: str) -> None:
        body = "\n---\n".join(json.dumps(d) for d in self.docs[name]) + "\n"
        (self.root / name).write_text(self.head.get(name, "") + body + self.tail.get(name, ""))

    def remove(self, name: str) -> None:
        del self.docs[name]
        (self.root / name).unlink()


PLUGIN = '''
from jsops.linter.api import Rule, Violation


class DifferentialPlugin(Rule):
    """Test plugin: flags every stream whose name holds a letter."""

    code = "JS996"
    name = "test-differential-plugin"
    kinds = frozenset({{"Stream"}})

    def check(self, resource, ctx):
        if "{letter}" in resource.name:
            yield Violation(resource, ("subjects",), "name holds {letter}")


RULE = DifferentialPlugin
'''


class World:
    """What lies outside the tree and the config that the output depends on: the clock (moved through
    jsops's one clock seam) and a rule plugin, rewritten at the same size with its times put back (a
    new build that path, size and modification time do not tell apart)."""

    def __init__(self, site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.site, self.mp = site, monkeypatch
        self.year = 2039
        self.letter = "S"
        monkeypatch.setattr("jsops.linter.model.clock.now", lambda: datetime(self.year, 6, 1, tzinfo=UTC))
        monkeypatch.syspath_prepend(str(site))
        builtins = discover_rules()
        monkeypatch.setattr(
            "jsops.linter.engine.discover_rules", lambda *_, **__: [*builtins, self.rule]
        )  # takes (config, env=) since #38
        self.rule = self._write(None)

    def _write(self, stamp: tuple[int, int] | None) -> type:
        path = self.site / "differential_plugin.py"
        path.write_text(PLUGIN.format(letter=self.letter))
        if stamp is not None:
            os.utime(path, ns=stamp)
        sys.modules.pop("differential_plugin", None)
        importlib.invalidate_caches()
        rule: type = importlib.import_module("differential_plugin").RULE
        return rule

    def move_clock(self, rng: random.Random) -> None:
        self.year = rng.choice([2030, 2039, 2041, 2050])

    def rebuild(self, rng: random.Random) -> None:
        st = (self.site / "differential_plugin.py").stat()
        self.letter = rng.choice("S0123456789")
        self.rule = self._write((st.st_atime_ns, st.st_mtime_ns))

    def close(self) -> None:
        sys.modules.pop("differential_plugin", None)


def _generate(tree: Tree, rng: random.Random) -> None:
    streams: list[str] = []
    for i in range(10):
        name = f"S{i}"
        own = [_consumer(f"k{n}", name, rng) for n in range(rng.choice([0, 0, 1, 2]))]  # consumers beside their stream
        tree.put(f"s{i}.yaml", [_stream(name, rng, streams), *own])
        streams.append(name)
    for j in range(14):  # consumers in files of their own: their stream is in another file
        tree.put(f"c{j}.yaml", [_consumer(f"c{j}", rng.choice(streams), rng) for _ in range(rng.randint(1, 2))])


def _config(path: Path, rng: random.Random) -> None:
    release = rng.choice(RELEASES)
    target = {"server_version": release} if release else {}
    rules: dict[str, Any] = {}
    if rng.random() < 0.5:
        rules["JS406"] = {}
    lines = [f"target: {json.dumps(target)}"]
    if rng.random() < 0.5:
        lines.append(f"severity: {json.dumps({'JS406': rng.choice(['info', 'error'])})}")
    path.write_text("\n".join(lines) + "\n")


def _profiles(path: Path, rng: random.Random) -> None:
    p99 = rng.choice([100_000_000, 40_000_000_000])
    consumers = {
        f"S{i}/c{j}": {
            "ack_time_ns": {"samples": 1000, "p50": p99 // 4, "p90": p99 // 2, "p99": p99, "p999": p99, "max": p99}
        }
        for i in range(10)
        for j in range(14)
    }
    doc = {
        "version": 1,
        "generated_at": "2026-11-21T12:00:00Z",
        "window": {"start": "2026-11-20T12:00:00Z", "end": "2026-11-21T12:00:00Z"},
        "streams": {},
        "consumers": consumers,
    }
    path.write_text(json.dumps(doc))


def _edit(tree: Tree, rng: random.Random, config: Path, profiles: Path, world: World) -> str:
    """One random edit; returns what it was (for the failure message)."""
    files = sorted(tree.docs)
    streams = [f for f in files if f.startswith("s")]
    kinds = [
        "subjects",
        "retention",
        "limits",
        "direct",
        "add",
        "remove",
        "comment",
        "suppress",
        "config",
        "profiles",
        "dlq",
        "consumer",
    ]
    what = rng.choice([*kinds, "clock", "start", "build"])
    if what in ("subjects", "retention", "limits", "direct") and streams:
        f = rng.choice(streams)
        doc = tree.docs[f][0]
        spec = doc["spec"]
        if what == "subjects" and "mirror" not in spec:
            spec["subjects"] = [rng.choice([f"{doc['metadata']['name'].lower()}.>", "shared.>", "s0.>", "other.x"])]
        elif what == "retention" and "mirror" not in spec:
            spec["retention"] = rng.choice(["limits", "interest", "workqueue"])
        elif what == "limits":
            spec["consumer_limits"] = {"inactive_threshold": "1h", "max_ack_pending": rng.choice([10, 100, 10000])}
        else:
            spec["allow_direct"] = rng.choice([True, False])
        tree.write(f)
    elif what == "add":
        n = rng.randint(100, 999)
        stream = rng.choice(["S1", "S2", "GONE", "S3"])
        # a file before or after the others: a stream declared again there shadows, or is shadowed by, the first
        name = f"{rng.choice('az')}{n}.yaml"
        tree.put(name, [_stream(stream, rng, [])] if rng.random() < 0.4 else [_consumer(f"c{n}", stream, rng)])
    elif what == "remove" and len(files) > 3:
        tree.remove(rng.choice(files))
    elif what == "comment" and files:
        f = rng.choice(files)
        tree.tail[f] = tree.tail.get(f, "") + f"# note {rng.random()}\n"
        tree.write(f)
    elif what == "suppress" and files:
        f = rng.choice(files)
        tree.head[f] = f"# jsops: disable-file={rng.choice(['JS406', 'JS201', 'JS301'])} testing\n"
        tree.write(f)
    elif what == "config":
        _config(config, rng)
    elif what == "profiles":
        _profiles(profiles, rng)
    elif what == "dlq":
        if "dlq.yaml" in tree.docs:
            tree.remove("dlq.yaml")
        else:
            dlq = {
                "apiVersion": "jsops/v1",
                "kind": "Stream",
                "metadata": {"name": "DLQ"},
                "spec": {"subjects": ["$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>"]},
            }
            tree.put("dlq.yaml", [dlq])
    elif what == "clock":
        world.move_clock(rng)
        what = f"clock to {world.year}"
    elif what == "start":  # a consumer that starts at a time the clock moves across (JS410)
        start = {
            "deliver_policy": "by_start_time",
            "opt_start_time": f"20{rng.choice([35, 40, 45])}-01-01T00:00:00Z",
            "ack_policy": "explicit",
        }
        name = f"t{rng.randint(0, 9)}.yaml"
        tree.put(
            name,
            [
                {
                    "apiVersion": "jsops/v1",
                    "kind": "Consumer",
                    "metadata": {"name": name[:2], "stream": rng.choice(["S0", "S5"])},
                    "spec": start,
                }
            ],
        )
    elif what == "build":
        world.rebuild(rng)
        what = f"plugin rebuilt ({world.letter})"
    elif what == "consumer":
        consumers = [f for f in files if f.startswith("c")]
        if consumers:
            tree.put(
                rng.choice(consumers),
                [_consumer(f"c{rng.randint(0, 99)}", rng.choice(["S0", "S4", "S7", "GONE"]), rng)],
            )
    return what


def _lint(
    capsys: pytest.CaptureFixture[str], root: Path, config: Path, profiles: Path, fmt: str, *extra: str
) -> tuple[int, str]:
    rc = main(["lint", str(root), "--config", str(config), "--profiles", str(profiles), "--format", fmt, *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return rc, out


def _same(capsys: pytest.CaptureFixture[str], root: Path, config: Path, profiles: Path, step: str) -> None:
    for fmt in ("json", "text"):
        truth = _lint(capsys, root, config, profiles, fmt, "--no-cache")
        for run in ("first", "second"):  # the first reuses file entries, the second the estate entry
            got = _lint(capsys, root, config, profiles, fmt)
            assert got == truth, f"{fmt} output with the cache ({run} run) differs after {step}"


@pytest.mark.parametrize("seed,forked", [(1, False), (2, False), (3, False), (4, True)])
def test_cached_output_equals_uncached_after_random_edits(
    seed: int,
    forked: bool,
    lint_cache: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if forked:  # the checks on two processes (jsops.linter.halves), whatever the estate's size
        monkeypatch.setenv("JSOPS_NO_PARALLEL", "0")
        monkeypatch.setattr("jsops.linter.halves.MIN_ITEMS", 0)
    rng = random.Random(seed)
    root = tmp_path / "estate"
    root.mkdir()
    config, profiles = tmp_path / "jsops.yaml", tmp_path / "profiles.json"
    (tmp_path / "site").mkdir()
    world = World(tmp_path / "site", monkeypatch)
    tree = Tree(root)
    _generate(tree, rng)
    _config(config, rng)
    _profiles(profiles, rng)
    _same(capsys, root, config, profiles, "nothing (cold)")
    done = []
    try:
        for _ in range(25):
            done.append(_edit(tree, rng, config, profiles, world))
            _same(capsys, root, config, profiles, " then ".join(done))
    finally:
        world.close()
    assert (lint_cache / "results").is_dir()
    assert any(w.startswith("clock") for w in done) and any(w.startswith("plugin") for w in done), done


def test_an_edit_reuses_the_other_files_entries(
    lint_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """After one file's edit, only that file's objects are checked again by every rule (the test
    above would pass with a cache that never hits)."""
    rng = random.Random(7)
    root = tmp_path / "estate"
    root.mkdir()
    config, profiles = tmp_path / "jsops.yaml", tmp_path / "profiles.json"
    _generate(Tree(root), rng)
    _config(config, rng)
    _profiles(profiles, rng)
    _lint(capsys, root, config, profiles, "json")
    misses: list[int] = []
    state = ObjectMemo._state

    def spy(self: ObjectMemo, ctx: Any, objects: Any) -> Any:
        out = state(self, ctx, objects)
        misses.append(len(out.misses))
        return out

    monkeypatch.setattr(ObjectMemo, "_state", spy)
    _lint(capsys, root, config, profiles, "json")
    assert misses == [], "an unchanged estate is answered by its estate entry: nothing is loaded or checked"
    f = root / "c3.yaml"
    f.write_text(f.read_text() + "# edited\n")
    _lint(capsys, root, config, profiles, "json")
    assert misses and max(misses) <= 2, misses  # c3.yaml holds at most two consumers


def test_a_damaged_pack_is_a_miss(lint_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(11)
    root = tmp_path / "estate"
    root.mkdir()
    config, profiles = tmp_path / "jsops.yaml", tmp_path / "profiles.json"
    _generate(Tree(root), rng)
    _config(config, rng)
    _profiles(profiles, rng)
    truth = _lint(capsys, root, config, profiles, "json", "--no-cache")
    assert _lint(capsys, root, config, profiles, "json") == truth
    (pack,) = (lint_cache / "results").iterdir()
    data = pack.read_bytes()
    for damaged in (
        data[: len(data) // 2],
        data[:40] + bytes(b ^ 0xFF for b in data[40:80]) + data[80:],
        b"jsops-results-cache 0\n" + data[22:],
        b"",
    ):
        pack.write_bytes(damaged)
        assert _lint(capsys, root, config, profiles, "json") == truth
