"""Target resolution as natscli does it: flags, NATS_* variables, the context named by --context or
NATS_CONTEXT, the jsops config's default context, natscli's selected context (context.txt) in a
real natscli context directory under a temporary HOME; and the errors a wrong target gives."""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import time
from pathlib import Path

import pytest
from natsserver import free_port, server_binary
from procs import spawn

from jsops.linter.config import load_config
from jsops.reconciler.client import TargetError, add_target_arguments, selected_context, split_servers, target_from_args

from .helpers import NatsServer, manifest, run

STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: ORDERS}\nspec: {subjects: ['orders.>'], max_age: 1h}\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary HOME with a natscli context directory; no NATS_* variable set."""
    h = tmp_path / "home"
    (h / ".config" / "nats" / "context").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for var in (
        "NATS_URL",
        "NATS_CONTEXT",
        "NATS_USER",
        "NATS_PASSWORD",
        "NATS_CREDS",
        "NATS_NKEY",
        "NATS_CA",
        "NATS_CERT",
        "NATS_KEY",
    ):
        monkeypatch.delenv(var, raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return h


def context(home: Path, name: str, url: str, select: bool = False, **extra: str) -> None:
    d = home / ".config" / "nats"
    (d / "context" / f"{name}.json").write_text(json.dumps({"url": url, **extra}))
    if select:
        (d / "context.txt").write_text(name)


def args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_target_arguments(p)
    return p.parse_args(list(argv))


def resolve(*argv: str, config: object = None) -> tuple[str, str]:
    t = target_from_args(args(*argv), config)
    return t.display(), t.origin


def test_precedence_follows_natscli(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve() == ("nats://127.0.0.1:4222", "the default server nats://127.0.0.1:4222")
    context(home, "sel", "nats://selected:4222", select=True)
    context(home, "other", "nats://other:4222")
    assert selected_context() == "sel"
    assert resolve() == ("nats://selected:4222", "natscli selected context sel")
    monkeypatch.setenv("NATS_CONTEXT", "other")
    assert resolve() == ("nats://other:4222", "context other from NATS_CONTEXT")
    assert resolve("--context", "sel") == ("nats://selected:4222", "context sel")
    monkeypatch.setenv("NATS_URL", "nats://env:4222")
    assert resolve() == ("nats://env:4222", "NATS_URL over context other from NATS_CONTEXT")
    assert resolve("-s", "nats://flag:4222") == ("nats://flag:4222", "--server")


def test_jsops_config_default_context_beats_the_natscli_selection(home: Path) -> None:
    context(home, "sel", "nats://selected:4222", select=True)
    Path(".jsops.yaml").write_text("contexts:\n  default: {server: 'nats://configured:4222'}\n")
    cfg = load_config(None)
    url, origin = resolve(config=cfg)
    assert url == "nats://configured:4222" and origin.startswith("context default of") and ".jsops.yaml" in origin


def test_env_credentials_and_natscli_flag_spellings(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATS_USER", "alice")
    monkeypatch.setenv("NATS_PASSWORD", "pw")
    t = target_from_args(
        args("--tlsca", "ca.pem", "--tlscert", "c.pem", "--tlskey", "k.pem", "--tlsfirst", "--js-api-prefix", "X.API")
    )
    assert (t.user, t.password, t.tls_ca, t.tls_cert, t.tls_key, t.tls_first, t.api) == (
        "alice",
        "pw",
        "ca.pem",
        "c.pem",
        "k.pem",
        True,
        "X.API",
    )
    t = target_from_args(args("--tls-ca", "a.pem", "--user", "bob"))
    assert (t.tls_ca, t.user) == ("a.pem", "bob")  # flags beat the variables


def test_empty_and_wrong_scheme_urls_are_errors(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TargetError, match="--server is empty"):
        resolve("-s", "")
    with pytest.raises(TargetError, match=r"http://.* scheme http://, not one of nats://, tls://, ws://, wss://"):
        resolve("-s", "http://127.0.0.1:8222")
    monkeypatch.setenv("NATS_URL", " , ")
    with pytest.raises(TargetError, match="NATS_URL is empty"):
        resolve()
    assert split_servers("a:4222, tls://b:4222") == ("a:4222", "tls://b:4222")
    monkeypatch.delenv("NATS_URL")
    context(home, "web", "https://x:443", select=True)
    with pytest.raises(TargetError, match="natscli selected context web: url: https://x:443 has the scheme"):
        resolve()
    (home / ".config" / "nats" / "context.txt").write_text("gone\n")
    with pytest.raises(TargetError, match="the natscli selected context .* unknown context 'gone'"):
        resolve()


@pytest.mark.integration
def test_plan_apply_export_use_the_same_target(home: Path, server: NatsServer, monkeypatch: pytest.MonkeyPatch) -> None:
    manifest(Path("m"), "orders.yaml", STREAM)
    context(home, "local", server.url, select=True)
    rc, out, err = run("plan", "m")  # natscli's selected context, no flag, no variable
    assert (
        rc == 2
        and f"on {server.url} (context default, local):" in out
        and f"jsops: target {server.url} (natscli selected context local)" in err
    )
    (home / ".config" / "nats" / "context.txt").unlink()
    monkeypatch.setenv("NATS_URL", server.url)
    rc, out, err = run("apply", "m", "--yes")
    assert rc == 0 and f"jsops: target {server.url} (NATS_URL)" in err, out + err
    rc, out, err = run("export", "out")
    assert rc == 0 and "Exported 1 streams" in out and "(NATS_URL)" in err
    rc, out, err = run("plan", "m")
    assert rc == 0 and "No changes." in out


@pytest.mark.integration
def test_target_errors_say_what_is_wrong(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    manifest(Path("m"), "orders.yaml", STREAM)
    rc, out, err = run("plan", "m", "-s", "")
    assert rc == 1 and "--server is empty" in err and "127.0.0.1:4222" not in err.split("empty")[0]
    rc, out, err = run("plan", "m", "-s", "http://127.0.0.1:8222")
    assert rc == 1 and "has the scheme http://" in err
    port = free_port()
    proc = spawn(
        [server_binary(), "-a", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for _ in range(200):  # until the server takes connections
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        rc, out, err = run("plan", "m", "-s", f"nats://127.0.0.1:{port}")
        assert rc == 1 and "JetStream is not enabled" in err and "Traceback" not in err
    finally:
        proc.terminate()
        proc.wait()
