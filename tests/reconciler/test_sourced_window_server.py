"""A stream with sources and no ``duplicate_window`` on every release: 2.10, 2.11 and 2.12 store the 2-minute
default (capped by ``max_age``), 2.14 and 2.15 none (:data:`~jsops.linter.semantics.releases.SOURCES_WITHOUT_DEFAULT_WINDOW`).
The plan computes what each release stores, so the plan right after an apply is empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsops.linter import parse_version
from tests.natsserver import release_or_skip

from .helpers import Js, NatsServer, manifest, run

RELEASES = ["2.10.26", "2.11.11", "2.12.8", "2.14.6", "2.15.1"]
SOURCED = """
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: A}
    spec: {subjects: ["a.>"]}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: WITH_SUBJECTS}
    spec: {subjects: ["w.>"], sources: [{name: A}]}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ONLY_SOURCES}
    spec: {sources: [{name: A}]}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: SHORT_AGE}
    spec: {subjects: ["s.>"], sources: [{name: A}], max_age: 30s}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: A_MIRROR}
    spec: {mirror: {name: A}}
"""


@pytest.mark.integration
@pytest.mark.parametrize("version", RELEASES)
def test_sourcing_streams_plan_empty_right_after_apply(version: str, tmp_path: Path) -> None:
    binary = release_or_skip(version)
    server = NatsServer(binary=binary).start()
    js = Js(server.url)
    try:
        d = tmp_path / "m"
        manifest(d, "streams.yaml", SOURCED)
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
        assert rc == 0, out + err
        stored = {}
        for name in ("WITH_SUBJECTS", "ONLY_SOURCES", "SHORT_AGE", "A_MIRROR"):
            info = js.stream(name)
            assert info is not None, name
            stored[name] = info["config"].get("duplicate_window", 0)
        defaulted = (parse_version(version) or (0, 0, 0)) < (2, 14, 0)
        minute2, s30 = 120_000_000_000, 30_000_000_000
        assert stored == {
            "WITH_SUBJECTS": minute2 if defaulted else 0,
            "ONLY_SOURCES": minute2 if defaulted else 0,
            "SHORT_AGE": s30 if defaulted else 0,
            "A_MIRROR": 0,
        }
        rc, out, err = run("plan", str(d), "--server", server.url)
        assert rc == 0 and out.startswith("No changes."), out + err
    finally:
        js.close()
        server.stop()
