"""docs/architecture.md matches the rooms: every room of its Rooms table is a folder whose every module the
row names, every subpackage of the four packages is named in the document, and every contract id of
``pyproject.toml`` has its row in the contracts table (and no row names a contract that is gone)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
PACKAGES = ("linter", "rules", "reconciler", "profiler")


def _table(heading: str) -> list[list[str]]:
    """The rows (cells) of the first table after ``heading``."""
    section = DOC.split(heading, 1)[1]
    rows = []
    for line in section.splitlines():
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows:
            break
    return rows[2:]  # header and rule


def _rooms() -> dict[str, str]:
    """A folder room (``linter/cli/``) -> the text of its row."""
    out = {}
    for cells in _table("## Rooms"):
        paths = re.findall(r"`([\w/]+/)`", cells[0])
        if len(paths) == 1:
            out[paths[0]] = " | ".join(cells[1:])
    return out


def test_every_room_is_a_folder_whose_modules_its_row_names() -> None:
    rooms = _rooms()
    assert rooms, "no folder rooms found in docs/architecture.md"
    missing = []
    for folder, row in rooms.items():
        path = ROOT / folder
        assert (path / "__init__.py").is_file(), f"{folder}: not a package"
        named = set(re.findall(r"`(\w+)", row))
        for module in sorted(path.glob("*.py")):
            if module.stem not in ("__init__", "__main__") and module.stem not in named:
                missing.append(f"{folder}{module.name}")
    assert missing == [], f"modules of a room its row does not name: {missing}"


def test_every_subpackage_is_named_in_the_document() -> None:
    unnamed = []
    for top in PACKAGES:
        for init in sorted((ROOT / top).rglob("__init__.py")):
            folder = init.parent.relative_to(ROOT)
            if folder.parts[0] == "rules" or folder == Path(top):
                continue  # rules/<theme>/ are drawn as one box
            if f"{folder.name}/" not in DOC and f"`{folder.name}`" not in DOC and f" {folder.name} " not in DOC:
                unnamed.append(str(folder))
    assert unnamed == []


def test_the_contracts_table_is_the_contracts() -> None:
    with (ROOT / "pyproject.toml").open("rb") as f:
        contracts = tomllib.load(f)["tool"]["importlinter"]["contracts"]
    ids = {c["id"] for c in contracts}
    documented = {i for cells in _table("## The contracts") for i in re.findall(r"`([\w-]+)`", cells[0])}
    assert documented == ids
