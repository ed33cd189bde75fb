#!/usr/bin/env python3
"""Policy speed (issue 38): what 20 CEL policies add to a cold ``jsops lint`` of the 10,000-object
estate, and the two CEL engines side by side on the same policies and objects.

The estate is lint_speed.py's (2,000 streams x 4 consumers, one file per stream). Two configs differ
only in ``policies:`` (20 policies: 10 on streams, 10 on consumers, typical of a team's rules: replicas
in prod, limits, naming, metadata, retries, the stream of a consumer). Both are linted cold
(``--no-cache``: every file parsed, validated and checked) in turn, ``--pairs`` times, each in a fresh
process through the ``jsops`` console script of the running venv; the figure is the median of the
pairs' ratios (with/without), wall and CPU time. Target: the policies add at most 30% (ratio <= 1.30).

The engines: ``common-expression-language`` (Rust, the one jsops uses) and ``cel-python`` (pure
Python), each compiling the 20 policies and evaluating them on the same variables (built once per
object by jsops.linter.policy_values.activation, with what the policies of its kind read): the time
of converting the variables to each engine's values once per object and evaluating every policy of
the object's kind on them, best of ``--repeat``.

    python bench/policy_speed.py [--streams 2000] [--consumers 4] [--pairs 5] [--repeat 3] [--check]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lint_speed import generate  # the same generated estate

POLICIES = """policies:
  - {code: BENCH01, kind: Stream, deny: "env == 'prod' && config.num_replicas < 3", message: "R${config.num_replicas} in prod", field: num_replicas}
  - {code: BENCH02, kind: Stream, deny: "config.max_age > duration('720h')", message: "max_age ${config.max_age}", field: max_age}
  - {code: BENCH03, kind: Stream, require: "config.max_bytes > 0", message: "no max_bytes", field: max_bytes}
  - {code: BENCH04, kind: Stream, deny: "config.retention == 'workqueue' && config.storage != 'file'", message: "workqueue in memory", field: storage}
  - {code: BENCH05, kind: Stream, require: "'owner' in metadata", message: "no owner"}
  - {code: BENCH06, kind: Stream, require: "name.matches('^[A-Z][A-Z0-9_]*$')", message: "name ${name}"}
  - {code: BENCH07, kind: Stream, deny: "config.subjects.exists(s, s.startsWith('$'))", message: "system subject", field: subjects}
  - {code: BENCH08, kind: Stream, deny: "config.max_msg_size > 8388608", message: "max_msg_size", field: max_msg_size}
  - {code: BENCH09, kind: Stream, deny: "config.duplicate_window > duration('10m')", message: "window", field: duplicate_window}
  - {code: BENCH10, kind: Stream, deny: "target.clustered && config.num_replicas == 1", message: "R1 in a cluster", field: num_replicas}
  - {code: BENCH11, kind: Consumer, require: "config.max_deliver > 0 && config.max_deliver < 20", message: "max_deliver ${config.max_deliver}", field: max_deliver}
  - {code: BENCH12, kind: Consumer, deny: "config.ack_wait > duration('5m')", message: "ack_wait", field: ack_wait}
  - {code: BENCH13, kind: Consumer, require: "config.ack_policy == 'explicit'", message: "ack policy", field: ack_policy}
  - {code: BENCH14, kind: Consumer, deny: "config.max_ack_pending > 10000", message: "max_ack_pending", field: max_ack_pending}
  - {code: BENCH15, kind: Consumer, deny: "stream.retention == 'workqueue' && !has(config.filter_subject)", message: "unfiltered workqueue consumer"}
  - {code: BENCH16, kind: Consumer, deny: "size(config.backoff) > 5", message: "backoff", field: backoff}
  - {code: BENCH17, kind: Consumer, deny: "has(config.deliver_subject)", message: "push consumer"}
  - {code: BENCH18, kind: Consumer, require: "has(config.description)", message: "no description"}
  - {code: BENCH19, kind: Consumer, deny: "config.max_waiting > 1024", message: "max_waiting", field: max_waiting}
  - {code: BENCH20, kind: Consumer, deny: "env == 'prod' && stream.num_replicas < config.num_replicas", message: "more replicas than the stream"}
"""


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _lint(jsops: str, root: Path, config: Path) -> tuple[float, float]:
    cpu0, t0 = _cpu_children(), time.perf_counter()
    done = subprocess.run(
        [jsops, "lint", "--no-cache", "--config", str(config), "--env", "prod", "--format", "json", "."],
        cwd=root,
        capture_output=True,
    )
    wall, cpu = time.perf_counter() - t0, _cpu_children() - cpu0
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr.decode()[-2000:])
    return wall, cpu


def lint_overhead(root: Path, pairs: int) -> dict[str, float]:
    jsops = shutil.which("jsops") or str(Path(sys.executable).parent / "jsops")
    plain, with_policies = root / "plain.jsops.yaml", root / "policies.jsops.yaml"
    plain.write_text("target: {cluster_size: 3}\n")
    with_policies.write_text("target: {cluster_size: 3}\n" + POLICIES)
    _lint(jsops, root, plain)  # the entry points cache and the OS's file cache: not what is compared
    _lint(jsops, root, with_policies)
    walls, cpus, base_w, pol_w = [], [], [], []
    for _ in range(pairs):
        bw, bc = _lint(jsops, root, plain)
        pw, pc = _lint(jsops, root, with_policies)
        walls.append(pw / bw)
        cpus.append(pc / bc)
        base_w.append(bw)
        pol_w.append(pw)
    return {
        "lint_s": statistics.median(base_w),
        "lint_with_policies_s": statistics.median(pol_w),
        "ratio_wall": statistics.median(walls),
        "ratio_cpu": statistics.median(cpus),
    }


def _config() -> Any:
    import yaml  # PyYAML (a dev dependency through pre-commit): the bench's own reading

    from jsops.linter.config import Config

    return Config.model_validate({"target": {"cluster_size": 3}, **yaml.safe_load(POLICIES)})


def _variables(root: Path) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, str]]]:
    """(kind, variables) of every stream and consumer of the estate, built as jsops builds them (the
    variables and fields the policies of the kind read), and the policies as (kind, expression)."""
    from jsops.linter.api import RuleContext
    from jsops.linter.engine import discover_rules
    from jsops.linter.load import load_paths
    from jsops.linter.policies import PolicyRule
    from jsops.linter.policy_values import activation

    cfg = _config()
    rules = [r for r in discover_rules(cfg, env="prod") if issubclass(r, PolicyRule)]
    batches = {r.policy.kind: r._batch for r in rules}
    estate = load_paths([str(root)])
    ctx = RuleContext(estate, cfg.target)
    objects = []
    for r in estate.resources:
        if r.bucket is None:
            b = batches[r.kind]
            objects.append((r.kind, activation(r.kind, r, ctx, "prod", b.variables, b.fields)))
    return objects, [(r.policy.kind, r.policy.expression) for r in rules]


def _to_celpy(value: Any) -> Any:
    from celpy import celtypes

    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, int):
        return celtypes.IntType(value)
    if isinstance(value, float):
        return celtypes.DoubleType(value)
    if isinstance(value, str):
        return celtypes.StringType(value)
    if isinstance(value, timedelta):
        return celtypes.DurationType(value)
    if isinstance(value, list):
        return celtypes.ListType([_to_celpy(v) for v in value])
    if isinstance(value, dict):
        return celtypes.MapType({celtypes.StringType(k): _to_celpy(v) for k, v in value.items()})
    raise TypeError(type(value))


def engines(root: Path, repeat: int) -> dict[str, float]:
    """Each engine as jsops drives it: the variables converted once per object, then every policy
    of the object's kind evaluated on them."""
    import cel
    import celpy

    objects, policies = _variables(root)
    out: dict[str, float] = {
        "objects": len(objects),
        "evaluations": sum(1 for k, _ in objects for pk, _ in policies if pk == k),
    }
    by_kind = {k: [e for pk, e in policies if pk == k] for k in ("Stream", "Consumer")}

    rust = {k: [cel.compile(e) for e in es] for k, es in by_kind.items()}
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for kind, variables in objects:
            context = cel.Context(variables)
            for program in rust[kind]:
                program.execute(context)
        best = min(best, time.perf_counter() - t0)
    out["rust_s"] = best

    env = celpy.Environment()
    python = {k: [env.program(env.compile(e)) for e in es] for k, es in by_kind.items()}
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for kind, variables in objects:
            converted = {n: _to_celpy(v) for n, v in variables.items()}
            for program in python[kind]:
                program.evaluate(converted)
        best = min(best, time.perf_counter() - t0)
    out["celpy_s"] = best
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--streams", type=int, default=2000)
    ap.add_argument("--consumers", type=int, default=4)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="exit 1 when the policies add more than 30%% to the cold lint")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="jsops-policy-bench-") as tmp:
        root = Path(tmp)
        generate(root, args.streams, args.consumers)
        os.environ["JSOPS_NO_CACHE"] = "1"
        lint = lint_overhead(root, args.pairs)
        eng = engines(root, args.repeat)
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print(
        f"cold lint, {args.streams} streams x {args.consumers} consumers: {lint['lint_s']:.2f} s; with 20 policies {lint['lint_with_policies_s']:.2f} s"
    )
    print(
        f"  ratio (median of {args.pairs} pairs): wall {lint['ratio_wall']:.3f}, CPU {lint['ratio_cpu']:.3f} (target <= 1.30)"
    )
    print(f"engines, {eng['evaluations']:.0f} evaluations on {eng['objects']:.0f} objects (best of {args.repeat}):")
    print(
        f"  common-expression-language (Rust): {eng['rust_s']:.3f} s ({eng['rust_s'] / eng['evaluations'] * 1e6:.1f} us each)"
    )
    print(
        f"  cel-python:                         {eng['celpy_s']:.3f} s ({eng['celpy_s'] / eng['evaluations'] * 1e6:.1f} us each)"
    )
    print(f"  cel-python / Rust: {eng['celpy_s'] / eng['rust_s']:.1f}x")
    return 1 if args.check and lint["ratio_wall"] > 1.30 else 0


if __name__ == "__main__":
    raise SystemExit(main())
