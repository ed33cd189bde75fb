"""Policies (issue 38): CEL rules in the jsops config, compiled against the field catalog and run by
`jsops lint` like built-in rules (positions, suppressions, --fail-on, SARIF), listed by `jsops rules`
and tested with `jsops policy test`. The fixtures are tests/fixtures/policies (five policies: one per
kind, one on the profile, one on the environment)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jsops.linter.cli.app import VERSION, main

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "policies"
GOLDEN = ROOT / "tests" / "golden" / "policies"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"


def _run(argv: list[str], capsys, monkeypatch, cwd: Path = FIX) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("JSOPS_NO_CACHE", "1")
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out.replace(f'"{VERSION}"', '"VERSION"'), err


@pytest.mark.parametrize(("fmt", "golden"), [("text", "lint.txt"), ("sarif", "lint.sarif")])
def test_lint_output_matches_golden(fmt, golden, capsys, monkeypatch):
    rc, out, err = _run(["lint", "--env", "prod", "manifests", "--format", fmt], capsys, monkeypatch)
    assert err == ""
    assert rc == 1
    path = GOLDEN / golden
    if UPDATE:
        path.write_text(out)
    assert out == path.read_text(), f"{golden} differs; rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"


def _config(extra: str = "") -> str:
    """The fixtures' config, for a copy elsewhere (its profiles named by absolute path)."""
    return (FIX / ".jsops.yaml").read_text().replace(
        "profiles: profiles.json", f"profiles: {FIX / 'profiles.json'}"
    ) + extra


def _findings(capsys, monkeypatch, *extra: str) -> tuple[int, list[dict]]:
    rc, out, _ = _run(["lint", "manifests", "--format", "json", *extra], capsys, monkeypatch)
    return rc, [f for f in json.loads(out)["findings"] if f["rule"].startswith("ACME")]


def test_five_policies_give_findings_at_their_fields(capsys, monkeypatch):
    _, found = _findings(capsys, monkeypatch, "--env", "prod")
    got = {(f["rule"], f["file"], f["line"], f["column"], f["severity"]) for f in found}
    assert got == {
        ("ACME001", "manifests/shop.yaml", 7, 17, "error"),  # num_replicas: 1, in prod
        ("ACME002", "manifests/shop.yaml", 28, 16, "warning"),  # max_deliver: 50 (100 is suppressed by its comment)
        ("ACME003", "manifests/buckets.yaml", 6, 12, "error"),  # history: 10
        ("ACME004", "manifests/buckets.yaml", 14, 3, "error"),  # the object store without an owner (no field: the spec)
        ("ACME005", "manifests/shop.yaml", 17, 13, "error"),  # ack_wait 5s against the measured P99 3.5s
    }
    messages = {f["rule"]: f["message"] for f in found}
    assert messages["ACME001"] == "streams in prod keep 3 replicas; ORDERS has 1"
    assert messages["ACME005"] == "measured P99 ack time 3500ms is more than half of ack_wait 5s"


def test_the_environment_decides(capsys, monkeypatch):
    _, found = _findings(capsys, monkeypatch, "--env", "dev")
    assert "ACME001" not in {f["rule"] for f in found}
    _, found = _findings(capsys, monkeypatch)
    assert "ACME001" not in {f["rule"] for f in found}


def test_without_profiles_the_profile_policy_is_silent(capsys, monkeypatch, tmp_path):
    cfg = (FIX / ".jsops.yaml").read_text().replace("profiles: profiles.json\n", "")
    assert cfg != (FIX / ".jsops.yaml").read_text()
    (tmp_path / "c.yaml").write_text(cfg)
    _, found = _findings(capsys, monkeypatch, "--env", "prod", "--config", str(tmp_path / "c.yaml"))
    assert "ACME005" not in {f["rule"] for f in found}
    assert "ACME001" in {f["rule"] for f in found}


def test_fail_on_and_severity_apply_to_policies(capsys, monkeypatch, tmp_path):
    # Only the warning policy is selected: exit 0 at the default --fail-on error, 1 at warning.
    cfg = _config("select: [ACME002]\n")
    (tmp_path / "c.yaml").write_text(cfg)
    rc, found = _findings(capsys, monkeypatch, "--config", str(tmp_path / "c.yaml"))
    assert rc == 0 and {f["rule"] for f in found} == {"ACME002"}
    rc, _ = _findings(capsys, monkeypatch, "--config", str(tmp_path / "c.yaml"), "--fail-on", "warning")
    assert rc == 1
    (tmp_path / "c.yaml").write_text(cfg + "severity: {ACME002: error}\n")
    rc, found = _findings(capsys, monkeypatch, "--config", str(tmp_path / "c.yaml"))
    assert rc == 1 and {f["severity"] for f in found} == {"error"}
    (tmp_path / "c.yaml").write_text(_config("ignore: [policy]\n"))
    _, found = _findings(capsys, monkeypatch, "--config", str(tmp_path / "c.yaml"), "--env", "prod")
    assert found == []


def test_sarif_carries_the_policy_metadata(capsys, monkeypatch):
    _, out, _ = _run(["lint", "--env", "prod", "manifests", "--format", "sarif"], capsys, monkeypatch)
    rules = {r["id"]: r for r in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["ACME001"]["helpUri"] == "https://wiki.example.com/nats/replicas"
    assert rules["ACME002"]["defaultConfiguration"] == {"level": "warning"}
    assert "policy" in rules["ACME001"]["properties"]["tags"]


def test_rules_lists_the_policies(capsys, monkeypatch):
    rc, out, _ = _run(["rules", "--format", "json"], capsys, monkeypatch)
    assert rc == 0
    infos = {r["code"]: r for r in json.loads(out)}
    assert {c for c in infos if c.startswith("ACME")} == {"ACME001", "ACME002", "ACME003", "ACME004", "ACME005"}
    assert infos["ACME002"]["severity"] == "warning" and infos["ACME002"]["kinds"] == ["Consumer"]
    assert "JS101" in infos  # the built-in rules are still there
    rc, out, _ = _run(["rule", "ACME001"], capsys, monkeypatch)
    assert rc == 0 and "env == 'prod' && config.num_replicas < 3" in out


def test_policy_test_passes_on_the_fixtures(capsys, monkeypatch):
    rc, out, _ = _run(["policy", "test"], capsys, monkeypatch)
    assert rc == 0, out
    assert out.endswith("4 passed, 0 failed (4 cases)\n")


def test_policy_test_fails_when_a_case_expects_other_codes(capsys, monkeypatch, tmp_path):
    case = """cases:
  - name: R1 outside prod is fine
    expect: [ACME001]
    objects:
      - {apiVersion: jsops/v1, kind: Stream, metadata: {name: A}, spec: {subjects: [a], num_replicas: 1}}
"""
    (tmp_path / "t.yaml").write_text(case)
    rc, out, _ = _run(["policy", "test", str(tmp_path / "t.yaml")], capsys, monkeypatch)
    assert rc == 1
    assert f"FAIL  {tmp_path / 't.yaml'}:2 R1 outside prod is fine: expected ACME001, got no finding" in out
    (tmp_path / "t.yaml").write_text(case.replace("[ACME001]", "[ACME404]"))
    rc, _, err = _run(["policy", "test", str(tmp_path / "t.yaml")], capsys, monkeypatch)
    assert rc == 2 and "expect names 'ACME404', which is not a policy of the config" in err


BROKEN = [
    ('"config.num_replica < 3"', "unknown field config.num_replica (did you mean 'num_replicas'?)"),
    ("\"config.placement.clustr == 'a'\"", "unknown field config.placement.clustr (did you mean 'cluster'?)"),
    ("\"stream.retention == 'workqueue'\"", "unknown variable 'stream'"),  # a stream policy has no stream variable
    ('"config.max_age > 5"', "type error"),  # a duration is not an int
    ('"config.num_replicas <"', "the expression does not parse"),
    ('"config.num_replicas + 1"', "the expression gives int 2, not a bool"),
    ("\"has(profile.ingest) && profile.ingest.mean_per_s > duration('1s')\"", "type error"),  # a rate is not a duration
    ('"profile.ingest.mean > 1.0"', "unknown field profile.ingest.mean"),
]


@pytest.mark.parametrize(("expr", "message"), BROKEN)
def test_a_broken_expression_is_a_config_error_at_its_line(expr, message, capsys, monkeypatch, tmp_path):
    (tmp_path / ".jsops.yaml").write_text(
        f"# the team's rules\npolicies:\n  - code: ACME009\n    kind: Stream\n    deny: {expr}\n    message: x\n"
    )
    (tmp_path / "s.yaml").write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n")
    rc, out, err = _run(["lint", "s.yaml"], capsys, monkeypatch, cwd=tmp_path)
    assert rc == 2 and out == ""
    assert err.startswith("jsops: error: .jsops.yaml:5:11: policy ACME009 deny: "), err
    assert message in err


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("{code: JS101, kind: Stream, deny: 'true', message: x}", "JS followed by digits is jsops's namespace"),
        (
            "{code: ABC1, name: stream-max-age-invalid, kind: Stream, deny: 'true', message: x}",
            "is a built-in rule's (stream-max-age-invalid)",
        ),
        ("{code: JS005X, kind: Stream, deny: 'true', message: x}", None),  # not a built-in code: accepted
        ("{code: ACME1, kind: Stream, deny: 'true', require: 'true', message: x}", "give exactly one of 'deny'"),
        (
            "{code: ACME1, kind: Stream, deny: 'true', message: x, field: max_agee}",
            "unknown field 'max_agee' (did you mean 'max_age'?)",
        ),
        ("{code: ACME1, kind: Pipeline, deny: 'true', message: x}", "policies.0.kind"),
    ],
)
def test_codes_names_and_keys_are_checked(entry, message, capsys, monkeypatch, tmp_path):
    (tmp_path / ".jsops.yaml").write_text(f"policies:\n  - {entry}\n")
    (tmp_path / "s.yaml").write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n")
    rc, _, err = _run(["lint", "s.yaml"], capsys, monkeypatch, cwd=tmp_path)
    if message is None:
        assert rc == 1 and err == ""
    else:
        assert rc == 2 and message in err, err


def test_a_name_taken_by_a_plugin_rule_is_refused():
    from jsops.linter.api import Rule
    from jsops.linter.config import Config, ConfigError, Policy
    from jsops.linter.engine import discover_rules
    from jsops.linter.policies import compile_policies

    plugin = type(
        "AcmeCheck",
        (Rule,),
        {"code": "JS901", "name": "acme-check", "__module__": "acme_rules", "__doc__": "A plugin."},
    )
    cfg = Config(policies=[Policy(code="ACME1", name="acme-check", kind="Stream", deny="true", message="x")])
    with pytest.raises(ConfigError, match="name 'acme-check' is a built-in rule's"):
        compile_policies(cfg, [*discover_rules(), plugin])
    assert [r.code for r in compile_policies(cfg, discover_rules())] == ["ACME1"]


def test_lint_without_policies_never_imports_the_cel_engine(tmp_path):
    (tmp_path / "s.yaml").write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n")
    code = (
        "import sys, json\n"
        "from jsops.linter.cli.app import main\n"
        f"rc = main(['lint', {str(tmp_path / 's.yaml')!r}, '--format', 'json', '--no-config'])\n"
        "print(json.dumps({'rc': rc, 'cel': sorted(m for m in sys.modules if m.split('.')[0] in ('cel', 'celpy', 'jsops.linter.policies'))}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == {"rc": 0, "cel": []}


def test_the_template_plugin_package_is_a_working_rule(tmp_path, monkeypatch):
    """docs/examples/rule-plugin: the documented Python rule API's template gives its findings."""
    monkeypatch.syspath_prepend(str(ROOT / "docs" / "examples" / "rule-plugin"))
    from acme_jsops_rules import get_rules

    from jsops.linter.engine import discover_rules, lint_paths

    (tmp_path / "s.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: ['payments.a'], metadata: {team: payments}}\n---\n"
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: B}\nspec: {subjects: ['payments.b', 'web.b'], metadata: {team: web}}\n"
    )
    found = [
        (f.rule, f.object.name if f.object else None, f.line)
        for f in lint_paths([str(tmp_path)], [*discover_rules(), *get_rules()]).findings
    ]
    assert [f for f in found if f[0] == "JS901"] == [("JS901", "A", 4), ("JS901", "B", 9)]


def test_the_docs_name_every_variable():
    from jsops.linter.policy_values import TARGET_KEYS, VARIABLES

    text = (ROOT / "docs" / "policies.md").read_text()
    for name in (*VARIABLES, *(f"target.{k}" for k in TARGET_KEYS)):
        assert f"`{name}`" in text, name
