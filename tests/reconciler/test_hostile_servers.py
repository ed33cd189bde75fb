"""Servers and monitoring endpoints that misbehave (issue 22 item 8): a stream list that never
ends, answers of odd JSON types, a monitor that drips or sends a gigabyte. Each ends quickly with
a one-line error naming what was wrong, never "internal error", a hang or unbounded memory.
The servers are fakes written for the test (tests/fakeservers.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from fakeservers import FakeHttp, FakeNats

from .helpers import manifest, run

ACCOUNT_INFO = {
    "type": "io.nats.jetstream.api.v1.account_info_response",
    "memory": 0,
    "storage": 0,
    "streams": 0,
    "consumers": 0,
    "limits": {"max_memory": -1, "max_storage": -1, "max_streams": -1, "max_consumers": -1},
    "api": {"total": 0, "errors": 0},
}
NOT_FOUND = {"error": {"code": 404, "err_code": 10059, "description": "stream not found"}}
STREAM = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec:
  subjects: ["orders.>"]
  storage: memory
"""


def _info(name: str, **state: Any) -> dict[str, Any]:
    return {
        "config": {
            "name": name,
            "subjects": [f"{name.lower()}.>"],
            "retention": "limits",
            "storage": "memory",
            "num_replicas": 1,
            "max_age": 0,
        },
        "state": {"messages": 0, "bytes": 0, "consumer_count": 0, **state},
        "created": "2026-01-01T00:00:00Z",
    }


def _api(overrides: dict[str, Any]) -> Any:
    def answer(subject: str, payload: bytes) -> Any:
        api = subject.removeprefix("$JS.API.")
        for prefix, value in overrides.items():
            if api.startswith(prefix):
                return value(payload) if callable(value) else value
        if api == "INFO":
            return ACCOUNT_INFO
        if api == "STREAM.LIST":
            return {
                "type": "io.nats.jetstream.api.v1.stream_list_response",
                "total": 0,
                "offset": 0,
                "limit": 256,
                "streams": [],
            }
        return NOT_FOUND

    return answer


def _never_ending(payload: bytes) -> dict[str, Any]:
    offset = int(json.loads(payload or b"{}").get("offset", 0))
    return {
        "total": offset + 10**9,
        "offset": offset,
        "limit": 256,
        "streams": [_info(f"S{offset + i}") for i in range(256)],
    }


def _plan(tmp_path: Path, url: str, *extra: str) -> tuple[int, str, str, float]:
    manifest(tmp_path / "m", "orders.yaml", STREAM)
    started = time.monotonic()
    rc, out, err = run("plan", str(tmp_path / "m"), "--server", url, *extra)
    return rc, out, err, time.monotonic() - started


def _audit(url: str) -> tuple[int, str, str]:
    return run("audit", "--server", url, "--no-config")


def _pages(fake: FakeNats) -> int:
    return len([r for r in fake.requests if r == "$JS.API.STREAM.LIST"])


def test_a_stream_list_that_never_ends(tmp_path: Path) -> None:
    """A listing whose first page announces a billion streams: plan and audit (one listing,
    ``JsClient.apages``) stop at that page with the same error, before audit's per-stream work starts."""
    with FakeNats(_api({"STREAM.LIST": _never_ending})) as fake:
        rc, out, err, took = _plan(tmp_path, fake.url)
        planned = _pages(fake)
        fake.requests.clear()
        arc, aout, aerr = _audit(fake.url)
        audited = _pages(fake)
    assert (planned, audited) == (1, 1)  # was 394 pages (100,096 streams) each, audit's taking 55 s and 489 MB
    said = "the server's STREAM.LIST announces 1000000000 items, more than the 100000 jsops reads; jsops reads no more"
    assert rc == 1 and said in err, out + err
    assert arc == 2 and said in aerr, aout + aerr
    for e in (err, aerr):
        assert "internal error" not in e and "Traceback" not in e


def _creeping(payload: bytes) -> dict[str, Any]:
    """A list whose total stays one page ahead of the reader: it says it ends, and never does."""
    offset = int(json.loads(payload or b"{}").get("offset", 0))
    return {
        "total": offset + 512,
        "offset": offset,
        "limit": 256,
        "streams": [_info(f"S{offset + i}") for i in range(256)],
    }


def test_a_list_that_never_ends_while_announcing_an_end_has_one_bound_for_plan_and_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list whose total moves ahead page by page: plan and audit read it to the same item bound (made
    small here) and stop with the same error, having asked for the same pages."""
    from jsops.reconciler.client import jsclient

    monkeypatch.setattr(jsclient, "MAX_LIST_ITEMS", 2000)
    with FakeNats(_api({"STREAM.LIST": _creeping})) as fake:
        rc, out, err, _ = _plan(tmp_path, fake.url)
        planned = sorted(fake.requests)
        fake.requests.clear()
        arc, aout, aerr = _audit(fake.url)
        audited = sorted(r for r in fake.requests if r != "$JS.API.INFO")  # audit asks for the account's INFO beside
    said = "the server's STREAM.LIST announces 2048 items, more than the 2000 jsops reads"
    assert rc == 1 and said in err, out + err
    assert arc == 2 and said in aerr, aout + aerr
    assert planned == audited and len(planned) <= 2000 // 256 + 1


def test_a_consumer_list_that_says_it_never_ends(tmp_path: Path) -> None:
    """The same bound on a stream's consumer listing: refused at its first page."""
    answers = {
        "STREAM.LIST": {"total": 1, "streams": [_info("ORDERS", consumer_count=1)]},
        "CONSUMER.LIST": {"total": 10**9, "consumers": []},
    }
    with FakeNats(_api(answers)) as fake:
        arc, aout, aerr = _audit(fake.url)
        pages = [r for r in fake.requests if r.startswith("$JS.API.CONSUMER.LIST.")]
    assert arc == 2 and "CONSUMER.LIST announces 1000000000 items, more than the 100000 jsops reads" in aerr, (
        aout + aerr
    )
    assert pages == ["$JS.API.CONSUMER.LIST.ORDERS"]


@pytest.mark.parametrize(
    ("prefix", "value", "expected"),
    [
        (
            "STREAM.LIST",
            {"total": 1, "streams": "many"},
            "STREAM.LIST is malformed: streams is a string, expected a list",
        ),
        ("STREAM.LIST", {"total": {}, "streams": [_info("A")]}, "total is an object, expected an integer"),
        (
            "STREAM.LIST",
            {"total": 1, "streams": [_info("A", messages="many")]},
            "streams[0] at offset 0) is malformed: state.messages is a string",
        ),
        (
            "STREAM.LIST",
            {"total": 1, "streams": [{**_info("A"), "config": [1]}]},
            "config is a list, expected an object",
        ),
        (
            "STREAM.LIST",
            {"total": 1, "streams": [{**_info("A"), "config": {"name": 7}}]},
            "config.name is an integer, expected a string",
        ),
        (
            "STREAM.LIST",
            {"total": 1, "streams": [{**_info("A"), "config": {"name": "A", "max_age": "1h"}}]},
            "config.max_age is a string",
        ),
        (
            "STREAM.LIST",
            {"total": 1, "streams": [{**_info("A"), "config": {"name": "A", "metadata": ["x"]}}]},
            "config.metadata is a list",
        ),
        (
            "STREAM.LIST",
            {"total": 1, "streams": [_info("ORDERS", consumer_count=1)]},
            None,
        ),  # consumers asked: see below
        ("STREAM.LIST", {"error": "no"}, "error is a string, expected an object"),
        ("STREAM.LIST", [1, 2], "is not a JSON object"),
        ("STREAM.LIST", b"\xff\xfe", "invalid JSON"),
        ("INFO", {"limits": [1]}, "INFO is malformed: limits is a list, expected an object"),
        ("INFO", {"tiers": {"R1": 5}}, "INFO is malformed: tiers.R1 is an integer, expected an object"),
    ],
)
def test_odd_json_types_name_the_field(tmp_path: Path, prefix: str, value: Any, expected: str | None) -> None:
    overrides = {prefix: value}
    if expected is None:  # a consumer page of the wrong shape
        overrides["CONSUMER.LIST"] = {
            "total": 1,
            "consumers": [{"name": "c", "config": {"ack_wait": "30s"}, "delivered": {}}],
        }
        expected = (
            "CONSUMER.LIST (consumers[0] at offset 0) is malformed: config.ack_wait is a string, expected an integer"
        )
    with FakeNats(_api(overrides)) as fake:
        rc, out, err, _ = _plan(tmp_path, fake.url)
    assert rc == 1, out + err
    assert expected in err, err
    assert "internal error" not in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2  # the target line, then one line of error


def _drip(path: str, wfile: Any) -> None:
    wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")
    wfile.flush()
    while True:  # one byte every half second, for ever
        wfile.write(b" ")
        wfile.flush()
        time.sleep(0.5)


def _drip_headers(path: str, wfile: Any) -> None:
    wfile.write(b"HTTP/1.1 200 OK\r\n")
    while True:
        wfile.write(b"X")
        wfile.flush()
        time.sleep(0.5)


def _gigabyte(announce: bool) -> Any:
    def send(path: str, wfile: Any) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        wfile.write(head + (b"Content-Length: 1073741824\r\n" if announce else b"") + b"Connection: close\r\n\r\n")
        wfile.write(b'{"x": "')
        block = b"0" * (1 << 20)
        for _ in range(1024):
            wfile.write(block)

    return send


@pytest.mark.parametrize(
    ("behave", "expected"),
    [
        (_drip, "did not answer within 10 s"),
        (_drip_headers, "did not answer within 10 s"),
        (_gigabyte(True), "announced a body of 1073741824 bytes, more than the 16777216 bytes jsops reads"),
        (_gigabyte(False), "sent more than the 16777216 bytes jsops reads"),
    ],
)
def test_monitor_endpoints_are_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, behave: Any, expected: str
) -> None:
    import resource

    from jsops.reconciler.cli.discover import main as discover

    monkeypatch.chdir(tmp_path)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with FakeNats(_api({})) as fake, FakeHttp(behave) as http:
        started = time.monotonic()
        rc, out, err, _ = _plan(tmp_path, fake.url, "--monitor", http.url)
        took = time.monotonic() - started
        assert rc == 1, out + err
        assert expected in err and "cannot read the server's limits from" in err, err
        assert "internal error" not in err and len(err.strip().splitlines()) == 2
        assert took < 60
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stderr(buf):
            assert discover(["-s", fake.url, "--monitor", http.url]) == 1
        assert expected in buf.getvalue(), buf.getvalue()
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before < 200 * 1024  # KiB: far below the gigabyte
