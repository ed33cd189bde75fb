"""jsops's build backend: setuptools's, after writing the commit being built beside the version.

``linter/_build_commit.txt`` gets the full commit: git's HEAD when the source is a git checkout of jsops,
else ``$JSOPS_BUILD_COMMIT`` (an image build, whose context has no ``.git``); otherwise the file is left
as it is, so a wheel built from an sdist keeps the commit the sdist was made from. ``jsops --version``
reads it when no git checkout is at hand (``linter/_version.py``). An editable install gets no stamp: it
reads git at run time.

The wheel leaves out the modules of :data:`NOT_IN_WHEEL`: ``make demo`` and the synthetic telemetry the
profiler's tests and bench use run from a checkout (the sdist and an editable install keep them); no command
of the wheel imports them (``tests/test_packaging.py`` builds a wheel and checks both).
"""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel,
)
from setuptools.command.build_py import build_py as _build_py

__all__ = [
    "build_sdist",
    "build_wheel",
    "build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "get_requires_for_build_editable",
    "prepare_metadata_for_build_wheel",
    "prepare_metadata_for_build_editable",
]

# Modules (fnmatch patterns of dotted names: setuptools names a package's own module ``PKG.__init__``, an import
# graph names it ``PKG``, so a package needs both ``PKG`` and ``PKG.*``) that are the repository's, not the installed jsops's: the demo (``python -m jsops.reconciler.demo``, ``make demo``) and its
# traffic generator, and the synthetic telemetry generator (``python -m jsops.profiler.synthetic``) with its
# large-set writer.
NOT_IN_WHEEL = (
    "jsops.reconciler.demo",
    "jsops.reconciler.demo.*",
    "jsops.reconciler.demo_*",
    "jsops.reconciler._traffic",
    "jsops.profiler.synthetic",
    "jsops.profiler.synthetic.*",
    "jsops.profiler.synthetic_*",
)

ROOT = Path(__file__).resolve().parents[1]
STAMP = ROOT / "linter" / "_build_commit.txt"
_SHA = re.compile(r"[0-9a-f]{40}")

get_requires_for_build_editable = _setuptools.get_requires_for_build_editable
prepare_metadata_for_build_editable = _setuptools.prepare_metadata_for_build_editable
build_editable = _setuptools.build_editable


def _head() -> str | None:
    """HEAD of the git checkout whose root is ROOT (not of a repository that merely contains ROOT)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--show-toplevel", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.split()
    if out.returncode == 0 and len(lines) == 2 and Path(lines[0]).resolve() == ROOT and _SHA.fullmatch(lines[1]):
        return lines[1]
    return None


def stamp() -> str | None:
    """Write the commit being built into the stamp file; the commit, or None when none is known."""
    sha = _head() or os.environ.get("JSOPS_BUILD_COMMIT", "").strip().lower() or None
    if sha is not None and _SHA.fullmatch(sha):
        STAMP.write_text(sha + "\n", encoding="ascii")
        return sha
    try:
        kept = STAMP.read_text(encoding="ascii").strip()
    except OSError:
        return None
    return kept if _SHA.fullmatch(kept) else None


def in_wheel(module: str) -> bool:
    """Whether the module of this dotted name goes into the wheel (see :data:`NOT_IN_WHEEL`)."""
    return not any(fnmatch.fnmatchcase(module, pattern) for pattern in NOT_IN_WHEEL)


@contextmanager
def _wheel_modules() -> Iterator[None]:
    """setuptools's build_py finds each package's modules; while a wheel is built, the ones not in it are dropped."""
    find = _build_py.find_package_modules

    def find_package_modules(self: _build_py, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        return [m for m in find(self, package, package_dir) if in_wheel(f"{m[0]}.{m[1]}")]

    _build_py.find_package_modules = find_package_modules  # type: ignore[method-assign]
    try:
        yield
    finally:
        _build_py.find_package_modules = find  # type: ignore[method-assign]


def build_wheel(
    wheel_directory: str, config_settings: dict[str, str] | None = None, metadata_directory: str | None = None
) -> str:
    stamp()
    with _wheel_modules():
        return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))


def build_sdist(sdist_directory: str, config_settings: dict[str, str] | None = None) -> str:
    stamp()
    return str(_setuptools.build_sdist(sdist_directory, config_settings))
