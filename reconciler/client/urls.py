"""Server URLs as the NATS clients read them, and the one way jsops makes them safe to print.

A server list is split on commas first (as nats.go and natscli do); in each URL the user
information runs up to the *last* ``@`` (so a raw ``@`` or ``/`` in a password still works) and
``user:password`` / ``token`` are percent-decoded (``%40`` is ``@``, ``%2C`` is ``,``). A password
holding a comma must be percent-encoded: a raw one splits the list, and the pieces are refused
without being echoed.

Nothing here imports nats: ``jsops lint`` may use it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from ..errors import PermanentError

__all__ = [
    "ServerURL",
    "URLError",
    "parse_url",
    "parse_servers",
    "redact_url",
    "redact_servers",
    "scrub",
    "argv_secrets",
    "argv_scrub",
]

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_HOST = re.compile(r"^(\[[0-9A-Fa-f:.%a-zA-Z]+\]|[A-Za-z0-9_.~-]+)(?::(\d{1,5}))?$")

# shown instead of user information; never derived from it
_HIDDEN = "***"
MIN_SCRUB = 4


class URLError(PermanentError, ValueError):
    """A URL that cannot be used. The message never contains any part of the URL's user information."""


@dataclass(frozen=True)
class ServerURL:
    scheme: str  # "" when the URL had none
    host: str  # IPv6 addresses keep their brackets
    port: int | None
    rest: str = ""  # path, query (monitoring URLs); "" for NATS URLs
    user: str | None = field(default=None, repr=False)  # decoded; with no password: a token
    password: str | None = field(default=None, repr=False)

    @property
    def has_userinfo(self) -> bool:
        return self.user is not None or self.password is not None

    def bare(self) -> str:
        """The URL without user information (safe to print and to connect to)."""
        scheme = f"{self.scheme}://" if self.scheme else ""
        port = f":{self.port}" if self.port is not None else ""
        return f"{scheme}{self.host}{port}{self.rest}"

    def secrets(self) -> list[str]:
        """Every form in which this URL's secret could appear in a message (decoded and raw)."""
        out: list[str] = []
        for value in (self.password, self.user if self.password is None else None):
            if value:
                out += [value, quote(value, safe=""), quote(value, safe="@/:,")]
        return out


def parse_url(text: str, *, what: str = "server URL") -> ServerURL:
    """One URL. Raises :class:`URLError` (whose message does not repeat the URL's secret)."""
    raw = text.strip()
    scheme = ""
    m = _SCHEME.match(raw)
    if m:
        scheme = m.group(1).lower()
        raw = raw[m.end() :]
    user = password = None
    at = raw.rfind("@")
    if at >= 0:
        info, raw = raw[:at], raw[at + 1 :]
        u, sep, p = info.partition(":")
        user = unquote(u)
        password = unquote(p) if sep else None
    # the authority ends at the first '/', '?' or '#' after the user information
    cut = min((i for i in (raw.find("/"), raw.find("?"), raw.find("#")) if i >= 0), default=len(raw))
    authority, rest = raw[:cut], raw[cut:]
    hm = _HOST.match(authority)
    secret = " (a password with ',' must be percent-encoded as %2C)" if at >= 0 or scheme == "" else ""
    if not hm:
        raise URLError(f"{what} has no valid host[:port]{secret}")
    host, port = hm.group(1), hm.group(2)
    if port is not None and not 0 < int(port) <= 65535:
        raise URLError(f"{what} has a port out of range")
    return ServerURL(
        scheme, host, int(port) if port else None, rest, user or None if password is None else user, password
    )


def parse_servers(text: str | list[str] | tuple[str, ...]) -> list[ServerURL]:
    """A comma-separated server list (or a list of such strings)."""
    items = [text] if isinstance(text, str) else list(text)
    pieces = [p.strip() for item in items for p in item.split(",")]
    pieces = [p for p in pieces if p]
    out: list[ServerURL] = []
    for i, piece in enumerate(pieces, 1):
        what = "server URL" if len(pieces) == 1 else f"server URL {i} of {len(pieces)}"
        url = parse_url(piece, what=what)
        if url.rest.strip("/"):
            raise URLError(f"{what} has a path (a password with '/' or ',' must be percent-encoded: %2F, %2C)")
        if url.has_userinfo and not url.scheme and out and out[-1].scheme and not out[-1].has_userinfo:
            # "nats://u:12,ab@h" splits into "nats://u:12" and "ab@h": a raw comma in a password
            raise URLError(
                f"{what} has user information but no scheme after a URL with one; a password with ',' must be percent-encoded as %2C"
            )
        out.append(ServerURL(url.scheme, url.host, url.port, "", url.user, url.password))
    return out


def redact_url(text: str) -> str:
    """``text`` (one URL) without its user information. Never raises: what cannot be parsed is
    cut at its last ``@``, and a URL with no ``@`` that does not parse is hidden whole."""
    try:
        return parse_url(text).bare()
    except URLError:
        raw = text.strip()
        m = _SCHEME.match(raw)
        scheme = m.group(0) if m else ""
        body = raw[len(scheme) :]
        at = body.rfind("@")
        return f"{scheme}{body[at + 1 :]}" if at >= 0 else f"{scheme}{_HIDDEN}"


def redact_servers(text: str | list[str] | tuple[str, ...]) -> str:
    """A server list (comma separated) without user information, safe to print.

    When any piece does not parse, the list may have been split inside a password (a raw comma):
    then everything up to the last ``@`` of the whole text is hidden."""
    items = [text] if isinstance(text, str) else list(text)
    joined = ",".join(i.strip() for i in items)
    try:
        return ",".join(u.bare() for u in parse_servers(items))
    except URLError:
        at = joined.rfind("@")
        if at < 0:
            return ",".join(redact_url(p) for p in joined.split(",") if p.strip())
        m = _SCHEME.match(joined)
        return f"{m.group(0) if m else ''}{_HIDDEN}@{redact_servers(joined[at + 1 :])}"


def scrub(text: str, secrets: Sequence[str | None]) -> str:
    """``text`` with every URL's user information dropped and every secret (longest first)
    blanked out. Secrets shorter than :data:`MIN_SCRUB` characters are not searched for in free
    text: they would blank ordinary words (a password ``app`` in ``applied``)."""
    text = _URL_USERINFO.sub(lambda m: m.group(1), text)  # as Target.display() shows URLs
    for s in sorted({s for s in secrets if s and len(s) >= MIN_SCRUB}, key=len, reverse=True):
        text = text.replace(s, _HIDDEN)
    return text


_URL_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^\s'\"<>]*@")


_SECRET_FLAGS = {"--password": False, "--token": False, "--server": True, "-s": True, "--monitor": True}


def argv_secrets(argv: Sequence[str]) -> list[str]:
    """The secrets given on a command line (``--password``, ``--token``, user information in
    ``--server`` and ``--monitor`` URLs), for blanking out of any message."""
    out: list[str] = []
    args = list(argv)
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag not in _SECRET_FLAGS:
            continue
        if not eq:
            if i + 1 >= len(args):
                continue
            value = args[i + 1]
        if not _SECRET_FLAGS[flag]:
            out += [value, quote(value, safe="")]
            continue
        try:
            for url in (parse_url(value, what="monitor URL"),) if flag == "--monitor" else parse_servers(value):
                out += url.secrets()
        except URLError:  # perhaps split inside a password: hide all user information there is
            m = _SCHEME.match(value)
            start, at = (m.end() if m else 0), value.rfind("@")
            if at > start:
                info = value[start:at]
                out += [info, info.partition(":")[2]]
                out += [p for p in re.split(r"[:@/,]", info) if len(p) >= 3]
    return out


def argv_scrub(text: str, argv: Sequence[str]) -> str:
    return scrub(text, argv_secrets(argv))
