"""The jsops import namespace as a directory, for the tools that do not follow an editable install.

Installed (a wheel or ``pip install -e .``), the four top-level folders are the packages ``jsops.linter``,
``jsops.rules``, ``jsops.reconciler`` and ``jsops.profiler``. mypy and import-linter find modules on
disk only, so they are pointed at ``build/nsview``: a ``jsops`` folder of links to the four folders.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGES = ("linter", "rules", "reconciler", "profiler")


def make_view(root: Path) -> Path:
    """``root/build/nsview`` holding ``jsops/{linter,rules,reconciler,profiler}`` links; returns the folder
    to put on PYTHONPATH / MYPYPATH."""
    view = root / "build" / "nsview"
    pkg = view / "jsops"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(
        '"""jsops (a view of the repository for mypy and import-linter)."""\n', encoding="utf-8"
    )
    for name in PACKAGES:
        link = pkg / name
        target = os.path.relpath(root / name, pkg)
        if link.is_symlink() and os.readlink(link) == target:
            continue
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target, target_is_directory=True)
    return view
