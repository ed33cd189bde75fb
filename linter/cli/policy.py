"""``jsops policy test``: the config's policies run on fixture cases, each naming the policy codes it
expects (docs/policies.md), as ``opa test`` and kube-linter's check tests do.

A fixture file (``*.yaml`` under the given paths, default ``policy-tests/`` next to the config)::

    env: prod                       # optional: the environment the policies see
    target: {cluster_size: 3}       # optional: replaces the config's target
    cases:
      - name: an R1 stream in prod is refused
        expect: [ACME001]           # the policy codes the case gives; [] for none
        objects:                    # manifests, as in a manifest file (any dialect)
          - apiVersion: jsops/v1
            kind: Stream
            metadata: {name: ORDERS}
            spec: {subjects: ["orders.>"], num_replicas: 1}

Only the findings of policies are compared (built-in rules say what they say); every case is linted
on its own, with the config's policies and the fixture's env and target.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..exitcodes import ExitCode
from .kit import Exit, config_from_args

if TYPE_CHECKING:
    from ..api import Rule
    from ..config import Config
    from ..load import ParsedDocument

__all__ = ["policy_test_command", "CaseResult", "run_fixture"]


@dataclass(frozen=True)
class CaseResult:
    """One case's outcome: the codes it expects and those its objects gave."""

    file: str
    line: int
    name: str
    expected: tuple[str, ...]
    found: tuple[str, ...]
    messages: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return set(self.expected) == set(self.found)


def _fixture_files(paths: list[str]) -> list[str]:
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                out.extend(os.path.join(root, f) for f in sorted(files) if f.endswith((".yaml", ".yml")))
        elif os.path.isfile(p):
            out.append(p)
        else:
            raise Exit(f"jsops: error: {p}: no such fixture file or directory", ExitCode.NOT_RUN)
    return out


def _bad(file: str, line: int, message: str) -> Exit:
    return Exit(f"jsops: error: {file}:{line}: {message}", ExitCode.NOT_RUN)


def run_fixture(file: str, cfg: Config) -> list[CaseResult]:
    """Every case of the fixture ``file``, linted with ``cfg``'s policies."""
    from ..engine import discover_rules
    from ..model.positions import resolve_position

    doc = _read_fixture(file)
    cfg, env = _fixture_config(file, doc, cfg)
    policies = [r for r in discover_rules(cfg, env=env) if r.code in {p.code for p in cfg.policies}]
    out: list[CaseResult] = []
    for i, case in enumerate(doc.value["cases"]):
        pos = resolve_position(doc.positions, ("cases", i))
        out.append(_run_case(file, pos[0] if pos else 1, i, case, cfg, policies))
    return out


def _read_fixture(file: str) -> ParsedDocument:
    """The fixture's one document: a mapping of env, target and a list of cases."""
    from ..load import read_documents

    with open(file, "rb") as fh:
        docs, problems = read_documents(fh.read())
    problems = problems + [p for d in docs for p in d.problems]
    if problems:
        raise _bad(file, problems[0].line, f"invalid YAML: {problems[0].message}")
    if len(docs) != 1 or not isinstance(docs[0].value, dict) or not isinstance(docs[0].value.get("cases"), list):
        raise _bad(file, 1, "a policy fixture is one mapping with a list of cases (docs/policies.md)")
    unknown = set(docs[0].value) - {"env", "target", "cases"}
    if unknown:
        raise _bad(file, 1, f"unknown key {sorted(unknown)[0]!r} (a fixture has env, target and cases)")
    return docs[0]


def _fixture_config(file: str, doc: ParsedDocument, cfg: Config) -> tuple[Config, str | None]:
    """The config with the fixture's target (when it gives one), and the fixture's env."""
    from ..model.target import Target

    env = doc.value.get("env")
    if env is not None and not isinstance(env, str):
        raise _bad(file, 1, "env is a string")
    if doc.value.get("target") is not None:
        try:
            cfg = cfg.model_copy(update={"target": Target.model_validate(doc.value["target"])})
        except Exception as exc:  # a pydantic ValidationError: the fixture's target does not validate
            raise _bad(file, 1, f"target: {exc}") from None
    return cfg, env


def _run_case(file: str, line: int, i: int, case: object, cfg: Config, policies: list[type[Rule]]) -> CaseResult:
    """One case (the ``i``-th, at ``line``) linted on its own: the policy codes it expects and those it gave."""
    from ..engine import discover_rules, lint_estate
    from ..load import load_paths

    codes = {r.code for r in policies}
    if (
        not isinstance(case, dict)
        or not isinstance(case.get("objects"), list)
        or not isinstance(case.get("expect"), list)
    ):
        raise _bad(file, line, "a case has a name, expect (a list of codes) and objects (a list of manifests)")
    expected = tuple(str(c) for c in case["expect"])
    strangers = [c for c in expected if c not in codes]
    if strangers:
        raise _bad(
            file,
            line,
            f"expect names {strangers[0]!r}, which is not a policy of the config "
            f"({', '.join(sorted(codes)) or 'none'})",
        )
    with tempfile.TemporaryDirectory(prefix="jsops-policy-test-") as tmp:
        path = os.path.join(tmp, "case.yaml")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n---\n".join(json.dumps(o) for o in case["objects"]) + "\n")
        estate = load_paths([path], env=None)
        result = lint_estate(estate, [*discover_rules(), *policies], config=cfg, read_source=None)
    found = [f for f in result.findings if f.rule in codes]
    return CaseResult(
        file,
        line,
        str(case.get("name") or f"case {i + 1}"),
        expected,
        tuple(sorted({f.rule for f in found})),
        tuple(f"{f.rule} {f.object}: {f.message}" if f.object else f"{f.rule}: {f.message}" for f in found),
    )


def render_results(results: list[CaseResult]) -> str:
    """The text report: one line per case, the findings of a failed case under it, and a summary."""
    lines: list[str] = []
    for r in results:
        if r.passed:
            lines.append(f"ok    {r.file}:{r.line} {r.name}")
            continue
        lines.append(
            f"FAIL  {r.file}:{r.line} {r.name}: expected {', '.join(r.expected) or 'no finding'}, got {', '.join(r.found) or 'no finding'}"
        )
        lines.extend(f"        {m}" for m in r.messages)
    failed = sum(1 for r in results if not r.passed)
    lines.append(f"{len(results) - failed} passed, {failed} failed ({len(results)} cases)")
    return "\n".join(lines) + "\n"


def policy_test_command(args: argparse.Namespace) -> int:
    """``jsops policy test``: 0 every case passed, 1 a case failed, 2 could not run."""
    cfg = config_from_args(args)
    if not cfg.policies:
        raise Exit(f"jsops: error: {cfg.source or 'no jsops config'}: declares no policies", ExitCode.NOT_RUN)
    from ..engine import discover_rules

    discover_rules(cfg)  # a policy that does not compile fails first, at its line
    paths = list(args.fixtures) or [cfg.resolve_path("policy-tests")]
    files = _fixture_files(paths)
    if not files:
        raise Exit(f"jsops: error: no fixture files (*.yaml) in {', '.join(paths)}", ExitCode.NOT_RUN)
    results = [r for f in files for r in run_fixture(f, cfg)]
    sys.stdout.write(render_results(results))
    return ExitCode.OK if all(r.passed for r in results) else ExitCode.FINDINGS
