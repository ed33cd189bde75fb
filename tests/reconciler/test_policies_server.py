"""Policies (issue 38) on a real nats-server: the same policy findings from ``jsops audit`` on the
applied estate as from ``jsops lint`` on its files, and a plan refused by a policy error as by a lint
error; the controller's revision gate refuses a revision with a policy error."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from .helpers import NatsServer, run

pytestmark = pytest.mark.integration

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "policies"


def _copy(tmp_path: Path, extra: str = "") -> Path:
    """The fixtures' config and manifests in ``tmp_path`` (with the policy errors lifted when asked)."""
    shutil.copytree(FIX, tmp_path / "estate")
    if extra:
        cfg = tmp_path / "estate" / ".jsops.yaml"
        cfg.write_text(cfg.read_text() + extra)
    return tmp_path / "estate"


def _json(main: Any, argv: list[str]) -> tuple[int, list[dict[str, Any]], str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, json.loads(out.getvalue())["findings"] if out.getvalue().strip() else [], err.getvalue()


def _policy_findings(findings: list[dict[str, Any]]) -> set[tuple[str, str, str, str | None, str]]:
    return {
        (f["rule"], f["object"]["kind"], f["object"]["name"], f["object"]["stream"], f["message"])
        for f in findings
        if f["rule"].startswith("ACME")
    }


def test_audit_gives_the_policy_findings_lint_gives(
    server: NatsServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsops.linter.cli.app import main as jsops
    from jsops.reconciler.audit.cli import main as audit

    estate = _copy(tmp_path, "ignore: [policy]\n")  # apply what the policies refuse (the gate would not)
    rc, out, err = run(
        "apply", str(estate / "manifests"), "--server", server.url, "--yes", "--config", str(estate / ".jsops.yaml")
    )
    assert rc == 0, out + err
    (estate / ".jsops.yaml").write_text((FIX / ".jsops.yaml").read_text())
    monkeypatch.chdir(estate)
    monkeypatch.setenv("JSOPS_NO_CACHE", "1")
    rc, linted, err = _json(jsops, ["lint", "manifests", "--env", "prod", "--format", "json"])
    assert rc == 1, err
    rc, audited, err = _json(audit, ["--server", server.url, "--env", "prod", "--format", "json", "--fail-on", "error"])
    assert rc == 1, err
    expected = _policy_findings(linted)
    assert {c for c, *_ in expected} == {"ACME001", "ACME002", "ACME003", "ACME004", "ACME005"}
    # the live configs are judged as the files: same codes, objects and messages; live objects have no
    # line, and the audit reads no profile (ACME005 needs one) and no suppression comment (ACME002 on audit)
    live = _policy_findings(audited)
    assert live - expected == {
        ("ACME002", "Consumer", "audit", "ORDERS", "max_deliver is 1 to 19 (the dead-letter flow expects it); got 100")
    }
    assert expected - live == {f for f in expected if f[0] == "ACME005"}
    assert all(f["line"] == 0 and f["file"].startswith("nats://") for f in audited if f["rule"].startswith("ACME"))


def test_a_policy_error_refuses_the_plan(server: NatsServer, tmp_path: Path) -> None:
    estate = _copy(tmp_path)
    rc, out, err = run(
        "plan",
        str(estate / "manifests"),
        "--server",
        server.url,
        "--config",
        str(estate / ".jsops.yaml"),
        "--env",
        "prod",
    )
    assert rc == 1, out + err
    assert "ACME001 streams in prod keep 3 replicas; ORDERS has 1" in err
    assert "ACME002" not in err  # a warning does not refuse
    estate2 = _copy(tmp_path / "b", "ignore: [ACME001, ACME003, ACME004, ACME005]\n")
    rc, out, err = run(
        "plan",
        str(estate2 / "manifests"),
        "--server",
        server.url,
        "--config",
        str(estate2 / ".jsops.yaml"),
        "--env",
        "prod",
    )
    assert rc == 2, out + err  # no error left: the plan is made (2: changes)


def test_the_controller_refuses_a_revision_with_a_policy_error(tmp_path: Path) -> None:
    from jsops.linter.config import load_config
    from jsops.reconciler.controller.source import load_revision

    estate = _copy(tmp_path)
    cfg = load_config(str(estate / ".jsops.yaml"))
    rev = load_revision([str(estate / "manifests")], "prod", None, cfg)
    assert any(": error ACME001 streams in prod keep 3 replicas; ORDERS has 1" in e for e in rev.errors), rev.errors
    assert not any("ACME002" in e for e in rev.errors)
    rev = load_revision([str(estate / "manifests")], "dev", None, cfg)
    assert not any("ACME001" in e for e in rev.errors)  # the environment decides
    broken = load_config(str(estate / ".jsops.yaml")).model_copy(
        update={"policies": [cfg.policies[0].model_copy(update={"deny": "config.num_replica < 3"})]}
    )
    rev = load_revision([str(estate / "manifests")], "prod", None, broken)
    assert len(rev.errors) == 1 and "unknown field config.num_replica" in rev.errors[0]
