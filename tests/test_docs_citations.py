"""Docs are self-contained: every document a doc or a module cites is in the repository.

- relative Markdown links (``[text](path)``) in every Markdown file resolve to a file or directory;
- ``docs/...`` paths named in Markdown, Python modules, tests, bench scripts and the packaging
  files exist;
- any ``NAME.md`` a file names (``see server-rules.md §5``) is a Markdown file of the repository;
- "contract(s) §N" citations name a section of docs/contracts.md that exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".venv", ".git", ".demo", "build", "node_modules", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
DOC_PATH = re.compile(r"(?<![\w./-])docs/[\w./-]*[\w/]")
CONTRACT = re.compile(r"\bcontracts? ((?:§\d+(?:\s*(?:,|/|and|-)\s*)?)+)")


def _files(*suffixes: str) -> list[Path]:
    out = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if rel.parts and (rel.parts[0] in SKIP or any(p.endswith(".egg-info") for p in rel.parts)):
            continue
        if path.is_file() and path.name.endswith(suffixes):
            if path != Path(__file__).resolve():  # this file names missing sections on purpose
                out.append(path)
    return sorted(out)


def _sections() -> set[int]:
    text = (ROOT / "docs" / "contracts.md").read_text()
    return {int(n) for n in re.findall(r"^## (\d+)\. ", text, re.M)}


def test_markdown_links_resolve() -> None:
    broken = []
    for md in _files(".md"):
        for target in LINK.findall(md.read_text()):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue  # a URL or an anchor in the same page
            path = target.split("#", 1)[0]
            if not (md.parent / path).exists():
                broken.append(f"{md.relative_to(ROOT)}: {target}")
    assert broken == []


def test_cited_docs_paths_exist() -> None:
    missing = []
    for f in _files(".md", ".py", ".toml", ".yaml", ".cfg", "Makefile", "Containerfile"):
        for cited in set(DOC_PATH.findall(f.read_text(errors="replace"))):
            cited = cited.rstrip(".")
            if "<" in cited or "*" in cited:
                continue
            if not (ROOT / cited).exists():
                missing.append(f"{f.relative_to(ROOT)}: {cited}")
    assert missing == []


def test_named_markdown_documents_exist() -> None:
    have = {p.name for p in _files(".md")}
    missing = []
    for f in _files(".md", ".py", ".toml", ".yaml", "Makefile", "Containerfile"):
        for name in set(re.findall(r"(?<![\w./-])([\w-]+\.md)\b", f.read_text(errors="replace"))):
            if name not in have:
                missing.append(f"{f.relative_to(ROOT)}: {name}")
    assert missing == []


def test_contract_citations_name_existing_sections() -> None:
    sections = _sections()
    assert sections == {1, 2, 3, 4, 5}
    cited: dict[int, list[str]] = {}
    for f in _files(".md", ".py"):
        for group in CONTRACT.findall(f.read_text(errors="replace")):
            for n in re.findall(r"§(\d+)", group):
                cited.setdefault(int(n), []).append(str(f.relative_to(ROOT)))
    assert cited, "no citation found: the pattern is broken"
    assert {n: where for n, where in cited.items() if n not in sections} == {}


@pytest.mark.parametrize("text", ["see contracts §7", "contract §3/§9"])
def test_a_missing_section_would_be_caught(text: str) -> None:
    numbers = {int(n) for g in CONTRACT.findall(text) for n in re.findall(r"§(\d+)", g)}
    assert numbers - _sections()
