"""Template rendering is bounded by the size of every value it builds and by time.

Each payload below used 0.6-3 GB (or ran without end) through one or two template lines that the
sandbox let through: ``%`` and format widths, ``center``/``indent``, ``~``/``+`` doubling, integer
squaring, printing a list of shared big strings. Each must now be a JS012 finding at its line,
with the peak memory of the render (tracemalloc) far below what the payload would need.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from jsops.linter.cli.app import main
from jsops.linter.load.templates import render_template

MiB = 1024 * 1024
HEAD = "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: S\nspec:\n  description: "


def _doubling(op: str, start: str, times: int = 14) -> str:
    return (
        "{% set s = " + start + " %}" + "".join(f"{{% set s = s {op} s %}}" for _ in range(times)) + "{{ s | length }}"
    )


PAYLOADS = {
    "percent-width": '{{ "%0999999999d" % 1 }}',
    "percent-star-width": '{{ "%*d" % (999999999, 1) }}',
    "percent-precision": '{{ "%.999999999f" % 1.5 }}',
    "format-filter-width": '{{ "%0999999999d" | format(1) }}',
    "str-format-width": '{{ "{:>999999999}".format(1) }}',
    "str-format-nested-width": '{{ "{:>{}}".format(1, 999999999) }}',
    "format-map-width": '{{ "{a:>999999999}".format_map({"a": 1}) }}',
    "center": '{{ "x" | center(999999999) }}',
    "indent": '{{ ("x\\n" * 500000) | indent(4000) }}',
    "indent-string": '{{ ("x\\n" * 500000) | indent("' + " " * 4000 + '") }}',
    "str-ljust": '{{ "x".ljust(999999999) }}',
    "str-zfill": '{{ "1".zfill(999999999) }}',
    "str-replace": '{{ ("a" * 1000000).replace("a", "b" * 1000) }}',
    "replace-filter": '{{ ("a" * 1000000) | replace("a", "b" * 1000) }}',
    "str-join": '{{ ("x" * 1000000).join(["a"] * 1000) }}',
    "join-filter": '{{ (["x" * 1000000] * 1000) | join }}',
    "join-generator": '{{ (["x" * 1000000] * 1000) | map("upper") | join }}',
    "tilde-doubling": _doubling("~", '"x" * 1000000'),
    "plus-doubling": _doubling("+", '"x" * 1000000'),
    "list-plus-doubling": _doubling("+", "[1] * 1000000"),
    "int-squaring": "{% set n = 10 ** 9 %}" + "".join("{% set n = n * n %}" for _ in range(30)) + "{{ n }}",
    "print-shared-list": '{% set a = ["x" * 1000000] * 1000 %}{{ a }}',
    "tojson-shared-list": '{% set a = ["x" * 1000000] * 1000 %}{{ a | tojson }}',
    "string-shared-list": '{% set a = ["x" * 1000000] * 1000 %}{{ a | string | length }}',
    "percent-shared-list": '{% set a = ["x" * 1000000] * 1000 %}{{ "%s" % (a,) }}',
    "format-shared-list": '{% set a = ["x" * 1000000] * 1000 %}{{ "{}".format(a) }}',
    "tilde-shared-list": '{% set a = ["x" * 1000000] * 1000 %}{{ "" ~ a }}',
    "lipsum": "{{ lipsum(100000, max=100000) }}",
    "tojson-indent": "{{ [[1, 2]] * 1000 | tojson(indent=999999999) }}",
    "wordwrap-wrapstring": '{{ ("a " * 500000) | wordwrap(2, wrapstring="y" * 1000) }}',
    "slice-count": "{{ [1] | slice(999999999) | list | length }}",
    "batch-fill": "{{ [1] | batch(999999999, 0) | list | length }}",
    "str-translate": '{{ ("a" * 1000000).translate({97: "b" * 1000}) }}',
    "int-to-bytes": "{{ (1).to_bytes(999999999, 'big') | length }}",
    "map-center": '{{ ["x"] | map("center", 999999999) | list }}',
    "attr-center": '{{ ("x" | attr("center"))(999999999) }}',
    # Each step within every per-value bound; together 3 GB before the time bound (issue 22, item 12):
    # a render is bounded in total (_template_bounds.MAX_RENDER_TOTAL).
    "distinct-strings-list": '{% set ns = namespace(l=[]) %}{% for i in range(3000) %}{% set ns.l = ns.l + [("x" * 1000000) ~ i] %}{% endfor %}{{ ns.l | length }}',
    "distinct-strings-nested": '{% set ns = namespace(l=[]) %}{% for i in range(3000) %}{% set ns.l = [ns.l, ("y" * 1000000) ~ i] %}{% endfor %}{{ 1 }}',
    "distinct-strings-filtered": '{% set ns = namespace(l=[]) %}{% set b = "x" * 1000000 %}{% for i in range(3000) %}{% set ns.l = ns.l + [(b ~ i) | upper] %}{% endfor %}{{ 1 }}',
    "distinct-strings-method": '{% set ns = namespace(l=[]) %}{% set b = "x" * 1000000 %}{% for i in range(3000) %}{% set ns.l = ns.l + [b.replace("x", "xy"[i % 2])] %}{% endfor %}{{ 1 }}',
}


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_blow_up_is_refused_in_bounded_memory(name: str) -> None:
    source = HEAD + "x\n# line 7\n" + PAYLOADS[name] + "\n"
    tracemalloc.start()
    try:
        r = render_template(source, "t.yaml.j2", "dev", {}, max_seconds=30)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.text == "" and len(r.problems) == 1, (name, r.problems, len(r.text))
    p = r.problems[0]
    assert p.code == "template-error" and p.line == 8, p
    assert "refused by the template sandbox" in p.message or "undefined value" in p.message, p.message
    assert peak < 80 * MiB, (name, peak // MiB)


def test_a_template_that_accumulates_ordinary_text_still_renders() -> None:
    """The total bound leaves room for what templates do: 2,000 consumers' worth of text built in a loop."""
    source = (
        "{% set ns = namespace(s='') %}{% for i in range(2000) %}{% set ns.s = ns.s ~ 'c' ~ i ~ ',' %}{% endfor %}"
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: S\nspec:\n  description: {{ ns.s | length }}\n"
    )
    r = render_template(source, "t.yaml.j2", "dev", {})
    assert r.problems == [] and "description: 10890" in r.text


def test_endless_loops_stop_at_the_time_bound() -> None:
    source = HEAD + "x\n{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\n"
    r = render_template(source, "t.yaml.j2", "dev", {}, max_seconds=0.3)
    assert [p.code for p in r.problems] == ["template-error"] and "took too long" in r.problems[0].message
    assert r.problems[0].line == 7
    # The watchdog is gone once the render is over: the next render is unaffected.
    ok = render_template(HEAD + "'{{ 6 * 7 }}'\n", "t.yaml.j2", "dev", {}, max_seconds=0.3)
    assert ok.problems == [] and "'42'" in ok.text


def test_ordinary_templates_still_render() -> None:
    source = (
        HEAD
        + '"{{ "%-5s|%05d" % ("ab", 42) }} {{ "{:>8}".format("x") }} {{ "x" | center(9) }} {{ ("a" ~ "b") * 3 }}"\n'
    )
    source += "  subjects: [{{ subjects | map('lower') | join(', ') }}]\n  max_msgs: {{ 2 ** 20 * 3 }}\n"
    r = render_template(source, "t.yaml.j2", "dev", {"subjects": ["A.>", "B.>"]})
    assert r.problems == []
    assert '"ab   |00042        x     x     ababab"' in r.text
    assert "subjects: [a.>, b.>]" in r.text and "max_msgs: 3145728" in r.text


def test_lint_exits_1_on_a_blow_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "dev.yaml").write_text("w: 999999999\n")
    (tmp_path / "s.yaml.j2").write_text(HEAD + '"{{ "%0*d" % (w, 1) }}"\n')
    rc = main(["lint", str(tmp_path), "--env", "dev", "--format", "json"])
    out = capsys.readouterr().out
    assert rc == 1 and '"JS012"' in out and "width" in out


def test_text_size_estimates_without_building() -> None:
    from jsops.linter.load._template_bounds import MAX_VALUE_CHARS, text_size

    assert text_size("abc") == len(repr("abc"))
    assert text_size([1, "ab"]) >= len(str([1, "ab"])) - 4
    big = "x" * 1000
    shared = [big] * 10_000  # 10 MB when printed, 80 kB in memory
    assert text_size(shared) > MAX_VALUE_CHARS
    assert text_size({"k": [big] * 3}) > 3000
    nested = [[[big] * 100] * 100] * 100  # 10^9 characters printed: counted only up to the budget
    assert MAX_VALUE_CHARS < text_size(nested) < 2 * MAX_VALUE_CHARS
    assert text_size(10**100) >= 33
