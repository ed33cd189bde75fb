"""Every GitHub Actions workflow of the repository passes actionlint (the dev extra installs it as a wheel
carrying its binary), and actionlint does fail a broken workflow here (so a pass means something)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted([*(ROOT / ".github" / "workflows").glob("*.yml"), *(ROOT / ".github" / "workflows").glob("*.yaml")])


def _actionlint() -> str:
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    if found is None:
        pytest.fail("actionlint is not installed: make install (the dev extra) installs it")
    return found


def _lint(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_actionlint(), "-no-color", "-oneline", *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_release_workflow_is_there() -> None:
    assert ROOT / ".github" / "workflows" / "release.yml" in WORKFLOWS


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_passes_actionlint(workflow: Path) -> None:
    proc = _lint(workflow)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr


def test_actionlint_fails_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    text = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    broken.write_text(text.replace("needs.build.outputs.version", "needs.build.outputs.versoin", 1))
    proc = _lint(broken)
    assert proc.returncode == 1 and "versoin" in proc.stdout, proc.stdout + proc.stderr
