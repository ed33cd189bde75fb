"""One bounded HTTP GET of a nats-server monitoring endpoint (``/varz``, ``/jsz``).

A monitoring port is another party's server: it may drip its answer a byte at a time, send a
body of a gigabyte, or answer something that is not JSON. Every read here is bounded:

- ``deadline`` seconds for the whole exchange (connect, headers, body), enforced by a watchdog
  that shuts the socket down, so that a dripping server cannot reset a per-read timeout forever;
- ``max_bytes`` of body (announced by ``Content-Length`` or counted while reading);
- the body must be a JSON object.

Errors are :class:`MonitorError` with one line naming the URL (without user information).
"""

from __future__ import annotations

import base64
import http.client
import json
import socket
import ssl
import threading
import time
from typing import Any
from urllib.parse import urlsplit

__all__ = ["MonitorError", "get_json", "MONITOR_DEADLINE", "MONITOR_MAX_BYTES"]

MONITOR_DEADLINE = 10.0  # seconds for one whole request
MONITOR_MAX_BYTES = 16 * 1024 * 1024  # /varz is a few KiB, /jsz without details a few more


class MonitorError(Exception):
    """The endpoint could not be read within its bounds (the message is one line)."""


def _connection(url: str, timeout: float) -> tuple[http.client.HTTPConnection, str]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise MonitorError(f"{url}: only http:// and https:// monitoring URLs are supported")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if parts.scheme == "https":
        return http.client.HTTPSConnection(
            parts.hostname, parts.port, timeout=timeout, context=ssl.create_default_context()
        ), path
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout), path


def _body(resp: http.client.HTTPResponse, url: str, max_bytes: int, deadline: float) -> bytes:
    length = resp.getheader("Content-Length")
    if length is not None and length.strip().isdigit() and int(length) > max_bytes:
        raise MonitorError(
            f"{url} announced a body of {int(length)} bytes, more than the {max_bytes} bytes jsops reads"
        )
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError
        chunk = resp.read1(65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            raise MonitorError(f"{url} sent more than the {max_bytes} bytes jsops reads")
        chunks.append(chunk)


def get_json(
    url: str,
    *,
    user: str | None = None,
    password: str | None = None,
    deadline: float = MONITOR_DEADLINE,
    max_bytes: int = MONITOR_MAX_BYTES,
) -> dict[str, Any]:
    """``GET url`` as a JSON object, within ``deadline`` seconds and ``max_bytes`` of body.

    Raises :class:`MonitorError`; ``HTTP <code>`` answers raise it with the status."""
    end = time.monotonic() + deadline
    conn, path = _connection(url, min(deadline, 5.0))
    expired = threading.Event()
    watchdog = _watchdog(conn, deadline, expired)
    headers = {"Accept": "application/json", "User-Agent": "jsops"}
    if user is not None:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{user}:{password or ''}".encode()).decode()
    try:
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        if resp.status != 200:
            raise MonitorError(f"HTTP {resp.status} {resp.reason[:80]}".strip())
        body = _body(resp, url, max_bytes, end)
    except MonitorError:
        raise
    except TimeoutError:
        raise MonitorError(f"{url} did not answer within {deadline:g} s") from None
    except (OSError, http.client.HTTPException, ValueError) as exc:
        if expired.is_set():
            raise MonitorError(f"{url} did not answer within {deadline:g} s") from None
        text = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise MonitorError(text) from None
    finally:
        watchdog.cancel()
        conn.close()
    return _json_object(body, url)


def _watchdog(conn: http.client.HTTPConnection, deadline: float, expired: threading.Event) -> threading.Timer:
    """A started timer that, once ``deadline`` seconds have passed (the whole exchange is late),
    sets ``expired`` and shuts the connection's socket down: whatever read is blocked stops."""

    def _expire() -> None:
        expired.set()
        sock = conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    watchdog = threading.Timer(deadline, _expire)
    watchdog.daemon = True
    watchdog.start()
    return watchdog


def _json_object(body: bytes, url: str) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except ValueError:
        raise MonitorError(f"{url} did not answer with JSON") from None
    if not isinstance(data, dict):
        raise MonitorError(f"{url} did not answer with a JSON object")
    return data
