"""The plan's lint gate runs only the rules that can report an error, and reports exactly the
errors a full lint reports (issue 14, Speed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsops.linter import Severity, lint_estate, load_paths
from jsops.linter.config import Config
from jsops.linter.findings import Finding
from jsops.linter.model.target import Target
from jsops.reconciler.lintgate import lint_errors

ROOT = Path(__file__).resolve().parents[2]
ESTATES = [ROOT / "manifests", ROOT / "tests" / "fixtures" / "lint", ROOT / "tests" / "fixtures" / "field"]

SUPPRESSED = """
apiVersion: jsops/v1
kind: Consumer
metadata: {name: c, stream: S}
spec: {ack_policy: explicit, max_deliver: 3}  # jsops: disable=JS406
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: S}
spec: {subjects: ["s.>"], num_replicas: 3}
"""


def _errors(findings: list) -> list:  # type: ignore[type-arg]  # linter Findings
    return sorted((f for f in findings if f.severity is Severity.ERROR), key=lambda f: f.sort_key())


@pytest.mark.parametrize(
    "config",
    [
        Config(),
        Config(severity={"JS406": Severity.ERROR, "ops": Severity.ERROR}),
        Config(severity={"JS010": Severity.ERROR}),
        Config(target=Target(server_version="2.10.0", clustered=False)),
        Config(ignore=["JS102"]),
    ],
    ids=["default", "promoted", "unused-suppression-error", "old-standalone", "ignored"],
)
@pytest.mark.parametrize("where", ESTATES + ["suppressed"], ids=lambda p: Path(str(p)).name)
def test_the_gate_reports_the_errors_of_a_full_lint(config: Config, where: Path | str, tmp_path: Path) -> None:
    if where == "suppressed":
        (tmp_path / "s.yaml").write_text(SUPPRESSED.lstrip())
        where = tmp_path
    estate = load_paths([str(where)])
    assert _errors(lint_errors(estate, config).findings) == _errors(lint_estate(estate, config=config).findings)


@pytest.mark.parametrize("where", ESTATES + ["suppressed"], ids=lambda p: Path(str(p)).name)
def test_the_gate_for_some_objects_reports_their_errors_of_a_full_lint(where: Path | str, tmp_path: Path) -> None:
    """With ``objects`` (those a plan acts on), the errors of those objects and of no object are
    those of a full lint; with none, only the loader's errors remain."""
    from jsops.reconciler.preflight import LOADER_CODES

    if where == "suppressed":
        (tmp_path / "s.yaml").write_text(SUPPRESSED.lstrip())
        where = tmp_path
    estate = load_paths([str(where)])
    keys = [(r.kind, r.name, r.stream) for r in estate.resources]
    for some in (set(keys[::2]), set(keys[1::3]), set()):
        full = [f for f in _errors(lint_estate(estate, config=Config()).findings) if _judged(f, some, LOADER_CODES)]
        assert [
            f for f in _errors(lint_errors(estate, Config(), objects=some).findings) if _judged(f, some, LOADER_CODES)
        ] == full


def _judged(f: Finding, some: set[tuple[str, str, str | None]], loader: frozenset[str]) -> bool:
    return f.object is None or f.rule in loader or (f.object.kind, f.object.name, f.object.stream) in some
