"""NACK files against the CRDs of the NACK release the user runs (issue 24: what kube-apiserver refuses
before NACK ever sees it): JS030 ``nack-crd-refused``, the facts table, ``--nack-version``.

The corpus in tests/fixtures/nack-crd/ is labelled in each file (see its README): what kube-apiserver
refuses, where jsops must say so, and for which NACK release.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jsops.linter.findings import Severity
from jsops.linter.load import Estate, load_paths, load_text
from jsops.linter.load import _nack_tables as T
from jsops.linter.load.nack_crd import drop_shadowed
from jsops.linter.load.nack_releases import NackVersionError, known_releases, nack_release, newest_release
from jsops.linter.semantics import catalog

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "fixtures" / "nack-crd"
REFUSED = sorted((CORPUS / "refused").glob("*.yaml"))
ACCEPTED = sorted((CORPUS / "accepted").glob("*.yaml"))
STAGE = "kube-apiserver would refuse this"


def _labels(path: Path) -> tuple[str | None, list[tuple[int, int, str]]]:
    text = path.read_text()
    version = re.search(r"^# nack-version: (\S+)$", text, re.M)
    expected = [(int(m[1]), int(m[2]), m[3]) for m in re.finditer(r"^# expect: (\d+):(\d+) (.+)$", text, re.M)]
    return (version[1] if version else None), expected


def _load(path: Path, version: str | None) -> Estate:
    estate = Estate(nack_version=version)
    load_text(path.read_bytes(), str(path), estate)
    return estate


def test_the_corpus_is_labelled() -> None:
    assert len(REFUSED) >= 15 and len(ACCEPTED) >= 4
    for path in REFUSED:
        text = path.read_text()
        assert text.startswith("# refused: "), path.name
        assert _labels(path)[1], path.name


@pytest.mark.parametrize("path", REFUSED, ids=lambda p: p.stem)
def test_kube_apiserver_refusals_are_reported_with_the_stage(path: Path) -> None:
    version, expected = _labels(path)
    estate = _load(path, version)
    got = [f for f in estate.findings if f.rule == "JS030"]
    assert [(f.line, f.column) for f in got] == [(line, col) for line, col, _ in expected], [
        (f.line, f.column, f.message) for f in got
    ]
    for f, (_, _, says) in zip(got, expected, strict=True):
        assert says in f.message, f.message
        assert f.message.startswith(STAGE) and f.server_error_code is None and f.severity is Severity.ERROR
    refused_at = {(f.line, f.column) for f in got}
    # the first stage that refuses says it: no JS005 about the same value is reported
    assert not [f for f in drop_shadowed(estate.findings) if f.rule == "JS005" and (f.line, f.column) in refused_at]


@pytest.mark.parametrize("path", ACCEPTED, ids=lambda p: p.stem)
def test_valid_nack_files_draw_no_new_finding(path: Path) -> None:
    version, _ = _labels(path)
    estate = _load(path, version)
    assert [
        (f.rule, f.line, f.message) for f in estate.findings if f.severity is Severity.ERROR or f.rule == "JS030"
    ] == []
    assert estate.resources


@pytest.mark.parametrize(
    ("name", "accepted_by"),
    [
        ("persist-mode-before-0.20.1", ("0.20.1", "0.21", None)),
        ("last-per-subject-before-0.21.1", ("v0.21.1", "0.22.0", "latest")),
    ],
)
def test_a_field_a_later_release_added_is_refused_only_before_it(
    name: str, accepted_by: tuple[str | None, ...]
) -> None:
    path = CORPUS / "refused" / f"{name}.yaml"
    assert [f.rule for f in _load(path, _labels(path)[0]).findings if f.rule == "JS030"] == ["JS030"]
    for version in accepted_by:
        estate = _load(path, version)
        assert [f.message for f in estate.findings if f.severity is Severity.ERROR] == [], version
        assert [r.name for r in estate.resources] in (["METRICS"], ["latest"]), version


def test_js030_does_not_change_what_jsops_loads() -> None:
    """Whether an object loads is jsops's own judgement: a value it cannot read either is invalid (its
    JS005 is kept, only not reported beside the JS030), one only the CRD refuses still loads."""
    unreadable = _load(CORPUS / "refused" / "replicas-quoted.yaml", None)
    assert unreadable.resources == [] and len(unreadable.invalid) == 1
    assert [f.rule for f in unreadable.findings] == ["JS030", "JS005"] and [
        f.rule for f in drop_shadowed(unreadable.findings)
    ] == ["JS030"]
    for name, loaded in (
        ("v1beta1-not-served", "LEGACY"),
        ("metadata-name-uppercase", "ORDERS"),
        ("max-deliver-below-minimum", "retrier"),
    ):
        assert [r.name for r in _load(CORPUS / "refused" / f"{name}.yaml", None).resources] == [loaded], name


def test_ignoring_js030_keeps_jsops_own_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "s.yaml").write_text((CORPUS / "refused" / "replicas-quoted.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    rc, findings, _ = _lint(["s.yaml"], capsys)
    assert rc == 1 and [f["rule"] for f in findings] == ["JS030"]
    (tmp_path / ".jsops.yaml").write_text("ignore: [JS030]\n")
    rc, findings, _ = _lint(["s.yaml"], capsys)
    assert rc == 1 and [(f["rule"], f["message"]) for f in findings] == [
        ("JS005", "spec.replicas must be an integer, got the string '3'")
    ]


def test_unknown_fields_jsops_does_not_know_either_stay_js005() -> None:
    text = (CORPUS / "accepted" / "old-release.yaml").read_text().replace("maxAge: 1h", "maxAg: 1h")
    estate = Estate()
    load_text(text.encode(), "s.yaml", estate)
    assert [(f.rule, f.message) for f in estate.findings] == [
        ("JS005", "unknown field 'maxAg' in spec (jetstream.nats.io/v1beta2); did you mean 'maxAge'?")
    ]


def test_a_null_field_is_pruned_not_refused() -> None:
    text = (CORPUS / "accepted" / "old-release.yaml").read_text().replace("maxAge: 1h", "maxAge:\n  replicas: null")
    estate = Estate()
    load_text(text.encode(), "s.yaml", estate)
    assert [f for f in estate.findings if f.rule == "JS030"] == []


# --- the facts table ------------------------------------------------------------------------------


def test_release_spellings() -> None:
    assert nack_release(None).tag == newest_release() == known_releases()[0] == nack_release("latest").tag
    assert (
        nack_release("0.21").tag == "v0.21.1"
        and nack_release("v0.21.0").tag == "v0.21.0"
        and nack_release("0.19.2").tag == "v0.19.2"
    )
    for bad in ("0.9", "0.21.7", "1", "v0.22.4-rc1", "next"):
        with pytest.raises(NackVersionError, match="jsops has the CRDs of NACK v0.19.0 to"):
            nack_release(bad)


def test_the_table_records_its_source_and_every_release_of_the_last_four_minors() -> None:
    data = json.loads((ROOT / "linter" / "load" / "nack_crds.json").read_text())
    assert data["source"] == "https://github.com/nats-io/nack" and data["file"] == "deploy/crds.yml"
    minors = {".".join(t.lstrip("v").split(".")[:2]) for t in data["releases"]}
    assert minors == {"0.19", "0.20", "0.21", "0.22"}
    for tag, entry in data["releases"].items():
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]), tag
        assert entry["kinds"]["Stream"]["served"] == "v1beta2" and entry["kinds"]["StreamTemplate"]["served"] is None
        assert all(k["schema"] is None or k["schema"] in data["schemas"] for k in entry["kinds"].values())
    assert list(data["releases"]) == sorted(
        data["releases"], key=lambda t: tuple(int(p) for p in t.lstrip("v").split(".")), reverse=True
    )


def _catalog_paths(rec: catalog.Record, prefix: str, seen: frozenset[str]) -> list[str]:
    out: list[str] = []
    for f in rec.fields:
        if f.record == "ExternalStream":  # spelled flat in NACK: mirror.externalApiPrefix
            out += [f"{prefix}.{sub.nack}" for sub in catalog.record(f.record).fields if sub.nack]
        elif f.nack is not None:
            out.append(f"{prefix}.{f.nack}")
            if f.record is not None and f.record not in seen:
                out += _catalog_paths(
                    catalog.record(f.record), f"{prefix}.{f.nack}" + ("[]" if f.many else ""), seen | {f.record}
                )
    return out


# Catalog NACK names that some releases' CRDs do not declare: the release that added them, or None
# (never in a CRD: NACK's Go type reads republish.headers_only, but the CRD does not declare it, so
# kube-apiserver prunes it; the catalog's KeyValue spelling headersOnly is in neither).
ADDED = {
    ("Stream", "spec.allowMsgCounter"): "v0.20.1",
    ("Stream", "spec.allowAtomicPublish"): "v0.20.1",
    ("Stream", "spec.allowMsgSchedules"): "v0.20.1",
    ("Stream", "spec.persistMode"): "v0.20.1",
    ("Stream", "spec.republish.headers_only"): None,
    ("Consumer", "spec.priorityGroups"): "v0.20.1",
    ("Consumer", "spec.priorityPolicy"): "v0.20.1",
    ("Consumer", "spec.pinnedTtl"): "v0.20.1",
    ("Consumer", "spec.pauseUntil"): "v0.21.0",
    ("KeyValue", "spec.limitMarkerTtl"): "v0.21.0",
    ("KeyValue", "spec.republish.headersOnly"): None,
}


def test_every_catalog_nack_name_is_in_the_crd_of_the_releases_that_have_it() -> None:
    tags = known_releases()
    found = {}
    for kind in ("Stream", "Consumer", "KeyValue", "ObjectStore"):
        for path in _catalog_paths(catalog.record(kind), "spec", frozenset({kind})):
            having = [t for t in tags if path in nack_release(t).schema(kind)]
            if len(having) == len(tags):
                continue
            # added in one release and kept since: the releases that have it are the newest ones
            assert having == list(tags[: len(having)]), (kind, path, having)
            found[(kind, path)] = having[-1] if having else None
    assert found == ADDED


def test_every_crd_field_of_every_release_is_one_jsops_reads() -> None:
    tables = {"Stream": T.STREAM, "Consumer": T.CONSUMER, "KeyValue": T.KEY_VALUE, "ObjectStore": T.OBJECT_STORE}
    for tag in known_releases():
        for kind, table in tables.items():
            for path in nack_release(tag).schema(kind):
                names = path.replace("[]", "").replace("{}", "").split(".")
                if names[0] != "spec" or len(names) == 1 or names[1] in T.CONNECTION:
                    continue
                node: object = table
                for name in names[1:]:
                    if not isinstance(node, dict):
                        break  # a value jsops reads whole (metadata's map)
                    assert name in node, (tag, kind, path)
                    target = node[name]
                    node = target[1] if isinstance(target, tuple) and isinstance(target[1], dict) else None


# --- the generator --------------------------------------------------------------------------------


def test_the_generator_keeps_what_kube_apiserver_enforces_and_stops_on_what_it_does_not_know() -> None:
    from nack_crd_facts import schema_facts  # tests/ is on pytest's pythonpath

    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "pattern": "^[a-z]+$", "description": "dropped", "default": "x"},
                    "tags": {"type": "array", "items": {"type": "string", "minLength": 1}},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                },
            }
        },
    }
    assert schema_facts(schema) == {
        "": {"type": "object"},
        "spec": {"type": "object", "required": ["name"]},
        "spec.name": {"type": "string", "pattern": "^[a-z]+$"},
        "spec.tags": {"type": "array"},
        "spec.tags[]": {"type": "string", "minLength": 1},
        "spec.labels": {"type": "object"},
        "spec.labels{}": {"type": "string"},
        "spec.raw": {"type": "object", "preserve": True},
    }
    with pytest.raises(SystemExit, match="oneOf"):
        schema_facts({"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}})


# --- the command line -----------------------------------------------------------------------------


def _lint(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, object]], str]:
    from jsops.linter.cli.app import main

    rc = main(["lint", *argv, "--format", "json", "--no-cache"])
    out, err = capsys.readouterr()
    return rc, (json.loads(out)["findings"] if out else []), err


def test_nack_version_flag_and_config_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "s.yaml").write_text((CORPUS / "refused" / "persist-mode-before-0.20.1.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    rc, findings, _ = _lint(["s.yaml"], capsys)
    assert rc == 0 and findings == []  # the newest release declares persistMode
    rc, findings, _ = _lint(["s.yaml", "--nack-version", "0.20.0"], capsys)
    assert rc == 1 and [(f["rule"], f["server_error_code"]) for f in findings] == [("JS030", None)]
    (tmp_path / ".jsops.yaml").write_text('nack-version: "0.20.0"\n')
    rc, findings, _ = _lint(["s.yaml"], capsys)
    assert rc == 1 and [f["rule"] for f in findings] == ["JS030"]
    rc, findings, _ = _lint(["s.yaml", "--nack-version", "latest"], capsys)  # the flag wins over the config
    assert rc == 0 and findings == []
    rc, _, err = _lint(["s.yaml", "--nack-version", "0.9"], capsys)
    assert rc == 2 and "NACK version '0.9': jsops has the CRDs of NACK v0.19.0 to" in err


def test_load_paths_passes_the_version_on() -> None:
    estate = load_paths([str(CORPUS / "refused" / "last-per-subject-before-0.21.1.yaml")], nack_version="0.21.0")
    assert [f.rule for f in estate.findings if f.rule == "JS030"] == ["JS030"]
    estate = load_paths([str(CORPUS / "refused" / "last-per-subject-before-0.21.1.yaml")])
    assert [f.rule for f in estate.findings if f.rule == "JS030"] == []


def test_lint_output_of_the_refused_corpus_matches_golden(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a user sees (text), for the newest release; ``JSOPS_UPDATE_GOLDEN=1`` rewrites it."""
    import os

    from jsops.linter.cli.app import main

    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    rc = main(
        ["lint", "tests/fixtures/nack-crd/refused", "--no-cache", "--show-all"]
    )  # every refusal of the corpus, none grouped
    out, err = capsys.readouterr()
    golden = ROOT / "tests" / "golden" / "lint-nack-crd.txt"
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        golden.write_text(out)
    assert (rc, err) == (1, "")
    assert out == golden.read_text(), (
        "lint-nack-crd.txt differs; if the change is intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    )


def test_the_facts_table_ships_in_the_wheel() -> None:
    """The table is package data of jsops.linter (an installed jsops reads it beside the loader)."""
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["jsops.linter"]
    assert any(
        (ROOT / "linter").glob(pattern) and Path(ROOT / "linter" / pattern).name == "nack_crds.json" for pattern in data
    )


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", "1e400", "1.5", "-3"])
def test_odd_numbers_where_the_crd_wants_a_duration_string_are_findings(value: str) -> None:
    text = (
        (CORPUS / "refused" / "ack-wait-integer.yaml")
        .read_text()
        .replace("ackWait: 30000000000", f"ackWait: {value}\n  backoff: [{value}]")
    )
    estate = Estate()
    load_text(text.encode(), "c.yaml", estate)
    assert [f.rule for f in estate.findings if f.rule == "JS030"] == ["JS030", "JS030"], [
        f.message for f in estate.findings
    ]


def test_the_committed_table_is_the_generators_output() -> None:
    """Not edited by hand: the file is exactly what ``tests/nack_crd_facts.py`` writes for its content
    (regenerating it from the NACK repository needs a clone: see that script)."""
    from nack_crd_facts import dump

    text = (ROOT / "linter" / "load" / "nack_crds.json").read_text()
    assert dump(json.loads(text)) == text
