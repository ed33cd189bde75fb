"""``--creds`` and ``--nkey`` against real nats-servers (issue 12: they failed with "No module named
'nkeys'"). The operator, account and user JWTs are made here: JWTs are base64url JSON signed with
ed25519 nkeys (``alg: ed25519-nkey``), the issuer's public key in ``iss``, the subject's in ``sub``."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nkeys
import pytest

from .helpers import NatsServer, manifest, run

pytestmark = pytest.mark.integration

STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: ORDERS}\nspec: {subjects: ['orders.>']}\n"


def keypair(prefix: int) -> tuple[bytes, Any]:
    seed = nkeys.encode_seed(os.urandom(32), prefix)
    return seed, nkeys.from_seed(bytearray(seed))


def public(kp: Any) -> str:
    return kp.public_key.decode()


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign_jwt(issuer: Any, subject: str, name: str, nats: dict[str, Any]) -> str:
    claims: dict[str, Any] = {"iat": int(time.time()), "iss": public(issuer), "name": name, "sub": subject}
    # jti: base32 of a SHA-512/256 of the claims without it (the servers do not check it; nsc sets it)
    claims["jti"] = (
        base64.b32encode(hashlib.new("sha512_256", json.dumps(claims).encode()).digest()).decode().rstrip("=")
    )
    claims["nats"] = {**nats, "version": 2}
    head = b64(json.dumps({"typ": "JWT", "alg": "ed25519-nkey"}).encode())
    body = b64(json.dumps(claims).encode())
    sig = issuer.sign(f"{head}.{body}".encode())
    return f"{head}.{body}.{b64(sig)}"


@pytest.fixture
def operator_mode(tmp_path: Path) -> Iterator[tuple[NatsServer, Path]]:
    """A server trusting a fresh operator, its account (JetStream on) preloaded in a memory
    resolver, and a creds file for a user of that account."""
    _, op = keypair(nkeys.PREFIX_BYTE_OPERATOR)
    _, acct = keypair(nkeys.PREFIX_BYTE_ACCOUNT)
    user_seed, user = keypair(nkeys.PREFIX_BYTE_USER)
    op_jwt = sign_jwt(op, public(op), "OP", {"type": "operator"})
    unlimited = {
        "subs": -1,
        "data": -1,
        "payload": -1,
        "imports": -1,
        "exports": -1,
        "wildcards": True,
        "conn": -1,
        "leaf": -1,
        "mem_storage": -1,
        "disk_storage": -1,
        "streams": -1,
        "consumer": -1,
    }
    acct_jwt = sign_jwt(op, public(acct), "APP", {"type": "account", "limits": unlimited})
    user_jwt = sign_jwt(
        acct, public(user), "deployer", {"type": "user", "pub": {}, "sub": {}, "subs": -1, "data": -1, "payload": -1}
    )
    creds = tmp_path / "deployer.creds"
    creds.write_text(
        f"-----BEGIN NATS USER JWT-----\n{user_jwt}\n------END NATS USER JWT------\n\n"
        f"-----BEGIN USER NKEY SEED-----\n{user_seed.decode()}\n------END USER NKEY SEED------\n"
    )
    creds.chmod(0o600)
    _, sys_acct = keypair(nkeys.PREFIX_BYTE_ACCOUNT)  # JetStream needs a system account in operator mode
    sys_jwt = sign_jwt(op, public(sys_acct), "SYS", {"type": "account"})
    server = NatsServer(
        extra_config=(
            f"operator: {op_jwt}\nsystem_account: {public(sys_acct)}\nresolver: MEMORY\n"
            f"resolver_preload: {{ {public(acct)}: {acct_jwt}\n {public(sys_acct)}: {sys_jwt} }}\n"
        )
    ).start()
    try:
        yield server, creds
    finally:
        server.stop()


def test_plan_and_apply_with_creds_in_operator_mode(
    operator_mode: tuple[NatsServer, Path], tmp_path: Path, monkeypatch
) -> None:
    server, creds = operator_mode
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", STREAM)
    rc, out, err = run("plan", "m", "--server", server.url)  # no credentials: refused
    assert rc == 1 and "jsops: error:" in err and "Traceback" not in err, err
    rc, out, err = run("plan", "m", "--server", server.url, "--creds", str(creds))
    assert rc == 2 and "ORDERS" in out, out + err
    rc, out, err = run("apply", "m", "--server", server.url, "--creds", str(creds), "--yes")
    assert rc == 0, out + err
    rc, out, err = run("plan", "m", "--server", server.url, "--creds", str(creds))
    assert rc == 0, out + err
    seed = creds.read_text().split("SEED-----\n")[1].split("\n")[0]
    assert seed not in out + err


def test_plan_with_an_nkey_user(tmp_path: Path, monkeypatch) -> None:
    seed, user = keypair(nkeys.PREFIX_BYTE_USER)
    server = NatsServer(extra_config=f"authorization {{ users = [ {{ nkey: {public(user)} }} ] }}").start()
    try:
        monkeypatch.chdir(tmp_path)
        manifest(tmp_path / "m", "orders.yaml", STREAM)
        seed_file = tmp_path / "user.nk"
        seed_file.write_bytes(seed + b"\n")
        rc, out, err = run("plan", "m", "--server", server.url, "--nkey", str(seed_file))
        assert rc == 2 and "ORDERS" in out, out + err
        rc, out, err = run("apply", "m", "--server", server.url, "--nkey", str(seed_file), "--yes")
        assert rc == 0 and seed.decode() not in out + err, out + err
        _, other = keypair(nkeys.PREFIX_BYTE_USER)  # a key the server does not know: refused, plainly
        other_file = tmp_path / "other.nk"
        other_file.write_bytes(other.seed)
        rc, out, err = run("plan", "m", "--server", server.url, "--nkey", str(other_file))
        assert rc == 1 and "jsops: error:" in err and "Traceback" not in err and other.seed.decode() not in err, err
    finally:
        server.stop()
