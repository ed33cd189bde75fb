"""pre-commit: the hooks in .pre-commit-hooks.yaml, and ``--estate`` (lint changed files within the
whole estate, report only on them). The last test runs real ``pre-commit try-repo`` in a scratch git
repository; pre-commit builds a venv and pip-installs jsops, so it is marked ``integration``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from jsops.linter.cli.app import main

ROOT = Path(__file__).resolve().parent.parent
STREAM = 'apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: ORDERS}\nspec: {subjects: ["orders.>"], max_age: 1m, duplicate_window: 2m}\n'
# max_deliver and a dead-letter handler: the operational rules (JS405, JS406) have nothing to say
CONSUMER = (
    "apiVersion: jsops/v1\nkind: Consumer\nmetadata: {name: shipper, stream: ORDERS, annotations: {jsops.io/dead-letter: on-call}}\n"
    "spec: {ack_wait: 30s, max_deliver: 5}\n"
)


def test_hooks_file_declares_lint_and_fix():
    hooks = {h["id"]: h for h in YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"jsops-lint", "jsops-fix"}
    for h in hooks.values():
        assert h["language"] == "python" and h["require_serial"] is True
        assert h["files"].startswith("^manifests/")
        assert "--estate auto" in h["entry"] and h.get("pass_filenames", True)
    assert "--fix" in hooks["jsops-fix"]["entry"]
    # templates are linted, for every environment (jsops-fix leaves them: jsops does not edit templates)
    assert "manifests/orders.yaml.j2" in _matching(hooks["jsops-lint"]) and "--env '*'" in hooks["jsops-lint"]["entry"]
    assert "manifests/orders.yaml.j2" not in _matching(hooks["jsops-fix"])


def _matching(hook: dict) -> set[str]:
    import re

    names = {
        "manifests/orders.yaml",
        "manifests/orders.yaml.j2",
        "manifests/a.json",
        "manifests/environments/prod.yaml",
    }
    return {n for n in names if re.search(hook["files"], n) and not re.search(hook.get("exclude", "^$"), n)}


TEMPLATE = (
    'apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: PAYMENTS}\nspec: {subjects: ["pay.>"], max_age: 1h, '
    "duplicate_window: 2m, num_replicas: {{ replicas }}}\n"
)


def test_every_environment_is_linted_and_a_finding_names_the_environments_that_have_it(estate, capsys):
    (estate / "manifests" / "environments").mkdir()
    (estate / "manifests" / "environments" / "dev.yaml").write_text("replicas: 1\n")
    (estate / "manifests" / "environments" / "prod.yaml").write_text("replicas: 3\n")
    (estate / "manifests" / "environments" / "lab.yaml").write_text("replicas: 7\n")
    (estate / "manifests" / "payments.yaml.j2").write_text(TEMPLATE)
    rc, out, _ = _run(["lint", "--no-config", "--estate", "auto", "--env", "*", "manifests/payments.yaml.j2"], capsys)
    assert rc == 1 and out.count("JS105") == 1 and "(--env lab)" in out and "manifests/payments.yaml.j2:" in out
    (estate / "manifests" / "environments" / "lab.yaml").write_text("replicas: 3\n")
    rc, out, _ = _run(["lint", "--no-config", "--estate", "auto", "--env", "*", "manifests/payments.yaml.j2"], capsys)
    assert rc == 0, out
    # a finding every environment has is shown once, without a label; without templates nothing changes
    (estate / "manifests" / "payments.yaml.j2").write_text(TEMPLATE.replace("1h", "1s"))
    rc, out, _ = _run(["lint", "--no-config", "--env", "*", "manifests/"], capsys)
    [js102] = [line for line in out.splitlines() if " JS102 " in line and "payments" in line]
    assert rc == 1 and "(--env" not in js102
    rc, out, _ = _run(
        ["lint", "--no-config", "--estate", "auto", "--env", "*", "manifests/consumers/shipper.yaml"], capsys
    )
    assert (rc, out) == (0, "All clean: 1 object in 1 file.\n")
    rc, _, err = _run(["lint", "--no-config", "--env", "*", "--fix", "manifests/"], capsys)
    assert rc == 2 and "one environment" in err


@pytest.fixture
def estate(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    m = tmp_path / "manifests"
    (m / "consumers").mkdir(parents=True)
    (m / "orders.yaml").write_text(STREAM)
    (m / "consumers" / "shipper.yaml").write_text(CONSUMER)
    return tmp_path


def _run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_file_alone_misses_its_stream(estate, capsys):
    rc, out, _ = _run(["lint", "--no-config", "manifests/consumers/shipper.yaml"], capsys)
    assert rc == 1 and "JS006" in out


def test_estate_sees_everything_but_reports_only_the_files_passed(estate, capsys):
    rc, out, _ = _run(["lint", "--no-config", "--estate", "manifests", "manifests/consumers/shipper.yaml"], capsys)
    assert (rc, out) == (0, "All clean: 1 object in 1 file.\n")  # JS102 in orders.yaml is not reported
    rc, out, _ = _run(
        ["lint", "--no-config", "--estate", "manifests", "--format", "json", "manifests/orders.yaml"], capsys
    )
    assert rc == 1 and '"rule": "JS102"' in out and "shipper" not in out


def test_estate_auto_uses_config_paths_else_the_top_directory(estate, capsys):
    rc, out, _ = _run(["lint", "--no-config", "--estate", "auto", "manifests/consumers/shipper.yaml"], capsys)
    assert (rc, out) == (0, "All clean: 1 object in 1 file.\n")  # manifests/, not manifests/consumers/
    Path("other").mkdir()
    Path("other/c.yaml").write_text(CONSUMER.replace("shipper", "billing"))
    rc, out, _ = _run(["lint", "--no-config", "--estate", "auto", "other/c.yaml"], capsys)
    assert rc == 1 and "JS006" in out  # the top directory is other/: no stream there
    Path(".jsops.yaml").write_text("paths: [manifests]\n")
    rc, out, _ = _run(["lint", "--estate", "auto", "other/c.yaml"], capsys)
    assert (rc, out) == (0, "All clean: 1 object in 1 file.\n")


def _git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_real_pre_commit_try_repo(tmp_path):
    pre_commit = Path(sys.executable).with_name("pre-commit")
    if not pre_commit.exists():
        pytest.skip("pre-commit is not installed (dev extra)")
    repo = tmp_path / "repo"
    (repo / "manifests" / "consumers").mkdir(parents=True)
    (repo / "manifests" / "orders.yaml").write_text(STREAM.replace("2m", "1m"))
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "estate")
    # Only the consumer changes: pre-commit passes just that file, whose stream is in another file.
    (repo / "manifests" / "consumers" / "shipper.yaml").write_text(CONSUMER)
    _git(repo, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)

    def run(hook: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(pre_commit), "try-repo", str(ROOT), hook, "--verbose"],
            cwd=repo,
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
        )

    ok = run("jsops-lint")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "All clean: 1 object in 1 file." in ok.stdout
    # A broken consumer fails the hook with its file:line:col; the stream file is not reported.
    (repo / "manifests" / "consumers" / "shipper.yaml").write_text(CONSUMER.replace("30s", "-1s"))
    _git(repo, "add", ".")
    bad = run("jsops-lint")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "manifests/consumers/shipper.yaml:4:" in bad.stdout and "orders.yaml:" not in bad.stdout
    # jsops-fix rewrites a fixable file in place (pre-commit then fails because files changed).
    (repo / "manifests" / "orders.yaml").write_text(STREAM)
    (repo / "manifests" / "consumers" / "shipper.yaml").write_text(CONSUMER)
    _git(repo, "add", ".")
    fixed = run("jsops-fix")
    assert "duplicate_window: 1m" in (repo / "manifests" / "orders.yaml").read_text(), fixed.stdout + fixed.stderr
    assert fixed.returncode == 1 and "files were modified by this hook" in fixed.stdout
    # a template is linted for every environment: one where it is refused fails the hook, naming it
    (repo / "manifests" / "environments").mkdir()
    (repo / "manifests" / "environments" / "dev.yaml").write_text("replicas: 1\n")
    (repo / "manifests" / "environments" / "lab.yaml").write_text("replicas: 7\n")
    (repo / "manifests" / "payments.yaml.j2").write_text(TEMPLATE)
    _git(repo, "add", ".")
    templated = run("jsops-lint")
    assert templated.returncode == 1, templated.stdout + templated.stderr
    assert "manifests/payments.yaml.j2:" in templated.stdout and "(--env lab)" in templated.stdout
