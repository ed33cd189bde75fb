"""Passwords in URLs (issue 12): parsed as the NATS clients parse them, never printed.

Unit tests of :mod:`reconciler.urls` with hostile passwords, and real nats-servers whose password
holds ``@``, ``/`` and ``,``: reachable with it, and no part of it in plan text, plan JSON, errors,
the controller's event log, or the ``--monitor`` path (basic auth through a proxy in front of the
server's monitoring port)."""

from __future__ import annotations

import base64
import http.server
import io
import json
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from natsserver import free_port

from jsops.reconciler.client import (
    Target,
    TargetError,
    URLError,
    argv_secrets,
    parse_servers,
    redact_servers,
    redact_url,
    scrub,
)

from .helpers import Js, NatsServer, manifest, run

SECRET = "p@ss/w,rd"
ENC = quote(SECRET, safe="")  # p%40ss%2Fw%2Crd
# pieces that must never show: every 3-character window of the secret, raw and encoded
FRAGMENTS = sorted({SECRET[i : i + 3] for i in range(len(SECRET) - 2)} | {ENC[i : i + 5] for i in range(len(ENC) - 4)})


def leaks(text: str) -> list[str]:
    return [f for f in FRAGMENTS if f in text]


# -- unit ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "bare", "user", "password"),
    [
        (f"nats://admin:{ENC}@h:4222", "nats://h:4222", "admin", SECRET),
        ("nats://admin:p@ss@h:4222", "nats://h:4222", "admin", "p@ss"),  # last '@' ends the user info
        ("nats://admin:p/w@h:4222", "nats://h:4222", "admin", "p/w"),
        ("nats://admin:p%40ss@h", "nats://h", "admin", "p@ss"),
        ("tok@host", "host", "tok", None),
        ("tok%2Fx@host:4222", "host:4222", "tok/x", None),
        ("user:@host", "host", "user", ""),
        (f"nats://u:{ENC}@[::1]:4222", "nats://[::1]:4222", "u", SECRET),
        ("tls://[fe80::1%25eth0]:4443", "tls://[fe80::1%25eth0]:4443", None, None),
        ("host", "host", None, None),
    ],
)
def test_parse_url(url: str, bare: str, user: str | None, password: str | None) -> None:
    u = parse_servers(url)[0]
    assert (u.bare(), u.user, u.password) == (bare, user, password)
    assert redact_servers(url) == bare


def test_several_urls_and_their_secrets() -> None:
    urls = parse_servers(f"nats://a:{ENC}@h1:1, nats://a:{ENC}@h2:2,h3")
    assert [u.bare() for u in urls] == ["nats://h1:1", "nats://h2:2", "h3"]
    assert {u.password for u in urls[:2]} == {SECRET}
    assert redact_servers(f"nats://a:{ENC}@h1:1,nats://a:{ENC}@h2:2") == "nats://h1:1,nats://h2:2"


@pytest.mark.parametrize(
    "url",
    [
        f"nats://admin:{SECRET}@127.0.0.1:4222",  # the raw comma splits the list
        "nats://u:1234,ab@h:4222",  # splits into a valid-looking nats://u:1234 and ab@h
        "nats://u:x,y@h2",
        "nats://admin:p@ss/w@h/path",
    ],
)
def test_raw_comma_passwords_are_refused_without_echo(url: str) -> None:
    with pytest.raises(URLError) as exc:
        parse_servers(url)
    msg = str(exc.value)
    assert "admin" not in msg and "1234" not in msg and "ss/w" not in msg and "x,y" not in msg
    shown = redact_servers(url)
    assert not leaks(shown) and "1234" not in shown and "x,y" not in shown and "ab@" not in shown
    with pytest.raises(TargetError):
        Target(servers=(url,))


def test_redact_url_never_raises_and_hides() -> None:
    assert redact_url("nats://u:p@ss/w,rd@host:1") == "nats://host:1"
    assert redact_url("nats://garbage:port") == "nats://***"
    assert redact_url(f"http://mon:{ENC}@127.0.0.1:8222/varz") == "http://127.0.0.1:8222/varz"


def test_scrub_and_argv_secrets() -> None:
    argv = [
        "m",
        "--server",
        f"nats://admin:{ENC}@h:1",
        "--password=hunter2",
        "--token",
        "tok",
        "--monitor",
        "http://x:y%2Fz@m",
    ]
    found = argv_secrets(argv)
    assert SECRET in found and ENC in found and "hunter2" in found and "tok" in found and "y/z" in found
    text = f"boom nats://admin:{ENC}@h:1 said {SECRET} and hunter2 and http://u:v@w"
    out = scrub(text, found)
    assert not leaks(out) and "hunter2" not in out and "u:v" not in out and " nats://h:1 " in out
    # a raw comma password on the command line is still hidden from messages
    assert not leaks(scrub(f"x {SECRET} y", argv_secrets(["-s", f"nats://admin:{SECRET}@h"])))


def test_target_lifts_url_credentials_into_options() -> None:
    t = Target(servers=(f"nats://admin:{ENC}@h1:1", f"nats://admin:{ENC}@h2:2"))
    opts = t.connect_options()
    assert opts["servers"] == ["nats://h1:1", "nats://h2:2"]
    assert (opts["user"], opts["password"]) == ("admin", SECRET)
    assert Target(servers=("nats://tok@h",)).connect_options()["token"] == "tok"
    assert t.display() == "nats://h1:1,nats://h2:2" and SECRET not in repr(t)
    with pytest.raises(TargetError, match="different credentials"):
        Target(servers=("nats://a:b@h1", "nats://a:c@h2")).connect_options()
    m = Target(monitor=f"http://mon:{ENC}@127.0.0.1:8222/")
    assert m.monitor_url() == ("http://127.0.0.1:8222/", "mon", SECRET)
    assert Target(monitor="127.0.0.1:8222").monitor_url() == ("http://127.0.0.1:8222", None, None)


# -- real servers ----------------------------------------------------------------------------------

STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: ORDERS}\nspec: {subjects: ['orders.>']}\n"


@pytest.fixture
def secured() -> Iterator[NatsServer]:
    s = NatsServer(extra_config=f'authorization {{ user: admin, password: "{SECRET}" }}').start()
    try:
        yield s
    finally:
        s.stop()


@pytest.mark.integration
def test_plan_reaches_a_server_with_a_hostile_password_and_prints_none_of_it(
    secured: NatsServer, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", STREAM)
    host = f"127.0.0.1:{secured.port}"
    for url in (
        f"nats://admin:{ENC}@{host}",
        f"admin:{ENC}@{host}",
        f"nats://admin:{ENC}@{host},nats://admin:{ENC}@{host}",
    ):
        rc, out, err = run("plan", "m", "--server", url)
        assert rc == 2, err
        assert "ORDERS" in out and host in out and not leaks(out + err), out + err
        rc, out, err = run("plan", "m", "--server", url, "--format", "json", "--out", "plan.json")
        assert rc == 2 and not leaks(out + err + Path("plan.json").read_text())
        assert json.loads(out)["targets"][0]["target"].endswith(host)
    # raw '@' and '/' (no comma) work as nats.go reads them: up to the last '@'
    rc, out, err = run("apply", "m", "--server", f"nats://admin:p@ss/w%2Crd@{host}", "--yes")
    assert rc == 0 and not leaks(out + err), out + err
    js = Js(secured.url, user="admin", password=SECRET)
    try:
        assert js.streams() == ["ORDERS"]
    finally:
        js.close()
    # errors: a raw comma (refused), a wrong password (the server refuses), the password as a flag
    for args in (
        ["--server", f"nats://admin:{SECRET}@{host}"],
        ["--server", f"nats://admin:{ENC}x@{host}"],
        ["--server", f"nats://{host}", "--user", "admin", "--password", SECRET + "x"],
    ):
        rc, out, err = run("plan", "m", *args)
        assert rc == 1 and "jsops: error:" in err and not leaks(out + err), err


@pytest.mark.integration
def test_controller_event_log_holds_no_part_of_the_password(secured: NatsServer, tmp_path: Path) -> None:
    from jsops.reconciler.controller.cli import main

    manifest(tmp_path / "m", "orders.yaml", STREAM)
    log = tmp_path / "events.log"
    host = f"127.0.0.1:{secured.port}"
    good = [
        str(tmp_path / "m"),
        "--server",
        f"nats://admin:{ENC}@{host}",
        "--listen",
        "none",
        "--once",
        "--no-lease",
        "--log-file",
        str(log),
    ]
    assert main(good) == 0
    js = Js(secured.url, user="admin", password=SECRET)
    try:
        assert js.streams() == ["ORDERS"]
    finally:
        js.close()
    bad = [
        str(tmp_path / "m"),
        "--server",
        f"nats://admin:{ENC}zz@{host}",
        "--listen",
        "none",
        "--once",
        "--log-file",
        str(log),
    ]
    assert main(bad) != 0
    text = log.read_text()
    events = [json.loads(line) for line in text.splitlines()]  # pure JSON
    assert [e["event"] for e in events].count("started") == 2
    assert host in text and not leaks(text), text


class _BasicAuthProxy(http.server.ThreadingHTTPServer):
    """A monitoring port behind basic auth (as an ingress would put it): forwards GETs upstream."""

    def __init__(self, upstream: str, user: str, password: str) -> None:
        expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self.authorized = 0

        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.headers.get("Authorization") != expected:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="nats"')
                    self.end_headers()
                    return
                proxy.authorized += 1
                with urllib.request.urlopen(upstream + self.path, timeout=5) as resp:
                    body = resp.read()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.mark.integration
def test_monitor_url_with_user_and_hostile_password(tmp_path: Path, monkeypatch) -> None:
    http_port = free_port()
    server = NatsServer(
        jetstream_config="limits { duplicate_window: 30s }", extra_config=f"http: 127.0.0.1:{http_port}"
    ).start()
    proxy = _BasicAuthProxy(f"http://127.0.0.1:{http_port}", "mon", SECRET)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.chdir(tmp_path)
        manifest(tmp_path / "m", "orders.yaml", STREAM)
        mon = f"127.0.0.1:{proxy.server_address[1]}"
        rc, out, err = run(
            "plan", "m", "--server", server.url, "--monitor", f"http://mon:{ENC}@{mon}", "--format", "json"
        )
        assert rc == 2 and not leaks(out + err), out + err
        assert proxy.authorized == 1
        assert json.loads(out)["actions"][0]["config"]["duplicate_window"] == 30_000_000_000  # read from /varz
        rc, out, err = run("plan", "m", "--server", server.url, "--monitor", f"http://mon:{ENC}x@{mon}")
        assert rc == 1 and "HTTP 401" in err and mon in err and not leaks(out + err), err
        rc, out, err = run(
            "plan", "m", "--server", server.url, "--monitor", f"http://mon:{SECRET}@{mon}"
        )  # raw: works too
        assert rc == 2 and not leaks(out + err), err
    finally:
        proxy.shutdown()
        proxy.server_close()
        server.stop()


def test_event_log_scrubs_known_secrets() -> None:
    from jsops.reconciler.controller.loop import EventLog

    buf = io.StringIO()
    log = EventLog(buf, [SECRET])
    log("error", message=f"nats: auth {SECRET} for nats://admin:{ENC}@h", nested={"a": [SECRET]})
    assert not leaks(buf.getvalue()) and json.loads(buf.getvalue())["event"] == "error"


@pytest.mark.integration
def test_collect_reaches_the_server_and_prints_none_of_the_password(secured: NatsServer, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    code = "import sys; from jsops.profiler.collect import main; sys.exit(main(sys.argv[1:]))"
    out = tmp_path / "out"
    host = f"127.0.0.1:{secured.port}"
    for url, ok in ((f"nats://admin:{ENC}@{host}", True), (f"nats://admin:{ENC}zz@{host}", False)):
        r = subprocess.run(
            [
                sys.executable,
                "-c",
                code,
                "--server",
                url,
                "--no-config",
                str(out),
                "--duration",
                "1s",
                "--snapshot-interval",
                "500ms",
                "--connect-timeout",
                "5s",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(repo)},
        )
        assert (r.returncode == 0) == ok, r.stderr
        files = "".join(p.read_text() for p in out.glob("*.jsonl")) if out.exists() else ""
        assert not leaks(r.stdout + r.stderr + files), r.stdout + r.stderr
        if not ok:
            assert "Traceback" not in r.stderr and host in r.stderr, r.stderr


def test_short_secrets_do_not_blank_ordinary_words() -> None:
    from jsops.reconciler.controller.loop import EventLog

    buf = io.StringIO()
    EventLog(buf, ["app"])("applied", message="applied 3 actions to nats://app:app@h:1")
    assert json.loads(buf.getvalue()) == {
        "time": json.loads(buf.getvalue())["time"],
        "event": "applied",
        "message": "applied 3 actions to nats://h:1",
    }
    assert scrub("x hunter2 y", ["hunter2"]) == "x *** y"
