"""The jsops version: one home, imported by the package, the CLI, the cache keys and the build.

``__version__`` below is the one place the version is declared: the build reads it (pyproject.toml,
``[tool.setuptools.dynamic]``), and it is the top numbered release of CHANGELOG.md. Between releases a
tree keeps declaring the last release; the commit tells builds apart (``tests/test_pins.py`` checks
that the docs pin this version and nothing else, ``docs/releasing.md`` says how a release is cut).

The commit is read from git when this module lies in a git checkout of jsops (a clone, an editable
install), else from ``_build_commit.txt``, which the build writes beside this module (an sdist carries
it to the wheel built from it); a tree with neither names no commit.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

__all__ = ["__version__", "commit", "version_line", "install_hint"]

__version__ = "0.2.0"

_STAMP = "_build_commit.txt"
_SHA = re.compile(r"[0-9a-f]{40}")


def _git_commit(here: Path) -> str | None:
    """HEAD of the git checkout whose ``linter/`` folder is ``here`` (never of a repository that merely
    holds an installed jsops, such as a project keeping its virtual environment in its work tree)."""
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel", "HEAD"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = top.stdout.split()
    if top.returncode != 0 or len(lines) != 2 or not _SHA.fullmatch(lines[1]):
        return None
    return lines[1] if Path(lines[0]).resolve() == here.parent else None


@functools.cache
def commit() -> str | None:
    """The full commit this jsops was built from (git first, then the build stamp), or None."""
    here = Path(__file__).resolve().parent
    if (here.parent / ".git").exists():
        found = _git_commit(here)
        if found:
            return found
    try:
        stamped = (here / _STAMP).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return stamped if _SHA.fullmatch(stamped) else None


def version_line() -> str:
    """What ``jsops --version`` prints: the version and the commit (12 hex digits) it was built from."""
    sha = commit()
    return f"jsops {__version__}" + (f" (commit {sha[:12]})" if sha else "")


def install_hint(extra: str) -> str:
    """How to install jsops with an extra (``spark``, ``connect``, ``sail``): jsops is on no package index,
    so from a clone of its repository or from a release's wheel."""
    return (
        f"pip install '.[{extra}]' in a jsops clone, or 'jsops-{__version__}-py3-none-any.whl[{extra}]' from a release"
    )
