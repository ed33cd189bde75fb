"""Suite-wide hooks: helper processes never outlive an interrupted run (tests/procs.py)."""

from pathlib import Path

import pytest
from procs import pytest_configure, pytest_unconfigure

__all__ = ["pytest_configure", "pytest_unconfigure"]


@pytest.fixture
def lint_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh jsops cache directory for this test (``JSOPS_CACHE_DIR``), caches on, one process."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(directory))
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    monkeypatch.setenv("JSOPS_NO_PARALLEL", "1")
    return directory
