"""Suite-wide hooks: helper processes never outlive an interrupted run (tests/procs.py)."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from procs import pytest_configure, pytest_unconfigure

__all__ = ["pytest_configure", "pytest_unconfigure"]


@pytest.fixture(scope="session", autouse=True)
def _cache_key_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The suite's cache key (jsops.linter.model.cache_dir.cache_key) lives in a directory of its own,
    never in the home of whoever runs it; processes the tests start inherit it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
        yield


@pytest.fixture
def lint_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh jsops cache directory for this test (``JSOPS_CACHE_DIR``), caches on, one process."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(directory))
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    monkeypatch.setenv("JSOPS_NO_PARALLEL", "1")
    return directory
