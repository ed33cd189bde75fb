"""Symbolic links out of the tree are never followed, and files that are not manifests are never quoted.

A tree holds links to a token file, an SSH key and a valid stream manifest outside it, plus a
token and a key saved as ``*.yaml``/``*.json`` inside it. The secrets' bytes must appear nowhere
in ``jsops lint`` output (text, json, sarif), the host manifest must not be loaded, and each link
is a JS014 finding that names the link. Links that stay inside the tree still load.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jsops.linter.cli.app import main
from jsops.linter.load import discover, escapes, load_paths, tree_root

TOKEN = "ghp_R3alL00kingT0kenValue9f8e7d6c5b4a3210ZZ"
KEY_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACDx"
SSH_KEY = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{KEY_BODY}\nQyNTUxOQAAACDxSECRETSECRETSECRET\n-----END OPENSSH PRIVATE KEY-----\n"
HOST_STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: HOSTFILE\nspec:\n  subjects: [host.>]\n"
STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: {name}\nspec:\n  subjects: [{name}.>]\n"
SECRETS = (TOKEN, KEY_BODY, "SECRETSECRET", TOKEN[:12], KEY_BODY[:12], "OPENSSH")


def _tree(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "token").write_text(TOKEN + "\n")
    (outside / "id_ed25519").write_text(SSH_KEY)
    (outside / "host.yaml").write_text(HOST_STREAM)
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "ok.yaml").write_text(STREAM.format(name="OK"))
    (tree / "sub" / "real.yaml").write_text(STREAM.format(name="INSIDE"))
    os.symlink(outside / "token", tree / "token.yaml")
    os.symlink("../outside/id_ed25519", tree / "key.yml")
    os.symlink(outside / "host.yaml", tree / "host.yaml")
    os.symlink("sub/real.yaml", tree / "inside-link.yaml")  # inside the tree: fine
    # Secrets that are regular files in the tree: read (they are in the tree) but never quoted.
    (tree / "creds.yaml").write_text(TOKEN + "\n")
    (tree / "creds.json").write_text(TOKEN + "\n")
    (tree / "deploy-key.yaml").write_text(SSH_KEY)
    (tree / "env.yaml").write_text(f"token: {TOKEN}\n")
    return tree


def _lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    rc = main(["lint", *args])
    out, err = capsys.readouterr()
    return rc, out + err


def _no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} leaked into the output"


def test_links_out_of_the_tree_are_findings_and_never_read(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    estate = load_paths([str(tree)])
    names = sorted(r.name for r in estate.resources)
    assert names == ["INSIDE", "INSIDE", "OK"] or names == ["INSIDE", "OK"]
    assert "HOSTFILE" not in names
    links = sorted((Path(f.file).name, f.line, f.column) for f in estate.findings if f.rule == "JS014")
    assert links == [("host.yaml", 1, 1), ("key.yml", 1, 1), ("token.yaml", 1, 1)]
    for f in estate.findings:
        if f.rule == "JS014":
            assert str(tmp_path / "outside") not in f.message and not f.excerpt  # the link is named, the target is not
    # Not counted as files read, not in what the controller would hash.
    assert not {str(tree / n) for n in ("token.yaml", "key.yml", "host.yaml")} & set(estate.files)
    assert not {str(tree / n) for n in ("token.yaml", "key.yml", "host.yaml")} & set(discover([str(tree)]))


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "junit"])
def test_secrets_appear_in_no_report(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    tree = _tree(tmp_path)
    rc, out = _lint(capsys, str(tree), "--format", fmt)
    assert rc == 1
    assert "JS014" in out and "token.yaml" in out and "key.yml" in out
    _no_secret(out)
    assert "HOSTFILE" not in out


def test_text_report_shows_no_line_of_a_non_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = _tree(tmp_path)
    rc, out = _lint(capsys, str(tree / "env.yaml"), str(tree / "creds.json"), str(tree / "deploy-key.yaml"))
    # Not JetStream configs (jsops.linter.load.recognise): passed over and counted, nothing of them shown.
    assert rc == 0 and ": error JS" not in out and " | " not in out
    assert "3 files that are not JetStream configs skipped" in out
    _no_secret(out)


def test_a_broken_manifest_still_shows_its_position_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Scrubbing is for non-manifests only: a manifest with a syntax error keeps its message and excerpt."""
    bad = tmp_path / "m.yaml"
    bad.write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: {ORDERS\nspec:\n  subjects: [a]\n")
    rc, out = _lint(capsys, str(bad))
    assert rc == 1 and "the mapping '{' that starts at line 4" in out and " | " in out


def test_explicit_link_argument_out_of_its_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = _tree(tmp_path)
    rc, out = _lint(capsys, str(tree / "token.yaml"), "--format", "json")
    assert rc == 1
    findings = json.loads(out)["findings"]
    assert [(f["rule"], Path(f["file"]).name) for f in findings] == [("JS014", "token.yaml")]
    _no_secret(out)


def test_links_inside_a_repository_are_followed(tmp_path: Path) -> None:
    """In a git repository the tree is the repository: a link from the linted directory to another
    directory of the same repository is fine; one out of the repository is not."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "shared").mkdir()
    (repo / "shared" / "s.yaml").write_text(STREAM.format(name="SHARED"))
    (repo / "manifests").mkdir()
    os.symlink("../shared/s.yaml", repo / "manifests" / "s.yaml")
    os.symlink(tmp_path / "elsewhere.yaml", repo / "manifests" / "x.yaml")
    (tmp_path / "elsewhere.yaml").write_text(STREAM.format(name="ELSEWHERE"))
    assert tree_root(str(repo / "manifests")) == str(repo.resolve())
    estate = load_paths([str(repo / "manifests")])
    assert [r.name for r in estate.resources] == ["SHARED"]
    assert [(f.rule, Path(f.file).name) for f in estate.findings] == [("JS014", "x.yaml")]


def test_escapes_is_about_the_resolved_path(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f.yaml").write_text("x")
    os.symlink(tmp_path / "a", tmp_path / "alias")
    root = str((tmp_path / "a").resolve())
    assert not escapes(str(tmp_path / "alias" / "f.yaml"), root)  # the tree reached through a link
    assert escapes(str(tmp_path / "a" / ".." / "a2"), root)
    assert not escapes(str(tmp_path / "a"), root)


def test_link_swapped_after_discovery_is_not_read(tmp_path: Path) -> None:
    """The check is made again right before the file is opened."""
    from jsops.linter.load import Estate, load_file

    tree = _tree(tmp_path)
    link = tree / "late.yaml"
    os.symlink("ok.yaml", link)
    root = tree_root(str(tree))
    os.unlink(link)
    os.symlink(tmp_path / "outside" / "host.yaml", link)  # swapped between discovery and read
    estate = Estate()
    load_file(str(link), estate, root=root)
    assert estate.resources == [] and [f.rule for f in estate.findings] == ["JS014"]


GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "lint-links.txt"


def test_links_and_non_manifests_golden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What an SRE sees for links out of the tree and secrets saved as manifests (run from the
    tree's parent, so paths are relative). Regenerate with JSOPS_UPDATE_GOLDEN=1 and review."""
    tree = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    rc, out = _lint(capsys, "tree")
    assert rc == 1
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(out)
    assert out == GOLDEN.read_text()
    assert str(tree) not in out


def test_parallel_load_treats_links_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Large estates are parsed by two processes; a link out of the tree is a JS014 there too."""
    from jsops.linter.load import parallel as loader_parallel

    tree = _tree(tmp_path)
    for i in range(12):
        (tree / f"s{i:02}.yaml").write_text(STREAM.format(name=f"S{i:02}"))
    monkeypatch.setenv("JSOPS_NO_PARALLEL", "1")
    serial = load_paths([str(tree)])
    monkeypatch.delenv("JSOPS_NO_PARALLEL")
    monkeypatch.setattr(loader_parallel, "PARALLEL_MIN_FILES", 4)
    if not loader_parallel.can_fork():
        pytest.skip("no fork here")
    parallel = load_paths([str(tree)])
    assert [f.as_dict() for f in parallel.findings] == [f.as_dict() for f in serial.findings]
    assert [f.excerpt for f in parallel.findings] == [f.excerpt for f in serial.findings]
    assert sorted(r.name for r in parallel.resources) == sorted(r.name for r in serial.resources)
    assert sum(f.rule == "JS014" for f in parallel.findings) == 3


def test_environment_values_linked_out_of_the_tree_are_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(tmp_path)
    (tree / "environments").mkdir()
    (tmp_path / "outside" / "prod.yaml").write_text(f"secret: {TOKEN}\n")
    os.symlink(tmp_path / "outside" / "prod.yaml", tree / "environments" / "prod.yaml")
    (tree / "t.yaml.j2").write_text(STREAM.format(name="T") + "  description: '{{ secret }}'\n")
    rc, out = _lint(capsys, str(tree / "t.yaml.j2"), "--env", "prod", "--format", "json")
    assert rc == 1
    findings = json.loads(out)["findings"]
    assert [(f["rule"], Path(f["file"]).name) for f in findings] == [("JS014", "prod.yaml")]
    _no_secret(out)


def test_scrubbed_messages_keep_no_quoted_fragment() -> None:
    from jsops.linter.findings import Finding, Severity
    from jsops.linter.load.files import scrubbed

    f = Finding(
        "JS001",
        "manifest-syntax-error",
        Severity.ERROR,
        "YAML syntax error: found character that cannot start any token ('@'); "
        "value 'ghp_abc\\'QQQ' does not match its tag !!int; duplicate key \"ZZsecretZZ\"",
        "f.yaml",
        3,
        4,
    )
    s = scrubbed(f)
    assert (
        "'@'" not in s.message
        and "ghp_abc" not in s.message
        and "QQQ" not in s.message
        and "ZZsecretZZ" not in s.message
    )
    assert (
        s.message.startswith("YAML syntax error: found character that cannot start any token") and "!!int" in s.message
    )
    assert (s.rule, s.file, s.line, s.column, s.excerpt) == ("JS001", "f.yaml", 3, 4, False)
    assert f.excerpt  # the original is unchanged (findings are frozen)


@pytest.mark.parametrize(
    ("text", "looks"),
    [
        (b"apiVersion: jsops/v1\nkind: [\n", True),
        (b"# comment\n  kind: Stream\n", True),
        (b'{"config": {"name": "X", "subjects": ["a"]', True),
        (b'{ "durable_name" : 1', True),
        (b'{"config": {"name": "X"', False),  # names nothing of JetStream (package.json has a name too)
        (b'{ "name" : 1', False),
        (TOKEN.encode() + b"\n", False),
        (SSH_KEY.encode(), False),
        (b"password: hunter2\n", False),
        (b"[1, 2, 3\n", False),
    ],
)
def test_what_looks_like_a_manifest(text: bytes, looks: bool) -> None:
    """A file whose documents do not parse is quoted only if its text has a dialect's keys."""
    from jsops.linter.load.files import read_text

    assert read_text(text, "f.yaml", None)[3] is looks
