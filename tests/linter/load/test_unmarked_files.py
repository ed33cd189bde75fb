"""A file the loader read without a suppression marker (``jsops:``) is not read again for comments
(issue 23, floor: a warm lint of 2,000 files read every file twice): the comments that apply are
those of the bytes that were linted."""

from __future__ import annotations

from pathlib import Path

from jsops.linter.engine import lint_estate
from jsops.linter.load import load_paths

STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: S}\nspec: {subjects: [s.>], max_age: 1m}\n"


def test_the_loader_notes_files_without_a_marker(tmp_path: Path) -> None:
    (tmp_path / "plain.yaml").write_text(STREAM)
    (tmp_path / "marked.yaml").write_text(
        STREAM.replace("S}", "T}").replace("s.>", "t.>") + "# jsops: disable-file=JS322 fine here\n"
    )
    estate = load_paths([str(tmp_path)])
    assert estate.unmarked == {str(tmp_path / "plain.yaml")}
    rules = {(f.rule, Path(f.file).name) for f in lint_estate(estate).findings}
    assert ("JS322", "plain.yaml") in rules and ("JS322", "marked.yaml") not in rules


def test_comments_are_those_of_the_bytes_linted(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(STREAM)
    estate = load_paths([str(path)])
    path.write_text(STREAM + "# jsops: disable-file=JS322 added after loading\n")  # not what was linted
    assert "JS322" in {f.rule for f in lint_estate(estate).findings}
