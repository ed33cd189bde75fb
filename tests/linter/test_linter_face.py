"""The linter's public face (``jsops.linter.__all__``): every name resolves, mypy sees the same names, and a
name says what it is outside its submodule (``classify_change``, not ``classify``)."""

import ast
from pathlib import Path

from jsops import linter

FACE = Path(linter.__file__)

# Names that only make sense inside their submodule: the face exports them under a longer name.
TOO_GENERIC = {
    "process",
    "classify",
    "worst",
    "discover",
    "walk_dirs",
    "read_lines",
    "render_text",
    "render_html",
    "Limits",
    "Version",
    "Target",
    "Selection",
}


def _typing_names() -> set[str]:
    """The names the face imports under ``if TYPE_CHECKING:`` (what mypy sees)."""
    tree = ast.parse(FACE.read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    return {
        alias.asname or alias.name for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names
    }


def test_every_public_name_resolves_from_its_home() -> None:
    assert set(linter._HOMES) == set(linter.__all__)
    for name in linter.__all__:
        assert getattr(linter, name) is not None, name


def test_the_typed_face_names_what_all_names() -> None:
    assert _typing_names() == set(linter.__all__)


def test_no_generic_name_on_the_face() -> None:
    assert TOO_GENERIC.isdisjoint(linter.__all__)
    assert linter.classify_change.__name__ == "classify" and linter.worst_change_class.__name__ == "worst"
