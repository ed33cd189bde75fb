"""jsops config: discovery, select/ignore/severity/options/fail-on/target/profiles, and one-line errors (exit 2)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
from pydantic import Field

from jsops.linter.api import Rule, RuleOptions, Violation
from jsops.linter.cli.app import main
from jsops.linter.config import Config, ConfigError, find_config, load_config, select_rules
from jsops.linter.engine import discover_rules, lint_paths
from jsops.linter.findings import Severity

RULES = discover_rules()
BAD = 'apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: ["a.>"], max_age: 1m, duplicate_window: 2m}\n'


@pytest.fixture
def estate(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text(BAD)
    return tmp_path


def _run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_no_config_is_the_default():
    assert select_rules(Config(), RULES).rules == RULES


@pytest.mark.parametrize("token", ["JS102", "js102", "stream-duplicate-window-exceeds-max-age", "stream", "JS1", "all"])
def test_select_by_code_name_group_prefix(token):
    enabled = {r.code for r in select_rules(Config(select=[token]), RULES).rules}
    assert "JS102" in enabled
    if token in ("stream", "JS1"):
        assert not any(c.startswith("JS2") for c in enabled)


def test_ignore_wins_and_drops_load_codes(tmp_path):
    sel = select_rules(Config(select=["stream"], ignore=["JS102", "empty-document"]), RULES)
    assert "JS102" not in {r.code for r in sel.rules}
    assert {"JS102", "JS008"} <= sel.ignored
    p = tmp_path / "e.yaml"
    p.write_text("# nothing\n")
    assert lint_paths([str(p)], config=Config(ignore=["JS008"])).findings == []


def test_severity_override_specific_wins_over_group(estate):
    cfg = Config(severity={"stream": Severity.INFO, "JS102": Severity.WARNING})
    [f] = lint_paths(["m.yaml"], config=cfg).findings
    assert f.severity is Severity.WARNING


class _Limited(Rule):
    """Test rule with typed options."""

    code = "JS990"
    name = "test-limited"
    kinds = frozenset({"Stream"})
    groups: ClassVar[frozenset[str]] = frozenset({"capacity"})

    class Options(RuleOptions):
        max_subjects: int = Field(1, description="most subjects allowed")

    def check(self, resource, ctx):
        if len(resource.config.subjects or []) > self.options.max_subjects:
            yield Violation(resource, ("subjects",), f"more than {self.options.max_subjects}")


def test_typed_options_and_declared_groups(tmp_path):
    p = tmp_path / "two.yaml"
    p.write_text(BAD.replace('["a.>"]', '["a.>", "b.>"]'))
    assert [f.rule for f in lint_paths([str(p)], [_Limited]).findings] == ["JS990"]
    cfg = Config(rules={"test-limited": {"max_subjects": 2}}, select=["capacity"])
    assert lint_paths([str(p)], [_Limited], config=cfg).findings == []
    with pytest.raises(ConfigError, match=r"rules\.JS990\.max_subjects: Input should be a valid integer"):
        select_rules(Config(rules={"JS990": {"max_subjects": "many"}}), [_Limited])
    with pytest.raises(ConfigError, match=r"rules\.JS990\.nope: unknown option \(JS990 options: max_subjects\)"):
        select_rules(Config(rules={"JS990": {"nope": 1}}), [_Limited])


def test_rules_get_profiles_and_target(tmp_path):
    seen = {}

    class _Probe(Rule):
        """probe"""

        code = "JS991"
        name = "test-probe"
        estate_wide = True

        def check_estate(self, ctx):
            seen["target"], seen["profiles"] = ctx.target, ctx.profiles
            return ()

    p = tmp_path / "m.yaml"
    p.write_text(BAD)
    lint_paths([str(p)], [_Probe], config=Config.model_validate({"target": {"cluster_size": 3}}))
    assert seen["target"].cluster_size == 3 and seen["profiles"] is None


def test_discovery_yaml_then_pyproject(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert find_config() is None  # a pyproject without [tool.jsops] is not a jsops config
    (tmp_path / "pyproject.toml").write_text("[tool.jsops]\nignore = ['JS102']\nfail-on = 'warning'\n")
    cfg = load_config()
    assert cfg.ignore == ["JS102"] and cfg.fail_on is Severity.WARNING
    (tmp_path / "a" / ".jsops.yaml").write_text("select: [stream]\n")
    assert load_config().select == ["stream"]


def test_cli_uses_config_fail_on_target_and_paths(estate, capsys):
    Path(".jsops.yaml").write_text(
        "severity: {JS102: warning}\nfail-on: warning\npaths: [m.yaml]\ntarget: {cluster_size: 3}\n"
    )
    rc, out, _ = _run(["lint"], capsys)
    assert rc == 1 and "warning JS102" in out and "1 file" in out
    assert _run(["lint", "--fail-on", "error"], capsys)[0] == 0


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (".jsops.yaml", "selct: [JS102]\n", ".jsops.yaml:1:1: selct: unknown key (did you mean 'select'?)"),
        (
            ".jsops.yaml",
            "fail-on: fatal\n",
            ".jsops.yaml:1:10: fail-on: Input should be 'error', 'warning' or 'info', got 'fatal'",
        ),
        (
            ".jsops.yaml",
            "target:\n  cluster_size: three\n",
            ".jsops.yaml:2:17: target.cluster_size: Input should be a valid integer",
        ),
        (".jsops.yaml", "select: [JS102\n", ".jsops.yaml:2:1: invalid YAML:"),
        (".jsops.yaml", "- a\n", ".jsops.yaml: the jsops config must be a mapping, got list"),
        (".jsops.yaml", "ignore: [JS99x]\n", ".jsops.yaml: ignore: unknown rule, code prefix or group 'JS99x'"),
        (
            ".jsops.yaml",
            "rules: {stream: {}}\n",
            ".jsops.yaml: rules.stream: options are per rule; name one rule by code or name",
        ),
        (
            "pyproject.toml",
            "[tool.jsops]\nseverity = {JS102 = 'loud'}\n",
            "pyproject.toml: [tool.jsops] severity.JS102: Input should be 'error', 'warning' or 'info', got 'loud'",
        ),
        ("pyproject.toml", "[tool.jsops\n", "pyproject.toml: invalid TOML:"),
    ],
)
def test_broken_config_exits_2_with_one_line(estate, capsys, name, text, message):
    Path(name).write_text(text)
    rc, out, err = _run(["lint", "m.yaml"], capsys)
    assert rc == 2 and out == ""
    assert err.startswith(f"jsops: error: {message}"), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_explicit_config_file_and_missing_one(estate, capsys):
    Path("ci.toml").write_text("ignore = ['JS102']\n")
    assert _run(["lint", "m.yaml", "--config", "ci.toml"], capsys)[0] == 0
    rc, _, err = _run(["lint", "m.yaml", "--config", "nope.yaml"], capsys)
    assert rc == 2 and err == "jsops: error: nope.yaml: cannot read config: No such file or directory\n"


def test_bad_profiles_exit_2(estate, capsys):
    Path("p.json").write_text("{not json")
    rc, _, err = _run(["lint", "m.yaml", "--profiles", "p.json"], capsys)
    assert rc == 2 and err.startswith("jsops: error: p.json") and err.count("\n") == 1


# -- who may set which key: one classification, the docs derived from it ---------------------------


def test_every_config_key_is_classified_once_and_docs_security_shows_the_classification() -> None:
    from jsops.linter.repo_config import KEY_SCOPES, repository_keys_markdown

    keys = {n for n, f in Config.model_fields.items() if not f.exclude}
    assert set(KEY_SCOPES) == keys, "classify every new config key in jsops.linter.repo_config.KEY_SCOPES"
    # what widens the controller's reach or trust is never a repository's
    assert {n for n, s in KEY_SCOPES.items() if not s.repository} >= {"contexts", "access", "target", "estate"}
    table = repository_keys_markdown()
    assert table in (Path(__file__).parents[2] / "docs" / "security.md").read_text(), (
        "regenerate the key table in docs/security.md"
    )
    assert "| `contexts` | **no**: operator only |" in table and "| `exclude` | yes |" in table


def test_repository_config_over_the_operators(tmp_path: Path) -> None:
    from jsops.linter.repo_config import load_repository_config

    ops = tmp_path / "ops"
    ops.mkdir()
    (ops / "jsops.yaml").write_text(
        "ignore: [JS110]\nexclude: [vendor]\nconsumer-streams: {'nats/*.json': A}\ncontexts: {prod: {server: 'nats://p:4222'}}\n"
    )
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".jsops.yaml").write_text(
        "severity: {JS102: warning}\nexclude: [charts]\nconsumer-streams: {'c/*.json': B}\n"
    )
    operator = load_config(str(ops / "jsops.yaml"))
    found = load_repository_config(str(repo / ".jsops.yaml"))
    assert found.refused == () and found.keys == {"severity", "exclude", "consumer_streams"}
    merged = found.over(operator)
    assert merged.ignore == ["JS110"] and merged.severity == {
        "JS102": Severity.WARNING
    }  # the operator's stays where the repository says nothing
    assert merged.exclude == ["vendor", "charts"] and set(merged.contexts) == {"prod"} and merged.root == operator.root
    # each side's globs stay relative to the file that wrote them
    assert merged.consumer_streams == {str(ops / "nats" / "*.json"): "A", str(repo / "c" / "*.json"): "B"}
    # operator keys are refused before anything is validated, even with a value that would not validate
    (repo / ".jsops.yaml").write_text("access: 12\nestate: ok\n")
    refused = load_repository_config(str(repo / ".jsops.yaml")).refused
    assert [(r.key, r.line, r.column) for r in refused] == [("access", 1, 1), ("estate", 2, 1)]
    with pytest.raises(ValueError):
        load_repository_config(str(repo / ".jsops.yaml")).over(operator)


def test_a_repository_s_policies_add_to_the_operator_s(tmp_path: Path) -> None:
    # policies only add findings, so a repository may declare its own; it can never drop the operator's
    from jsops.linter.repo_config import load_repository_config

    rule = "{{code: {code}, kind: Stream, deny: 'config.num_replicas < 3', message: 'R3 please'}}"
    (tmp_path / "ops.yaml").write_text(f"policies: [{rule.format(code='OPS001')}]\n")
    (tmp_path / ".jsops.yaml").write_text(f"policies: [{rule.format(code='TEAM001')}]\n")
    merged = load_repository_config(str(tmp_path / ".jsops.yaml")).over(load_config(str(tmp_path / "ops.yaml")))
    assert [p.code for p in merged.policies] == ["OPS001", "TEAM001"]


def test_find_config_skips_and_stops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".jsops.yaml").write_text("ignore: []\n")
    inner = tmp_path / "tree" / "sub"
    inner.mkdir(parents=True)
    (tmp_path / "tree" / ".jsops.yaml").write_text("ignore: []\n")
    monkeypatch.chdir(inner)
    assert find_config() == str(tmp_path / "tree" / ".jsops.yaml")
    assert find_config(skip=[str(tmp_path / "tree")]) == str(tmp_path / ".jsops.yaml")
    assert find_config(stop=str(inner)) is None
