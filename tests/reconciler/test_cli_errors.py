"""Bad input gives a one-line error and exit 1, never a traceback; secrets are never printed."""

from __future__ import annotations

import json

import pytest

from .helpers import NatsServer, free_port_url, manifest, run

pytestmark = pytest.mark.integration

GOOD = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: A}
spec: {subjects: ["a.>"]}
"""


def check(rc: int, out: str, err: str, *needles: str) -> None:
    assert rc == 1, (out, err)
    assert "Traceback" not in out + err
    for n in needles:
        assert n in err, err


def test_bad_inputs(tmp_path):
    d = tmp_path / "m"
    manifest(d, "a.yaml", GOOD)
    check(*run("plan", str(d), "--server", free_port_url()), "cannot connect")
    check(*run("plan", str(tmp_path / "missing"), "--server", free_port_url()), "no such file")
    manifest(
        tmp_path / "bad",
        "b.yaml",
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: B}\nspec: {max_age: 1m, duplicate_window: 2m}\n",
    )
    check(*run("apply", str(tmp_path / "bad"), "--server", free_port_url(), "--yes"), "lint error")
    (tmp_path / "plan.json").write_text("{nope")
    check(*run("apply", "--plan", str(tmp_path / "plan.json"), "--server", free_port_url(), "--yes"), "not valid JSON")
    (tmp_path / "plan.json").write_text(
        json.dumps({"version": 1, "fingerprint": "x", "actions": [{"action": "create"}]})
    )
    check(*run("apply", "--plan", str(tmp_path / "plan.json"), "--server", free_port_url(), "--yes"), "action")
    check(*run("plan", str(d), "--context", "no-such-context"), "unknown context")
    rc, out, err = run(
        "plan", str(d), "--bogus-flag", "--no-detailed-exitcode"
    )  # argument errors: usage and exit 2, as in every command
    assert (
        rc == 2
        and err.startswith("usage: jsops plan")
        and "jsops plan: error: unrecognized arguments: --bogus-flag" in err
    )
    for flag in (
        "--detailed-exitcode",
        "--detailed",
    ):  # with it (or its abbreviation), 2 means changes only: as terraform, 1
        rc, out, err = run("plan", str(d), flag, "--bogus-flag", "--no-detailed-exitcode")
        assert rc == 1 and err.startswith("usage: jsops plan") and "unrecognized arguments: --bogus-flag" in err
    check(*run("plan", str(d), "--creds", str(tmp_path / "none.creds")), "not a readable file")


def test_secrets_are_never_printed(tmp_path):
    server = NatsServer(extra_config='authorization { user: admin, password: "Sup3rS3cret" }').start()
    try:
        d = tmp_path / "m"
        manifest(d, "a.yaml", GOOD)
        rc, out, err = run("plan", str(d), "--server", server.url, "--user", "admin", "--password", "Sup3rS3cret")
        assert rc == 2 and "Sup3rS3cret" not in out + err
        url = server.url.replace("nats://", "nats://admin:Sup3rS3cret@")
        rc, out, err = run("apply", str(d), "--server", url, "--yes")
        assert rc == 0 and "Sup3rS3cret" not in out + err and "admin" not in out + err
        rc, out, err = run("plan", str(d), "--server", url, "--format", "json")
        assert rc == 0 and "Sup3rS3cret" not in out + err
        rc, out, err = run("plan", str(d), "--server", server.url, "--user", "admin", "--password", "Wr0ngS3cret")
        assert rc == 1 and "Wr0ngS3cret" not in out + err and "Traceback" not in err
    finally:
        server.stop()


def test_unknown_context_and_bad_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    manifest(tmp_path / "m", "x.yaml", GOOD.replace("{name: A}", "{name: A, context: nowhere}"))
    check(*run("plan", "m"), "manifests route objects to context 'nowhere'", "unknown context 'nowhere'")
    check(*run("plan", "m", "--context", "../x"), "invalid context name")
    (tmp_path / ".jsops.yaml").write_text("contexts:\n  prod:\n    token: s3cr3t-inline\n")
    rc, out, err = run("plan", "m")
    check(rc, out, err, ".jsops.yaml", "contexts.prod.token")
    assert "s3cr3t-inline" not in out + err
