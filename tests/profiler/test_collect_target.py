"""`jsops collect` target options against a real nats-server that requires TLS (client certificates,
TLS-first handshake) and a password: natscli context files, natscli flag spellings, and no secret in
any output. The CA and certificates are generated in the test's temporary directory with openssl."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import ssl
import subprocess
import sys
from pathlib import Path

import nats
import pytest
from natsserver import NatsServer

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command"),
]
COLLECT = "import sys; from jsops.profiler.collect import main; sys.exit(main(sys.argv[1:]))"
PASSWORD = "pw-9f3c1e-never-printed"


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _pki(d: Path) -> dict[str, Path]:
    """A throwaway CA, a server certificate for 127.0.0.1 and a client certificate."""
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=jsops test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        cwd=d,
    )
    for name, ext in (
        ("server", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth"),
        ("client", "extendedKeyUsage=clientAuth"),
    ):
        (d / f"{name}.ext").write_text(ext + "\n")
        _openssl(
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            f"/CN=jsops test {name}",
            "-keyout",
            f"{name}.key",
            "-out",
            f"{name}.csr",
            cwd=d,
        )
        _openssl(
            "x509",
            "-req",
            "-in",
            f"{name}.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "1",
            "-extfile",
            f"{name}.ext",
            "-out",
            f"{name}.pem",
            cwd=d,
        )
    return {k: d / f"{k}" for k in ("ca.pem", "server.pem", "server.key", "client.pem", "client.key")}


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    d = tmp_path_factory.mktemp("pki")
    pki = _pki(d)
    srv = NatsServer(
        extra_config=(
            "tls {\n"
            f"  cert_file: {str(pki['server.pem'])!r}\n  key_file: {str(pki['server.key'])!r}\n"
            f"  ca_file: {str(pki['ca.pem'])!r}\n  verify: true\n  handshake_first: true\n"
            "}\n"
            f"authorization {{ user: collector, password: {PASSWORD!r} }}\n"
        )
    )
    srv.start()
    try:
        asyncio.run(_make_stream(srv.port, pki))
        yield srv, pki
    finally:
        srv.stop()


async def _make_stream(port: int, pki: dict[str, Path]) -> None:
    ctx = ssl.create_default_context(cafile=str(pki["ca.pem"]))
    ctx.load_cert_chain(str(pki["client.pem"]), str(pki["client.key"]))
    nc = await nats.connect(
        f"tls://127.0.0.1:{port}",
        tls=ctx,
        tls_handshake_first=True,
        user="collector",
        password=PASSWORD,
        allow_reconnect=False,
    )
    js = nc.jetstream()
    await js.add_stream(name="TLSDEMO", subjects=["tlsdemo.>"])
    await js.publish("tlsdemo.a", b"x")
    await nc.close()


def _collect(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", COLLECT, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        cwd=Path(__file__).parent,
    )


def _snapshots(out: Path) -> list[dict[str, object]]:
    rows = []
    for p in out.glob("*.jsonl"):
        rows += [json.loads(line) for line in p.read_text().splitlines()]
    return [r for r in rows if "state" in r]


def test_natscli_context_with_tls_first_client_cert_and_password(tls_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    srv, pki = tls_server
    ctx_dir = tmp_path / "xdg" / "nats" / "context"
    ctx_dir.mkdir(parents=True)
    (ctx_dir / "secure.json").write_text(
        json.dumps(
            {
                "url": f"tls://127.0.0.1:{srv.port}",
                "user": "collector",
                "password": PASSWORD,
                "ca": str(pki["ca.pem"]),
                "cert": str(pki["client.pem"]),
                "key": str(pki["client.key"]),
                "tls_first": True,
            }
        )
    )
    out = tmp_path / "t"
    r = _collect(
        ["--context", "secure", "--no-config", str(out), "--duration", "2s", "--snapshot-interval", "500ms"],
        env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")},
    )
    assert r.returncode == 0, r.stderr
    assert PASSWORD not in r.stderr + r.stdout
    assert f"collecting from tls://127.0.0.1:{srv.port}" in r.stderr
    snaps = _snapshots(out)
    assert snaps and {s["config"]["name"] for s in snaps} == {"TLSDEMO"}  # type: ignore[index]
    assert all(s["state"]["messages"] == 1 for s in snaps)  # type: ignore[index]


def test_natscli_flag_spellings(tls_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    srv, pki = tls_server
    out = tmp_path / "t"
    r = _collect(
        [
            "--server",
            f"tls://127.0.0.1:{srv.port}",
            "--user",
            "collector",
            "--password",
            PASSWORD,
            "--tlsca",
            str(pki["ca.pem"]),
            "--tlscert",
            str(pki["client.pem"]),
            "--tlskey",
            str(pki["client.key"]),
            "--tlsfirst",
            "--no-config",
            str(out),
            "--duration",
            "1s",
            "--snapshot-interval",
            "300ms",
        ]
    )
    assert r.returncode == 0, r.stderr
    assert PASSWORD not in r.stderr and _snapshots(out)


@pytest.mark.parametrize(
    "drop, needle",
    [
        ("cert", "cannot connect"),  # the server requires a client certificate
        ("password", "Authorization Violation"),  # wrong password
    ],
)
def test_refused_connections_fail_cleanly_without_secrets(
    tls_server,
    tmp_path: Path,
    drop: str,  # type: ignore[no-untyped-def]
    needle: str,
) -> None:
    srv, pki = tls_server
    password = "wrong-" + PASSWORD if drop == "password" else PASSWORD
    args = [
        "--server",
        f"tls://collector:{password}@127.0.0.1:{srv.port}",
        "--tls-ca",
        str(pki["ca.pem"]),
        "--tls-first",
        "--no-config",
        str(tmp_path / "t"),
        "--duration",
        "1s",
        "--connect-timeout",
        "5s",
    ]
    if drop != "cert":
        args += ["--tls-cert", str(pki["client.pem"]), "--tls-key", str(pki["client.key"])]
    r = _collect(args)
    assert r.returncode == 1 and needle in r.stderr, r.stderr
    assert password not in r.stderr and "Traceback" not in r.stderr


def test_unreadable_tls_file_and_unknown_context_exit_2(tmp_path: Path) -> None:
    r = _collect(
        ["--server", "tls://127.0.0.1:1", "--tls-ca", str(tmp_path / "missing.pem"), "--no-config", str(tmp_path / "t")]
    )
    assert r.returncode == 2 and "cannot load TLS files" in r.stderr, r.stderr
    r = _collect(["--context", "nope", "--no-config", str(tmp_path / "t")], env={"XDG_CONFIG_HOME": str(tmp_path)})
    assert r.returncode == 2 and "unknown context 'nope'" in r.stderr, r.stderr


def test_client_errors_are_printed_without_secrets() -> None:
    from jsops.profiler.collect import _safe_error
    from jsops.reconciler.client import Target

    t = Target(servers=("tls://bob:hunter2@h1:4222", "nats://s3cr3tTok@h2:4222"), password="pw-1", token="tok-2")
    text = _safe_error(RuntimeError("hunter2 s3cr3tTok pw-1 tok-2 via tls://bob:hunter2@h1:4222"), t)
    assert text == "RuntimeError: *** *** *** *** via tls://h1:4222"
