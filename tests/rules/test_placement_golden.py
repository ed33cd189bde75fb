"""Golden: JS317's report on a supercluster target (tests/golden/placement: the target `jsops discover` writes
for tests/supercluster.py THREE_CLUSTERS), every kind of refusal once and an accepted placement silent."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "placement"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"


def test_lint_text(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    from jsops.linter.cli.app import main

    for name in ("supercluster.yaml", "jsops.yaml"):
        shutil.copy(GOLDEN / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    rc = main(["lint", "supercluster.yaml", "--config", "jsops.yaml", "--no-cache"])
    out, err = capsys.readouterr()
    assert err == "" and rc == 1
    if UPDATE:
        (GOLDEN / "lint.txt").write_text(out)
    assert out == (GOLDEN / "lint.txt").read_text(), (
        "lint.txt differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    )
    assert "SSD_ANYWHERE" not in out  # C1 is too small, C3 holds it
