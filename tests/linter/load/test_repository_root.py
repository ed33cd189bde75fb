"""`jsops lint .` at the root of a GitOps repository (issue 24): what is not a JetStream config is
passed over and counted, what is one is linted, and only a file that looks like one can be an error.

The corpus (tests/fixtures/repo-root/) is a repository as teams keep it: a Helm chart at the root
(Chart.yaml, values.yaml, templates/ with a Deployment and a templated NACK Stream), package.json,
renovate.json, a tsconfig.json with comments, a GitHub workflow, docker-compose.yml, an app's JSON
config, Kubernetes objects with a kustomization, and the JetStream manifests: native, NACK and a
natscli stream config.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jsops.linter.cli.app import main
from jsops.linter.load import load_paths
from jsops.linter.load.discovery import excluded
from jsops.linter.load.recognise import HELM_CHART, HELM_TEMPLATE, NOT_JETSTREAM, UNREADABLE

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "repo-root"

NOT_CONFIGS = {
    "Chart.yaml": HELM_CHART,
    "values.yaml": NOT_JETSTREAM,
    "templates/deployment.yaml": HELM_TEMPLATE,
    "templates/stream.yaml": HELM_TEMPLATE,
    "package.json": NOT_JETSTREAM,
    "renovate.json": NOT_JETSTREAM,
    "tsconfig.json": UNREADABLE,  # JSONC: comments and a trailing comma
    "docker-compose.yml": NOT_JETSTREAM,
    "src/config/app.json": NOT_JETSTREAM,
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(ROOT, copy)
    (copy / ".git").mkdir()
    monkeypatch.chdir(copy)
    return copy


def test_lint_dot_at_a_repository_root_exits_0_and_counts_what_it_skipped(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(["lint", "."])
    out, err = capsys.readouterr()
    assert rc == 0, out
    assert err == ""
    assert out.rstrip().splitlines()[-1] == (
        "Found 0 errors, 1 warning, 3 info (5 objects in 5 files; 3 other Kubernetes objects skipped; 9 files that are not JetStream configs skipped)."
    )
    assert " error " not in out


def test_the_manifests_are_linted_and_each_other_file_is_named_with_its_reason(repo: Path) -> None:
    estate = load_paths(["."])
    assert sorted((r.kind, r.name) for r in estate.resources) == [
        ("Consumer", "settle"),
        ("Consumer", "shipper"),
        ("Stream", "AUDIT"),
        ("Stream", "ORDERS"),
        ("Stream", "PAYMENTS"),
    ]
    assert {k.replace("\\", "/"): v for k, v in estate.not_jetstream.items()} == NOT_CONFIGS
    assert sorted(s[2] for s in estate.skipped) == [
        "apps/v1 Deployment",
        "kustomize.config.k8s.io/v1beta1 Kustomization",
        "v1 Service",
    ]
    assert [f.rule for f in estate.findings] == ["JS022"]  # AUDIT.json named after its file


def test_a_workflow_named_explicitly_is_passed_over(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["lint", ".github/workflows/ci.yml", "package.json"])
    out, err = capsys.readouterr()
    assert (rc, err) == (0, "")
    assert out.rstrip().splitlines()[-1] == (
        "No manifests found: nothing was linted (0 objects in 0 files; 2 files that are not JetStream configs skipped)."
    )


BROKEN = {
    # a file that looks like a JetStream config and is malformed stays an error, with its position
    "manifests/broken.yaml": (
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: {X\nspec: {subjects: [x]}\n",
        "JS001",
        None,
    ),
    "nats/BROKEN.json": ('{"subjects": ["a"],\n  "max_age": 1,,\n}\n', "JS001", 10025),
    "nats/typo.json": (
        '{"name": "T", "subjects": ["t"], "max_msg": 10}\n',
        "JS005",
        10025,
    ),  # a config with a misspelt field
    "nats/near.json": ('{"name": "N", "dupe_window": 1}\n', "JS005", 10025),  # a near miss of duplicate_window counts
    "manifests/misspelt.yaml": ("apiVersion: jsops/v2\nkind: Stream\nmetadata: {name: M}\nspec: {}\n", "JS004", None),
    "manifests/kind-only.yaml": ("kind: Stream\nmetadata: {name: K}\n", "JS004", None),
    "manifests/list.yaml": ("- apiVersion: jsops/v1\n  kind: Stream\n", "JS004", None),
}


def test_only_files_that_look_like_jetstream_configs_are_errors(repo: Path) -> None:
    for name, (text, _, _) in BROKEN.items():
        (repo / name).write_text(text)
    estate = load_paths(["."])
    got = sorted((f.file.replace("\\", "/"), f.rule, f.server_error_code) for f in estate.findings if f.rule != "JS022")
    assert got == sorted((name, rule, code) for name, (_, rule, code) in BROKEN.items())
    assert len(estate.not_jetstream) == len(NOT_CONFIGS)  # nothing else refused because one file is odd


def test_exclude_in_the_config_and_on_the_command_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".jsops.yaml").write_text("exclude: [nack, 'src/*']\n")
    rc = main(["lint", ".", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["summary"]["objects"] == 3  # the NACK stream and consumer are left out
    assert all(not f["file"].startswith("nack") for f in doc["findings"])
    rc = main(["lint", ".", "--exclude", "manifests/*.yaml", "--exclude", "*.json", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["summary"]["objects"] == 0  # ORDERS, shipper and AUDIT.json too
    estate = load_paths(["."], exclude=["templates", "Chart.yaml", "deploy/"])
    assert "templates/stream.yaml" not in estate.not_jetstream and "Chart.yaml" not in estate.not_jetstream
    assert not any(s[0].startswith("deploy") for s in estate.skipped)


@pytest.mark.parametrize(
    ("path", "pattern", "hit"),
    [
        ("node_modules/x/package.json", "node_modules", True),
        ("a/values-prod.yaml", "values*.yaml", True),
        ("charts/nats/Chart.yaml", "charts/*", True),
        ("charts/nats/Chart.yaml", "charts", True),
        ("deploy/helm/templates/a.yaml", "deploy/helm", True),
        ("deploy/helm/templates/a.yaml", "deploy/helm/", True),
        ("x/deploy/helm/a.yaml", "**/helm", True),
        ("x/deploy/helm/a.yaml", "deploy/helm", False),  # a pattern with / is anchored at the walk's root
        ("manifests/orders.yaml", "orders", False),
        ("manifests/orders.yaml", "./manifests", True),
        ("manifests/Orders.yaml", "orders.yaml", False),  # case-sensitive
    ],
)
def test_exclude_patterns_read_as_gitignore(path: str, pattern: str, hit: bool) -> None:
    assert excluded(path, [pattern]) is hit
