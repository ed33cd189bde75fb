"""Hostile input costs bounded time and memory and gives findings, never a crash (yamlio's bounds).

Each case goes through the real CLI (``jsops.linter.cli.app.main``) with ``--format json``; it must finish
(``HANG_GUARD``), exit 1 (findings) or 0 (valid input), report the expected rule, and print output
whose size does not grow with the input. A subprocess run checks the peak RSS of linting all of them
at once.

``HANG_GUARD`` is not a speed target (the speed is measured in bench/lint_speed.py): an unbounded
expansion (a billion laughs, an endless device) never finishes, while every case here takes well
under a second on a quiet machine; the guard is generous so that a loaded CI machine cannot trip it.
"""

from __future__ import annotations

import functools
import json
import os
import random
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from jsops.linter.cli.app import main
from jsops.linter.load import MAX_FINDINGS_PER_FILE, Estate, Limits, load_paths, load_text

MiB = 1024 * 1024
HANG_GUARD = 60.0  # seconds; see the module docstring
STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: {name}\nspec:\n  subjects: [{name}.>]\n"


def billion_laughs() -> bytes:
    lines = ['lol0: &lol0 "lol"']
    for i in range(1, 10):
        lines.append(f"lol{i}: &lol{i} [" + ", ".join([f"*lol{i - 1}"] * 10) + "]")
    return ("\n".join(lines) + "\n").encode()


def alias_bomb_in_a_manifest() -> bytes:
    # The bomb sits inside an otherwise valid stream, under a field the model knows.
    body = "".join(f"    - &s{i} [" + ", ".join([f"*s{i - 1}"] * 10) + "]\n" for i in range(1, 9))
    return (STREAM.format(name="BOMB") + "  metadata:\n    a: &s0 x\n  subjects:\n" + body).encode()


def garbage_text(size: int) -> bytes:
    """Random text made of YAML's punctuation: every byte is ASCII, most of it is syntax."""
    alphabet = b"abc:-[]{}&*!|>'\"\n #,?%@`\t"
    table = bytes(alphabet[i % len(alphabet)] for i in range(256))
    return random.Random(7).randbytes(size).translate(table)


HOSTILE: dict[str, tuple[str, Callable[[], bytes], str]] = {
    # name: (file name, input, expected rule of the first finding; "" for a file that is plainly not a
    # JetStream config: passed over and counted, with no finding, jsops.linter.load.recognise)
    "billion-laughs": ("lol.yaml", billion_laughs, "JS002"),
    "alias-bomb-in-manifest": ("bomb.yaml", alias_bomb_in_a_manifest, "JS002"),
    "deep-flow-sequences": ("deep.yaml", lambda: b"[" * 100_000 + b"]" * 100_000, "JS002"),
    "deep-unclosed-sequences": ("open.yaml", lambda: b"[" * 100_000, "JS002"),
    "deep-flow-mappings": ("maps.yaml", lambda: b"{a: " * 100_000 + b"1" + b"}" * 100_000, "JS002"),
    "deep-block-mappings": ("block.yaml", lambda: "".join(" " * i + "a:\n" for i in range(3000)).encode(), "JS002"),
    "deep-json-arrays": ("deep.json", lambda: b"[" * 100_000 + b"]" * 100_000, "JS002"),
    "deep-json-objects": ("deep2.json", lambda: b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "JS002"),
    "json-just-too-deep": ("deep3.json", lambda: b'{"a":' * 500 + b"1" + b"}" * 500, "JS002"),
    "wide-json-object": (
        "wide.json",
        lambda: ("{" + ",".join(f'"k{i}": {i}' for i in range(300_000)) + "}").encode(),
        "JS002",
    ),
    "huge-list": ("list.yaml", lambda: b"- x\n" * 2_500_000, "JS002"),
    "5MB-invalid-value": (
        "big.yaml",
        lambda: (STREAM.format(name="S") + "  retention: " + "x" * 5 * MiB + "\n").encode(),
        "JS005",
    ),
    "5MB-unknown-key": (
        "key.json",
        lambda: ('{"name": "S", "subjects": ["s"], "' + "k" * 5 * MiB + '": 1}').encode(),
        "JS005",
    ),
    "5MB-kind": ("kind.yaml", lambda: ("apiVersion: jsops/v1\nkind: " + "K" * 5 * MiB + "\n").encode(), "JS004"),
    "5MB-name": ("name.yaml", lambda: STREAM.format(name="N" * 5 * MiB).encode(), "JS005"),
    "5MB-stream-reference": (
        "ref.yaml",
        lambda: ("apiVersion: jsops/v1\nkind: Consumer\nmetadata: {name: c, stream: " + "s" * 5 * MiB + "}\n").encode(),
        "JS005",
    ),
    "5MB-plain-scalar": ("scalar.yaml", lambda: b"word " * MiB, ""),
    "5MB-plain-scalar-beside-a-manifest": (
        "scalar2.yaml",
        lambda: b"word " * MiB + ("\n---\n" + STREAM.format(name="S")).encode(),
        "JS004",
    ),
    "5000-digit-integer": (
        "int.yaml",
        lambda: (STREAM.format(name="S") + "  max_msgs: " + "9" * 5000 + "\n").encode(),
        "JS001",
    ),
    "5000-digit-json-integer": (
        "int.json",
        lambda: ('{"name": "S", "max_msgs": ' + "9" * 5000 + "}").encode(),
        "JS001",
    ),
    "invalid-utf8": (
        "latin1.yaml",
        lambda: (STREAM.format(name="S") + "  description: café\n").encode("latin-1"),
        "JS001",
    ),
    "binary-with-nul": ("bin.yaml", lambda: random.Random(1).randbytes(64 * 1024) + b"\x00", "JS001"),
    "nul-late-in-text": ("nul.yaml", lambda: (STREAM.format(name="S") * 2000).encode() + b"\x00", "JS001"),
    "10MB-random-bytes": ("random.yaml", lambda: random.Random(2).randbytes(10 * MiB), "JS001"),
    "10MB-yaml-garbage": ("garbage.yaml", lambda: garbage_text(10 * MiB), ""),
    "10MB-yaml-garbage-after-a-manifest": (
        "garbage2.yaml",
        lambda: STREAM.format(name="S").encode() + garbage_text(10 * MiB),
        "JS001",
    ),
    "control-character": (
        "ctl.yaml",
        lambda: (STREAM.format(name="S") + '  description: "\x1b[2J\x07"\n').encode(),
        "JS001",
    ),
    "nul-in-json": ("nul.json", lambda: b'{"name": "S\x00"}', "JS001"),
    "anchor-as-mapping-key": ("akey.yaml", lambda: b"k: &k {a: 1}\n*k : v\n", "JS001"),
    "complex-key": ("ckey.yaml", lambda: b"? [a, b]\n: v\n", "JS001"),
    "python-object-tag": (
        "py.yaml",
        lambda: b"apiVersion: jsops/v1\nkind: Stream\nmetadata: !!python/object:os.system {name: S}\n",
        "JS001",
    ),
    "python-apply-tag": ("apply.yaml", lambda: b"!!python/object/apply:os.system [echo pwned]\n", "JS001"),
    "python-name-tag": ("name2.yaml", lambda: b"x: !!python/name:os.system\n", "JS001"),
    "verbatim-tag": ("verb.yaml", lambda: b"x: !<tag:yaml.org,2002:python/object/new:os.system> [id]\n", "JS001"),
    "long-key": ("longkey.yaml", lambda: (STREAM.format(name="S") + "  " + "k" * 2000 + ": 1\n").encode(), "JS001"),
    "90k-unknown-fields": (
        "unknown.yaml",
        lambda: (STREAM.format(name="S") + "".join(f"  k{i}: 1\n" for i in range(90_000))).encode(),
        "JS005",
    ),
    "500k-empty-documents": ("seps.yaml", lambda: b"---\n" * 500_000, "JS008"),
    "100k-tiny-documents": ("tiny.yaml", lambda: b"--- 1\n" * 100_000, "JS002"),
}
HOSTILE = {case: (name, functools.cache(make), rule) for case, (name, make, rule) in HOSTILE.items()}


def _lint(tmp_path: Path, capsys, name: str, data: bytes, *extra: str) -> tuple[int, str, float]:
    path = tmp_path / name
    path.write_bytes(data)
    start = time.perf_counter()
    rc = main(["lint", str(path), "--format", "json", *extra])
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert err == ""
    return rc, out, elapsed


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_input_is_a_finding_in_bounded_time(case: str, tmp_path: Path, capsys) -> None:
    name, make, rule = HOSTILE[case]
    data = make()
    rc, out, elapsed = _lint(tmp_path, capsys, name, data)
    assert elapsed < HANG_GUARD, f"{case} took {elapsed:.1f}s"
    report = json.loads(out)
    findings = report["findings"]
    if not rule:  # passed over as not a JetStream config, in bounded time
        assert findings == [] and rc == 0 and report["summary"]["files"] == 0
        return
    assert findings, "no finding"
    assert findings[0]["rule"] == rule, findings[:3]
    assert all(f["line"] >= 1 and f["column"] >= 1 for f in findings)
    # Output does not grow with the input: messages are short, findings per file are capped.
    assert len(findings) <= MAX_FINDINGS_PER_FILE + 1
    assert all(len(f["message"]) <= 300 for f in findings), max(len(f["message"]) for f in findings)
    assert len(out) < 64 * 1024, len(out)
    assert all(ch.isprintable() or ch in "\n " for ch in out), "terminal control characters in the output"
    assert rc == (1 if any(f["severity"] == "error" for f in findings) else 0)
    assert rc == 1 or rule == "JS008"


def test_5MB_description_is_valid_and_nothing_echoes_it(tmp_path: Path, capsys) -> None:
    # Valid YAML and a valid object for the loader (the server's 4096-character limit is a rule's
    # business); whatever is reported, the 5 MB string is never printed.
    data = (STREAM.format(name="S") + "  description: " + "d" * 5 * MiB + "\n").encode()
    for fmt in ("json", "text"):
        path = tmp_path / "desc.yaml"
        path.write_bytes(data)
        start = time.perf_counter()
        main(["lint", str(path), "--format", fmt])
        elapsed = time.perf_counter() - start
        out, _ = capsys.readouterr()
        assert elapsed < HANG_GUARD
        assert len(out) < 16 * 1024, len(out)
        assert "d" * 200 not in out
    estate = load_paths([str(tmp_path / "desc.yaml")])
    assert [r.name for r in estate.resources] == ["S"]
    assert estate.findings == []


def test_5000_streams_in_one_file_all_load(tmp_path: Path, capsys) -> None:
    doc = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: S{i}}}\nspec: {{subjects: [s{i}.>], max_age: 1h, duplicate_window: 1m}}\n"
    text = "---\n".join(doc.format(i=i) for i in range(5000))
    path = tmp_path / "many.yaml"
    path.write_text(text)
    start = time.perf_counter()
    estate = load_paths([str(path)])
    assert time.perf_counter() - start < HANG_GUARD
    assert estate.findings == []
    assert len(estate.resources) == 5000
    assert estate.resources[4999].locate(("max_age",)) == (
        4 * 4999 + 4 + 4999,
        doc.format(i=4999).splitlines()[3].index("1h") + 1,
    )
    rc, out, elapsed = _lint(tmp_path, capsys, "many.yaml", text.encode())
    assert json.loads(out)["summary"]["objects"] == 5000
    assert elapsed < HANG_GUARD


def test_document_and_node_limits_stop_reading(tmp_path: Path) -> None:
    limits = Limits(max_documents=10, max_file_nodes=100)
    estate = Estate()
    load_text(
        ("---\n".join(STREAM.format(name=f"S{i}") for i in range(20))).encode(),
        "m.yaml",
        estate,
        limits=Limits(max_documents=10),
    )
    assert len(estate.resources) == 10
    assert [(f.rule, f.line) for f in estate.findings] == [("JS002", 70)]
    assert "more than 10 documents" in estate.findings[0].message
    estate = Estate()
    load_text(("---\n".join(STREAM.format(name=f"S{i}") for i in range(20))).encode(), "m.yaml", estate, limits=limits)
    assert 0 < len(estate.resources) < 20
    assert [f.rule for f in estate.findings] == ["JS002"]
    assert "more than 100 YAML nodes in all" in estate.findings[0].message


def test_file_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"# padding\n" * 1000)
    estate = load_paths([str(path)], limits=Limits(max_file_bytes=4096))
    assert [(f.rule, f.line, f.column) for f in estate.findings] == [("JS002", 1, 1)]
    assert "larger than" in estate.findings[0].message


def test_special_files_in_a_directory_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text(STREAM.format(name="S"))
    os.mkfifo(tmp_path / "fifo.yaml")  # reading it would block forever
    os.symlink("/dev/zero", tmp_path / "zero.yaml")  # reading it would never end
    estate = load_paths([str(tmp_path)])
    assert estate.files == [str(tmp_path / "ok.yaml")]
    # The link points out of the tree: a finding, and never read.
    assert [(f.rule, f.file) for f in estate.findings] == [("JS014", str(tmp_path / "zero.yaml"))]


def test_a_device_named_explicitly_is_read_within_bounds() -> None:
    start = time.perf_counter()
    estate = load_paths(["/dev/zero"], limits=Limits(max_file_bytes=MiB))
    assert time.perf_counter() - start < HANG_GUARD
    assert [f.rule for f in estate.findings] == ["JS002"]


@pytest.mark.parametrize(
    "case",
    [
        "billion-laughs",
        "alias-bomb-in-manifest",
        "deep-flow-mappings",
        "deep-json-objects",
        "10MB-yaml-garbage-after-a-manifest",
    ],
)
def test_hostile_input_memory_stays_bounded(case: str) -> None:
    name, make, rule = HOSTILE[case]
    data = make()
    tracemalloc.start()
    try:
        estate = Estate()
        load_text(data, name, estate)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert estate.findings[0].rule == rule
    # Python-side allocations on top of the input itself (a decoded copy and the parse).
    assert peak < 6 * len(data) + 64 * MiB, f"{case}: peak {peak / MiB:.0f} MiB for {len(data) / MiB:.1f} MiB of input"
    assert peak < 200 * MiB


# argv: USAGE_FILE COMMAND...; runs COMMAND (stdout and stderr shared) and writes [exit code, peak RSS in KiB]
_LAUNCHER = """
import json, os, subprocess, sys
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as fh:
    json.dump([os.waitstatus_to_exitcode(status), usage.ru_maxrss], fh)
"""


def test_lint_every_hostile_file_at_once_in_a_subprocess(tmp_path: Path) -> None:
    """The whole set through the real command line: bounded wall time and peak RSS, exit 1."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, make, _ in HOSTILE.values():
        (corpus / name).write_bytes(make())
    out_path, err_path = tmp_path / "out.json", tmp_path / "err.txt"
    root = Path(__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=str(root))
    usage_path = tmp_path / "usage.json"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        # Started from a small launcher, not from this test process: Linux counts the peak RSS of the
        # memory a child is spawned from (the parent's, until exec) in the child's ru_maxrss, so a grown
        # pytest process would be measured instead of jsops.
        lint = [sys.executable, "-m", "jsops.linter.cli.app", "lint", str(corpus), "--format", "json"]
        launcher = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, str(usage_path), *lint], stdout=out, stderr=err, env=env, cwd=root
        )
        elapsed = time.perf_counter() - start
    assert launcher.returncode == 0, err_path.read_text()
    returncode, maxrss_kib = json.loads(usage_path.read_text())
    assert err_path.read_text() == ""
    assert returncode == 1
    report = json.loads(out_path.read_text())
    files_with_findings = {f["file"] for f in report["findings"]}
    reported = [case for case, (_, _, rule) in HOSTILE.items() if rule]
    assert len(files_with_findings) == len(reported)
    assert report["summary"]["files"] == len(reported)
    assert out_path.stat().st_size < 2 * MiB
    assert elapsed < 2 * HANG_GUARD, f"{elapsed:.1f}s"
    peak_rss = maxrss_kib * 1024  # Linux reports KiB
    assert peak_rss < 400 * MiB, f"peak RSS {peak_rss / MiB:.0f} MiB"  # about 160 MiB when written


def test_alias_to_a_string_is_a_fine_mapping_key() -> None:
    # Only aliases to lists or mappings are refused as keys (see "anchor-as-mapping-key").
    text = "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  labels: {field: &n name}\n  *n : ORDERS\nspec: {subjects: [o.>]}\n"
    estate = Estate()
    load_text(text.encode(), "m.yaml", estate)
    assert estate.findings == []
    assert [r.name for r in estate.resources] == ["ORDERS"]
    assert estate.resources[0].locate(("metadata", "name"), document_path=True) == (5, 8)
