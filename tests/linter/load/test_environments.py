"""Environments: ``*.yaml.j2`` templates rendered with ``environments/<env>.yaml`` in a sandbox.

Covers rendering per environment, template problems as findings with the template's file and line
(undefined values, syntax errors, sandbox refusals, file system access), the line map from
rendered text back to the template, discovery (``environments/`` is not a manifest directory),
and that jinja2 is imported only when a template is rendered.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jsops.linter import LoadError, lint_estate, load_paths
from jsops.linter.load.templates import render_template

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "fixtures" / "environments"
TEMPLATE = FIXTURE / "streams" / "orders.yaml.j2"

STREAM = """apiVersion: jsops/v1
kind: Stream
metadata:
  name: {name}
spec:
  subjects: ["{name}.>"]
"""


def _estate(tmp_path: Path, template: str, values: str = "a: 1\n", env: str = "dev", name: str = "t.yaml.j2"):
    (tmp_path / "environments").mkdir(exist_ok=True)
    (tmp_path / "environments" / f"{env}.yaml").write_text(values)
    (tmp_path / name).write_text(template)
    return load_paths([str(tmp_path)], env=env)


def _codes(estate) -> list[tuple[str, str, int]]:
    return [(f.rule, Path(f.file).name, f.line) for f in estate.findings]


# --- rendering per environment -----------------------------------------------------------------


def test_each_environment_gets_its_own_values():
    dev = load_paths([str(FIXTURE)], env="dev")
    prod = load_paths([str(FIXTURE)], env="prod")
    d = {r.name: r for r in dev.resources}
    p = {r.name: r for r in prod.resources}
    assert d["ORDERS"].config.num_replicas == 1 and p["ORDERS"].config.num_replicas == 3
    assert d["ORDERS"].config.max_age == 3600 * 10**9
    assert p["ORDERS"].config.max_age == 7 * 24 * 3600 * 10**9
    assert d["ORDERS"].config.max_bytes in (None, -1) and p["ORDERS"].config.max_bytes == 50 * 1024**3
    assert sorted(n for n, r in d.items() if r.kind == "Consumer") == ["billing"]
    assert sorted(n for n, r in p.items() if r.kind == "Consumer") == ["audit", "billing", "fraud"]
    # plain manifests load alongside templates; the environments/ directory is not a manifest
    assert "AUDIT" in d and "AUDIT" in p
    assert [Path(f).relative_to(FIXTURE).parts[0] for f in dev.files] == ["audit.yaml", "streams"]
    assert dev.findings == [] and prod.findings == []


def test_environment_name_is_a_variable(tmp_path):
    estate = _estate(tmp_path, STREAM.format(name="{{ environment | upper }}"), env="staging")
    assert [r.name for r in estate.resources] == ["STAGING"]


def test_null_and_booleans_render_as_yaml():
    r = render_template(
        "a: {{ n }}\nb: {{ t }}\nc: {{ f }}\nd: x-{{ t }}\ne: {{ 'False' }}\n",
        "t.yaml.j2",
        "dev",
        {"n": None, "t": True, "f": False},
    )
    assert r.text == "a: null\nb: true\nc: false\nd: x-true\ne: False\n"


def test_template_rendering_to_nothing_is_not_a_finding(tmp_path):
    estate = _estate(tmp_path, "{% if environment == 'prod' %}\n" + STREAM.format(name="ONLYPROD") + "{% endif %}\n")
    assert estate.resources == [] and estate.findings == []


# --- problems are findings with the template's file and line -------------------------------------


def test_undefined_value_is_a_finding_at_its_line(tmp_path):
    estate = _estate(tmp_path, STREAM.format(name="A") + "  max_age: {{ retention }}\n")
    assert _codes(estate) == [("JS012", "t.yaml.j2", 7)]
    assert "retention" in estate.findings[0].message and "undefined" in estate.findings[0].message
    assert estate.resources == []


def test_undefined_attribute_and_undefined_test_in_a_condition(tmp_path):
    estate = _estate(
        tmp_path, "# x\n{% if tier.big %}\n" + STREAM.format(name="A") + "{% endif %}\n", values="tier: {}\n"
    )
    assert _codes(estate) == [("JS012", "t.yaml.j2", 2)]
    estate = _estate(tmp_path, "# x\n\n{% if flag %}{% endif %}\n" + STREAM.format(name="A"), values="{}\n")
    assert _codes(estate) == [("JS012", "t.yaml.j2", 3)]


def test_syntax_error_is_a_finding_at_its_line(tmp_path):
    estate = _estate(tmp_path, STREAM.format(name="A") + "{% for x in %}\n  max_age: 1h\n{% endfor %}\n")
    assert _codes(estate) == [("JS012", "t.yaml.j2", 7)]
    assert estate.findings[0].message.startswith("template syntax error")
    estate = _estate(tmp_path, STREAM.format(name="A") + "\n\n  max_age: {{ 1h }\n")
    assert [c[0] for c in _codes(estate)] == ["JS012"] and estate.findings[0].line == 9
    estate = _estate(tmp_path, "\n" + STREAM.format(name="A") + "  max_age: {{ a | no_such_filter }}\n")
    assert _codes(estate) == [("JS012", "t.yaml.j2", 8)]


def test_runtime_error_inside_a_loop_points_at_the_loop_line(tmp_path):
    estate = _estate(tmp_path, "{% for n in [1, 0] %}\n# {{ 10 // n }}\n{% endfor %}\n" + STREAM.format(name="A"))
    assert _codes(estate) == [("JS012", "t.yaml.j2", 2)]
    assert "ZeroDivisionError" in estate.findings[0].message


def test_yaml_error_in_the_rendered_text_points_at_the_template_line(tmp_path):
    template = "{% if true %}\n{% endif %}\n" + STREAM.format(name="A") + "  max_age: [1h\n"
    estate = _estate(tmp_path, template)
    assert [(c[0], c[1]) for c in _codes(estate)] == [("JS001", "t.yaml.j2")]
    # rendered, the bad line is line 7; in the template it is line 9 (two tag lines vanish)
    assert estate.findings[0].line == 10  # the end of the input
    assert "starts at line 9" in estate.findings[0].message


@pytest.mark.parametrize(
    "values, message",
    [
        ("a: [1\n", "JS001"),
        ("a: 1\na: 2\n", "JS003"),
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
            "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
            "JS002",
        ),
        ("- 1\n- 2\n", "must be a mapping"),
        ("a: 1\n---\nb: 2\n", "one mapping"),
        ("not-an-identifier: 1\n", "identifiers"),
    ],
)
def test_bad_values_file_is_a_finding_in_the_values_file(tmp_path, values, message):
    estate = _estate(tmp_path, STREAM.format(name="A"), values=values)
    assert len(estate.findings) == 1
    f = estate.findings[0]
    assert Path(f.file).name == "dev.yaml" and f.line >= 1
    assert message in (f.rule + " " + f.message)


def test_template_that_is_not_text_or_too_large(tmp_path):
    estate = _estate(tmp_path, "")
    (tmp_path / "t.yaml.j2").write_bytes(b"# ok\n\xff\xfe binary\n")
    estate = load_paths([str(tmp_path)], env="dev")
    assert [(f.rule, f.line) for f in estate.findings] == [("JS001", 2)]
    from jsops.linter.load import Limits

    (tmp_path / "t.yaml.j2").write_text(STREAM.format(name="A"))
    estate = load_paths([str(tmp_path)], env="dev", limits=Limits(max_file_bytes=20))
    assert [f.rule for f in estate.findings] == ["JS002"]
    (tmp_path / "t.yaml.j2").write_text(
        "{% for i in range(100) %}# {{ 'x' * 50 }}\n{% endfor %}\n" + STREAM.format(name="A")
    )
    estate = load_paths([str(tmp_path)], env="dev", limits=Limits(max_file_bytes=1000))
    assert [f.rule for f in estate.findings] == ["JS012"] and "larger than 1000 bytes" in estate.findings[0].message


# --- the sandbox and the file system ------------------------------------------------------------

ESCAPES = [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
    "{{ joiner.__init__.__globals__ }}",
    "{{ lipsum.__globals__['os'] }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ self.__init__.__globals__ }}",
    "{{ range.__self__ }}",
    "{{ ''.format.__globals__ }}",
    "{{ '{0.__class__}'.format('') }}",
    "{% set l = [] %}{{ l.append(1) }}",
    "{% set d = {} %}{{ d.update(a=1) }}",
    "{{ config }}",
    "{{ request }}",
    "{{ 'x' * 100000000 }}",
    "{{ [0] * 100000000 }}",
    "{{ 9 ** 999999 }}",
    "{% for i in range(1000000) %}{% endfor %}",
    "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
]


@pytest.mark.parametrize("payload", ESCAPES)
def test_sandbox_escapes_are_findings_not_tracebacks(tmp_path, payload):
    estate = _estate(tmp_path, "# line 1\n" + payload + "\n" + STREAM.format(name="A"))
    assert _codes(estate) == [("JS012", "t.yaml.j2", 2)], estate.findings
    assert "uid=" not in estate.findings[0].message


def test_sandbox_refusals_say_so():
    r = render_template("{{ ''.__class__ }}", "t.yaml.j2", "dev", {})
    assert "sandbox" in r.problems[0].message and r.text == ""


FILE_ACCESS = [
    '{% include "/etc/passwd" %}',
    '{% include "../secret.yaml" %}',
    '{% include "sibling.yaml" %}',
    '{% import "sibling.yaml" as s %}',
    '{% from "sibling.yaml" import x %}',
    '{% extends "sibling.yaml" %}',
    "{{ open('/etc/passwd').read() }}",
]


@pytest.mark.parametrize("payload", FILE_ACCESS)
def test_templates_cannot_read_files(tmp_path, payload):
    (tmp_path / "secret.yaml").write_text("password: hunter2\n")
    root = tmp_path / "m"
    root.mkdir()
    (root / "sibling.yaml").write_text("# sibling\n" + STREAM.format(name="SIB"))
    estate = _estate(root, "# line 1\n" + payload + "\n" + STREAM.format(name="A"))
    template_findings = [f for f in estate.findings if f.file.endswith(".j2")]
    assert [(f.rule, f.line) for f in template_findings] == [("JS012", 2)]
    text = json.dumps([f.as_dict() for f in estate.findings])
    assert "hunter2" not in text and "root:" not in text


# --- findings of rules point at the template ----------------------------------------------------


def test_rule_findings_point_at_the_template_line():
    result = lint_estate(load_paths([str(FIXTURE)], env="dev"))
    js102 = [f for f in result.findings if f.rule == "JS102"]
    assert [(Path(f.file).name, f.line, f.column) for f in js102] == [("orders.yaml.j2", 13, 21)]
    assert TEMPLATE.read_text().splitlines()[12].startswith("  duplicate_window:")
    # in the rendered text it is line 10: the {% if %} block's three lines vanish in dev
    from jsops.linter.load.templates import render_file

    rendered = render_file(str(TEMPLATE), "dev")
    assert rendered.text.splitlines()[9].startswith("  duplicate_window:")
    assert rendered.template_line(10) == (13, True)


def test_findings_in_a_loop_point_at_the_loop_body():
    estate = load_paths([str(FIXTURE)], env="prod")
    consumers = {r.name: r for r in estate.consumers()}
    assert {n: r.locate(("max_deliver",))[0] for n, r in consumers.items()} == {"audit": 24, "billing": 24, "fraud": 24}
    assert {n: r.locate(("name",), document_path=False)[0] for n, r in consumers.items()} == {
        "audit": 19,
        "billing": 19,
        "fraud": 19,
    }
    assert {r.file for r in consumers.values()} == {str(TEMPLATE)}


def test_multi_line_expression_output_maps_to_the_expression_line():
    r = render_template("a: 1\nb: {{ text }}\nc: 3\n", "t.yaml.j2", "dev", {"text": "|\n  x\n  y"})
    assert r.text == "a: 1\nb: |\n  x\n  y\nc: 3\n"
    assert r.lines[:5] == [(1, True), (2, True), (2, False), (2, False), (3, True)]


def test_suppression_comment_in_the_template_applies(tmp_path):
    template = STREAM.format(name="A") + "  max_age: 1m\n  duplicate_window: {{ dw }}  # jsops: disable=JS102 known\n"
    estate = _estate(tmp_path, template, values="dw: 2m\n")
    assert [f.rule for f in lint_estate(estate).findings if f.rule in ("JS102", "JS010")] == []
    estate = _estate(tmp_path, template.replace("  # jsops: disable=JS102 known", ""), values="dw: 2m\n")
    assert [f.rule for f in lint_estate(estate).findings if f.rule == "JS102"] == ["JS102"]


# --- without --env, unknown environments, discovery ---------------------------------------------


def test_template_without_env_is_a_finding():
    estate = load_paths([str(FIXTURE)])
    assert [(f.rule, Path(f.file).name, f.line) for f in estate.findings] == [("JS013", "orders.yaml.j2", 1)]
    assert "--env" in estate.findings[0].message
    assert [r.name for r in estate.resources] == ["AUDIT"]


def test_unknown_environment_cannot_run():
    with pytest.raises(LoadError, match=r"unknown environment 'staging'.*known: dev, prod"):
        load_paths([str(FIXTURE)], env="staging")
    with pytest.raises(LoadError, match="invalid environment name"):
        load_paths([str(FIXTURE)], env="../dev")


def test_no_environments_directory_cannot_run(tmp_path):
    (tmp_path / ".git").mkdir()  # the walk up stops at the repository root
    (tmp_path / "t.yaml.j2").write_text(STREAM.format(name="A"))
    with pytest.raises(LoadError, match="environments/ directory"):
        load_paths([str(tmp_path)], env="dev")


def test_nearest_environments_directory_wins(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "dev.yaml").write_text("n: OUTER\n")
    team = tmp_path / "team"
    (team / "environments").mkdir(parents=True)
    (team / "environments" / "dev.yaml").write_text("n: INNER\n")
    (team / "a.yaml.j2").write_text(STREAM.format(name="{{ n }}"))
    (tmp_path / "b.yaml.j2").write_text(STREAM.format(name="{{ n }}_TOP"))
    estate = load_paths([str(tmp_path)], env="dev")
    assert sorted(r.name for r in estate.resources) == ["INNER", "OUTER_TOP"]
    # an explicitly given directory overrides the lookup
    estate = load_paths([str(team)], env="dev", environments_dir=str(tmp_path / "environments"))
    assert [r.name for r in estate.resources] == ["OUTER"]


def test_environment_values_and_hidden_directories_are_not_manifests(tmp_path):
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "dev.yaml").write_text("a: 1\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.yaml").write_text("not: a manifest\n")
    (tmp_path / "s.yaml").write_text(STREAM.format(name="A"))
    (tmp_path / "environments" / "prod").mkdir()
    (tmp_path / "environments" / "prod" / "p.yaml").write_text(STREAM.format(name="P"))
    estate = load_paths([str(tmp_path)])
    assert estate.findings == [] and sorted(r.name for r in estate.resources) == ["A", "P"]
    # paths given explicitly are always read (values passed as a manifest are not one: passed over, counted)
    estate = load_paths([str(tmp_path / "environments" / "dev.yaml")])
    assert estate.findings == [] and list(estate.not_jetstream) == [str(tmp_path / "environments" / "dev.yaml")]
    estate = load_paths([str(tmp_path / "environments")])
    assert estate.findings == [] and [r.name for r in estate.resources] == ["P"] and len(estate.not_jetstream) == 1


# --- jinja2 only when needed --------------------------------------------------------------------


def _jinja_imported(args: list[str]) -> tuple[int, bool]:
    code = f"import sys, json\nfrom jsops.linter.cli.app import main\nrc = main({args!r})\nprint(json.dumps({{'rc': rc, 'jinja2': 'jinja2' in sys.modules}}))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return result["rc"], result["jinja2"]


def test_lint_imports_jinja2_only_to_render_a_template(tmp_path):
    (tmp_path / "s.yaml").write_text(STREAM.format(name="A"))
    assert _jinja_imported(["lint", str(tmp_path), "--format", "json"]) == (0, False)
    assert _jinja_imported(["lint", str(tmp_path), "--format", "json", "--env", "dev"]) == (0, False)
    assert _jinja_imported(["lint", str(FIXTURE), "--format", "json"]) == (1, False)  # JS013, nothing rendered
    assert _jinja_imported(["lint", str(FIXTURE), "--format", "json", "--env", "prod"]) == (0, True)


@pytest.mark.parametrize("env, consumers", [("dev", ["settle"]), ("prod", ["archive", "settle"])])
def test_docs_example_lints_clean_in_each_environment(env, consumers):
    estate = load_paths([str(ROOT / "docs" / "examples" / "environments")], env=env)
    assert sorted(r.name for r in estate.consumers()) == consumers
    errors = [f for f in lint_estate(estate).findings if f.severity.value == "error"]
    assert errors == []
