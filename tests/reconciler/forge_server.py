"""A local forge for comment tests: an HTTP server on 127.0.0.1 implementing the few REST endpoints
``jsops plan --comment`` and the controller's pull mode call, as GitHub and GitLab document them (list
a pull request's comments in pages, create one, update one; set a commit status), with their authentication headers and pagination headers. It
records every request; pages are capped at ``page_size`` whatever ``per_page`` asks (as the real
APIs cap it at 100)."""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeForge", "Seen"]


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, str]
    body: dict[str, Any] | None


@dataclass
class _State:
    kind: str
    token: str
    page_size: int
    link_pages: bool  # GitLab: Link headers too (else only X-Next-Page)
    comments: list[dict[str, Any]] = field(default_factory=list)  # "thread": the list's path (None: in every thread)
    statuses: list[dict[str, Any]] = field(
        default_factory=list
    )  # each with "sha" and the time it came ("at", monotonic)
    seen: list[Seen] = field(default_factory=list)
    next_id: int = 1000
    lock: threading.Lock = field(default_factory=threading.Lock)


class FakeForge:
    """``kind`` github: ``/repos/OWNER/NAME/issues/N/comments``; gitlab: ``/api/v4/projects/ID/merge_requests/IID/notes``."""

    def __init__(self, kind: str, *, token: str = "t0ken", page_size: int = 2, link_pages: bool = False) -> None:
        self.state = _State(kind, token, page_size, link_pages)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.state))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeForge:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}" + ("/api/v4" if self.state.kind == "gitlab" else "")

    def add(self, body: str, author: str = "someone") -> int:
        with self.state.lock:
            self.state.next_id += 1
            self.state.comments.append({"id": self.state.next_id, "body": body, "author": author})
            return self.state.next_id

    @property
    def comments(self) -> list[dict[str, Any]]:
        return list(self.state.comments)

    def in_thread(self, path_end: str) -> list[dict[str, Any]]:
        """The comments posted to the thread whose path ends with ``path_end`` (``issues/1/comments``)."""
        return [c for c in self.comments if str(c.get("thread") or "").endswith(path_end)]

    @property
    def statuses(self) -> list[dict[str, Any]]:
        return list(self.state.statuses)

    @property
    def seen(self) -> list[Seen]:
        return list(self.state.seen)


def _handler(state: _State) -> type[BaseHTTPRequestHandler]:
    thread = (
        r"/repos/[^/]+/[^/]+/issues/\d+/comments"
        if state.kind == "github"
        else r"/api/v4/projects/[^/]+/merge_requests/\d+/notes"
    )
    status = (
        r"/repos/[^/]+/[^/]+/statuses/([0-9a-f]{40})"
        if state.kind == "github"
        else r"/api/v4/projects/[^/]+/statuses/([0-9a-f]{40})"
    )
    one = (
        r"/repos/[^/]+/[^/]+/issues/comments/(\d+)"
        if state.kind == "github"
        else r"/api/v4/projects/[^/]+/merge_requests/\d+/notes/(\d+)"
    )

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        def _answer(self, code: int, doc: object, headers: dict[str, str] | None = None) -> None:
            raw = json.dumps(doc).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(raw)

        def _authorized(self) -> bool:
            if state.kind == "github":
                return self.headers.get("Authorization") == f"Bearer {state.token}"
            return self.headers.get("PRIVATE-TOKEN") == state.token

        def _body(self) -> dict[str, Any] | None:
            size = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(size)) if size else None

        def _handle(self) -> None:
            parts = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(parts.query))
            body = self._body()
            with state.lock:
                state.seen.append(Seen(self.command, parts.path, query, body))
            if not self._authorized():
                self._answer(401, {"message": "Bad credentials"})
                return
            if re.fullmatch(thread, parts.path) and self.command == "GET":
                self._list(parts.path, query)
            elif (
                re.fullmatch(thread, parts.path)
                and self.command == "POST"
                and body
                and isinstance(body.get("body"), str)
            ):
                with state.lock:
                    state.next_id += 1
                    made = {
                        "id": state.next_id,
                        "body": body["body"],
                        "author": "jsops-bot",
                        "html_url": f"https://forge.example/c/{state.next_id}",
                    }
                    state.comments.append({**made, "thread": parts.path})
                self._answer(201, made)
            elif (
                (m := re.fullmatch(status, parts.path))
                and self.command == "POST"
                and body
                and isinstance(body.get("state"), str)
            ):
                with state.lock:
                    state.statuses.append({**body, "sha": m.group(1), "at": time.monotonic()})
                self._answer(201, {"id": len(state.statuses), **body})
            elif (
                (m := re.fullmatch(one, parts.path))
                and self.command == ("PATCH" if state.kind == "github" else "PUT")
                and body
            ):
                with state.lock:
                    found = [c for c in state.comments if c["id"] == int(m.group(1))]
                    if found:
                        found[0]["body"] = body["body"]
                if found:
                    self._answer(200, {**found[0], "html_url": f"https://forge.example/c/{found[0]['id']}"})
                else:
                    self._answer(404, {"message": "Not Found"})
            else:
                self._answer(404, {"message": "Not Found"})

        def _list(self, path: str, query: dict[str, str]) -> None:
            size = min(int(query.get("per_page", "20")), state.page_size)
            page = int(query.get("page", "1"))
            with state.lock:
                everything = [
                    {k: v for k, v in c.items() if k != "thread"}
                    for c in state.comments
                    if c.get("thread") in (None, path)
                ]
            last = max(1, -(-len(everything) // size))
            items = everything[(page - 1) * size : page * size]
            headers: dict[str, str] = {}
            base = f"http://{self.server.server_address[0]}:{self.server.server_address[1]}{path}"
            if page < last:
                nxt = f"{base}?{urllib.parse.urlencode({**query, 'page': str(page + 1)})}"
                if state.kind == "github" or state.link_pages:
                    lst = f"{base}?{urllib.parse.urlencode({**query, 'page': str(last)})}"
                    headers["Link"] = f'<{nxt}>; rel="next", <{lst}>; rel="last"'
                if state.kind == "gitlab":
                    headers["X-Next-Page"] = str(page + 1)
            elif state.kind == "gitlab":
                headers["X-Next-Page"] = ""
            self._answer(200, items, headers)

        do_GET = do_POST = do_PATCH = do_PUT = _handle

    return Handler
