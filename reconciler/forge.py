"""One sticky comment on a pull request (GitHub) or merge request (GitLab), through the forge's REST
API: the comment that starts with a hidden marker is found (every page of the list), and updated
when its text changed; without one, a comment is created. ``jsops plan --comment`` posts the plan
with it.

The calls (and nothing else):

- GitHub: ``GET /repos/{owner}/{repo}/issues/{n}/comments`` (pages through ``Link: rel="next"``),
  ``POST`` the same path, ``PATCH /repos/{owner}/{repo}/issues/comments/{id}``; token in
  ``Authorization: Bearer``; the token needs ``pull-requests: write`` (or ``issues: write``).
- GitHub commit status (the controller's pull mode): ``POST /repos/{owner}/{repo}/statuses/{sha}``
  (the token needs ``statuses: write``); GitLab: ``POST /projects/{id}/statuses/{sha}``.
- GitLab: ``GET /projects/{id}/merge_requests/{iid}/notes`` (``Link`` or ``X-Next-Page``), ``POST``
  the same path, ``PUT .../notes/{note_id}``; token in ``PRIVATE-TOKEN`` (a project or personal
  access token with the ``api`` scope).

Where to post comes from the CI's own variables (:func:`forge_from_env`). A token is sent only over
HTTPS, or plain HTTP to this machine; a next-page link to another origin is refused.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from .errors import PermanentError, TemporaryError

__all__ = [
    "COMMENT_LIMITS",
    "FORGES",
    "Forge",
    "ForgeError",
    "ForgeUnreachable",
    "Posted",
    "StatusState",
    "forge_from_env",
    "post_status",
    "upsert_comment",
]

FORGES = ("github", "gitlab")
ForgeKind = Literal["github", "gitlab"]
StatusState = Literal["pending", "success", "failure", "error"]  # GitHub's words; GitLab's are mapped
_GITLAB_STATES = {"pending": "pending", "success": "success", "failure": "failed", "error": "failed"}
_DESCRIPTION = 140  # characters of a commit status's description (GitHub's limit)

COMMENT_LIMITS = {"github": 65_536, "gitlab": 1_000_000}  # characters in one comment (GitHub answers 422 past it)
_TOKEN_ENV = {"github": "GITHUB_TOKEN", "gitlab": "GITLAB_TOKEN"}
_API_ENV = {
    "github": ("GITHUB_API_URL", "https://api.github.com"),
    "gitlab": ("CI_API_V4_URL", "https://gitlab.com/api/v4"),
}
_PROJECT_ENV = {"github": "GITHUB_REPOSITORY", "gitlab": "CI_PROJECT_ID"}
_PAGES = 100  # pages read at most (10,000 comments) before giving up on finding the marker
_TIMEOUT = 30.0
_LOCAL = ("127.0.0.1", "localhost", "::1")


class ForgeError(PermanentError):
    """The forge refused a request, or where to post is not known."""


class ForgeUnreachable(TemporaryError):
    """The forge did not answer (a connection failed, a 5xx)."""


@dataclass(frozen=True)
class Forge:
    """Where the comment goes: ``project`` (GitHub ``OWNER/NAME``; GitLab a project id or path) and
    ``number`` (the pull request's number; the merge request's iid)."""

    kind: ForgeKind
    api_url: str
    project: str
    number: int
    token: str = field(repr=False)

    @property
    def limit(self) -> int:
        """The most characters one comment may hold."""
        return COMMENT_LIMITS[self.kind]

    def _thread(self) -> str:
        if self.kind == "github":
            return f"{self.api_url}/repos/{self.project}/issues/{self.number}/comments"
        return f"{self.api_url}/projects/{urllib.parse.quote(self.project, safe='')}/merge_requests/{self.number}/notes"

    def _one(self, comment_id: int) -> tuple[str, str]:
        if self.kind == "github":
            return "PATCH", f"{self.api_url}/repos/{self.project}/issues/comments/{comment_id}"
        return "PUT", f"{self._thread()}/{comment_id}"

    def _headers(self) -> dict[str, str]:
        common = {"Content-Type": "application/json", "User-Agent": "jsops"}
        if self.kind == "github":
            return {
                **common,
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {self.token}",
                "X-GitHub-Api-Version": "2022-11-28",
            }
        return {**common, "Accept": "application/json", "PRIVATE-TOKEN": self.token}


@dataclass(frozen=True)
class Posted:
    """What :func:`upsert_comment` did: ``created``, ``updated``, or ``unchanged`` (same text)."""

    action: Literal["created", "updated", "unchanged"]
    id: int
    url: str  # the comment's page (GitHub); "" when the forge does not say


def forge_from_env(
    kind: str, *, number: int | None = None, token_file: str | None = None, env: Mapping[str, str] | None = None
) -> Forge:
    """The pull request of this CI job: GitHub from ``GITHUB_API_URL``, ``GITHUB_REPOSITORY`` and the
    event (``GITHUB_EVENT_PATH``) or ``GITHUB_REF`` (``refs/pull/N/merge``), token ``GITHUB_TOKEN``;
    GitLab from ``CI_API_V4_URL``, ``CI_PROJECT_ID`` and ``CI_MERGE_REQUEST_IID``, token
    ``GITLAB_TOKEN``. ``number`` and ``token_file`` (the token, read from a file) override."""
    env = os.environ if env is None else env
    if kind not in FORGES:
        raise ForgeError(f"unknown forge {kind!r} (one of {', '.join(FORGES)})")
    forge: ForgeKind = "github" if kind == "github" else "gitlab"
    api_var, api_default = _API_ENV[forge]
    api = (env.get(api_var) or api_default).rstrip("/")
    _check_url(api, api_var)
    project = env.get(_PROJECT_ENV[forge], "")
    if not project:
        raise ForgeError(f"{_PROJECT_ENV[forge]} is not set: which repository to comment on is not known")
    if number is None:
        number = _github_number(env) if forge == "github" else _int(env.get("CI_MERGE_REQUEST_IID"))
    if number is None:
        where = (
            "GITHUB_EVENT_PATH's pull_request, GITHUB_REF refs/pull/N/..."
            if forge == "github"
            else "CI_MERGE_REQUEST_IID"
        )
        raise ForgeError(
            f"not a {'pull' if forge == 'github' else 'merge'} request job ({where}); pass --pull-request N"
        )
    return Forge(forge, api, project, number, _token(forge, token_file, env))


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _github_number(env: Mapping[str, str]) -> int | None:
    path = env.get("GITHUB_EVENT_PATH")
    if path:
        try:
            with open(path, encoding="utf-8") as fh:
                event = json.load(fh)
        except (OSError, ValueError):
            event = None
        for key in ("pull_request", "issue"):
            item = event.get(key) if isinstance(event, dict) else None
            if isinstance(item, dict) and isinstance(item.get("number"), int):
                return int(item["number"])
    m = re.fullmatch(r"refs/pull/(\d+)/(?:merge|head)", env.get("GITHUB_REF", ""))
    return int(m.group(1)) if m else None


def _token(forge: ForgeKind, token_file: str | None, env: Mapping[str, str]) -> str:
    if token_file is not None:
        try:
            with open(token_file, encoding="utf-8") as fh:
                token = fh.read().strip()
        except OSError as exc:
            raise ForgeError(f"cannot read the token file {token_file}: {exc.strerror or exc}") from None
        if not token:
            raise ForgeError(f"the token file {token_file} is empty")
        return token
    token = env.get(_TOKEN_ENV[forge], "").strip()
    if not token:
        raise ForgeError(f"no token: set {_TOKEN_ENV[forge]} or pass --token-file FILE")
    return token


def _check_url(url: str, what: str) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in _LOCAL):
        return
    raise ForgeError(f"{what} {url!r}: the token is sent only over https (or http to this machine)")


def upsert_comment(forge: Forge, body: str, marker: str) -> Posted:
    """Create or update the one comment of ``forge``'s pull request that starts with ``marker`` (a
    hidden line the body is made to start with), so that each push leaves one comment, current."""
    text = body if body.lstrip().startswith(marker) else f"{marker}\n{body}"
    if len(text) > forge.limit:
        raise ForgeError(f"the comment has {len(text):,} characters; {forge.kind} takes at most {forge.limit:,}")
    for comment in _comments(forge):
        held, cid = comment.get("body"), comment.get("id")
        if isinstance(held, str) and held.lstrip().startswith(marker) and isinstance(cid, int):
            if held == text:
                return Posted("unchanged", cid, _url(comment))
            method, url = forge._one(cid)
            return Posted("updated", cid, _url(_call(forge, method, url, {"body": text})[0]))
    made = _call(forge, "POST", forge._thread(), {"body": text})[0]
    made_id = made.get("id") if isinstance(made, dict) else None
    if not isinstance(made_id, int):
        raise ForgeError(f"{forge.kind} answered the new comment without an id")
    return Posted("created", made_id, _url(made))


def post_status(forge: Forge, sha: str, state: StatusState, description: str, context: str) -> None:
    """Set the commit status named ``context`` of commit ``sha`` (``forge.number`` is not used):
    ``description`` is cut to the forge's 140 characters."""
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", sha):
        raise ForgeError(f"{sha!r} is not a commit id")
    text = description if len(description) <= _DESCRIPTION else description[: _DESCRIPTION - 3] + "..."
    if forge.kind == "github":
        _call(
            forge,
            "POST",
            f"{forge.api_url}/repos/{forge.project}/statuses/{sha}",
            {"state": state, "description": text, "context": context},
        )
    else:
        url = f"{forge.api_url}/projects/{urllib.parse.quote(forge.project, safe='')}/statuses/{sha}"
        _call(forge, "POST", url, {"state": _GITLAB_STATES[state], "description": text, "name": context})


def _url(comment: object) -> str:
    url = comment.get("html_url") if isinstance(comment, dict) else None
    return url if isinstance(url, str) else ""


def _comments(forge: Forge) -> Iterator[dict[str, object]]:
    """Every comment of the thread, oldest first, page after page."""
    query = (
        {"per_page": "100"} if forge.kind == "github" else {"per_page": "100", "sort": "asc", "order_by": "created_at"}
    )
    url: str | None = f"{forge._thread()}?{urllib.parse.urlencode(query)}"
    for _ in range(_PAGES):
        if url is None:
            return
        page, headers = _call(forge, "GET", url)
        if not isinstance(page, list):
            raise ForgeError(f"{forge.kind} answered the comment list with {type(page).__name__}, not a list")
        yield from (c for c in page if isinstance(c, dict))
        url = _next_page(forge, url, headers)
    raise ForgeError(f"more than {_PAGES} pages of comments; the marked comment was not found among them")


def _next_page(forge: Forge, url: str, headers: Mapping[str, str]) -> str | None:
    for part in headers.get("link", "").split(","):
        m = re.fullmatch(r'\s*<([^>]*)>\s*;(?:.*;)?\s*rel="?next"?\s*(?:;.*)?', part)
        if m:
            nxt = urllib.parse.urljoin(url, str(m.group(1)))
            if urllib.parse.urlsplit(nxt)[:2] != urllib.parse.urlsplit(forge.api_url)[:2]:
                raise ForgeError(f"the next page of comments is on another origin ({nxt}); not sending the token there")
            return nxt
    page = str(headers.get("x-next-page", "")).strip()
    if forge.kind == "gitlab" and page.isdigit():
        parts = urllib.parse.urlsplit(url)
        query = dict(urllib.parse.parse_qsl(parts.query))
        query["page"] = page
        return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))
    return None


def _call(forge: Forge, method: str, url: str, payload: dict[str, str] | None = None) -> tuple[object, dict[str, str]]:
    """One request; the answer's JSON and headers (names lower-cased)."""
    data = json.dumps(payload).encode() if payload is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=forge._headers())
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT) as answer:
            raw = answer.read()
            headers = {k.lower(): v for k, v in answer.headers.items()}
    except urllib.error.HTTPError as exc:
        said = _said(exc.read())
        what = f"{method} {urllib.parse.urlsplit(url).path}: {exc.code} {exc.reason}{f': {said}' if said else ''}"
        if exc.code >= 500 or exc.code == 429:
            raise ForgeUnreachable(f"{forge.kind} {what}") from None
        raise ForgeError(f"{forge.kind} {what}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ForgeUnreachable(f"{forge.kind} {method} {urllib.parse.urlsplit(url).path}: {reason}") from None
    try:
        return (json.loads(raw) if raw.strip() else None), headers
    except ValueError:
        raise ForgeError(f"{forge.kind} {method} {urllib.parse.urlsplit(url).path}: the answer is not JSON") from None


def _said(raw: bytes) -> str:
    """The forge's own message in an error answer (GitHub ``message``, GitLab ``message``/``error``)."""
    try:
        doc = json.loads(raw)
    except ValueError:
        return ""
    if isinstance(doc, dict):
        for key in ("message", "error"):
            if isinstance(doc.get(key), str | dict | list):
                return str(doc[key])[:300]
    return ""
