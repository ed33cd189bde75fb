"""jsops's build backend: setuptools's, after writing the commit being built beside the version.

``linter/_build_commit.txt`` gets the full commit: git's HEAD when the source is a git checkout of jsops,
else ``$JSOPS_BUILD_COMMIT`` (an image build, whose context has no ``.git``); otherwise the file is left
as it is, so a wheel built from an sdist keeps the commit the sdist was made from. ``jsops --version``
reads it when no git checkout is at hand (``linter/_version.py``). An editable install gets no stamp: it
reads git at run time.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel,
)

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


def build_wheel(
    wheel_directory: str, config_settings: dict[str, str] | None = None, metadata_directory: str | None = None
) -> str:
    stamp()
    return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))


def build_sdist(sdist_directory: str, config_settings: dict[str, str] | None = None) -> str:
    stamp()
    return str(_setuptools.build_sdist(sdist_directory, config_settings))
