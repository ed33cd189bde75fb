"""Where plans and applies go: a NATS server URL with credentials, or a natscli context.

Secrets (passwords, tokens, nkey seeds, creds contents) are held here and handed to the client,
never rendered: :meth:`Target.display` is the only text form, and it strips user information.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import ssl
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from ..errors import PermanentError
from .urls import ServerURL, URLError, parse_servers, parse_url, redact_servers, redact_url, scrub

if TYPE_CHECKING:  # the config records (jsops.linter.config), for their types only
    from jsops.linter.config import Config, ContextConfig, SecretRef

__all__ = [
    "CLIENT_NAME",
    "Target",
    "TargetError",
    "add_target_arguments",
    "target_from_args",
    "load_context",
    "resolve_context",
    "target_from_config",
    "context_dir",
    "selected_context",
    "parse_servers",
    "split_servers",
    "describe_target",
    "ConnectOptions",
]

DEFAULT_SERVER = "nats://127.0.0.1:4222"


class ConnectOptions(TypedDict, total=False):
    """The options of nats-py's ``nats.connect`` jsops gives (a target's, :meth:`Target.connect_options`,
    and those of the callers that connect: reconnects, callbacks). They carry secrets: never print them."""

    servers: str | list[str]
    name: str
    user: str
    password: str
    token: str
    user_credentials: str
    nkeys_seed: str
    tls: ssl.SSLContext
    tls_handshake_first: bool
    connect_timeout: float
    allow_reconnect: bool
    max_reconnect_attempts: int
    reconnect_time_wait: float
    pending_size: int
    error_cb: Callable[[Exception], Awaitable[None]]
    disconnected_cb: Callable[[], Awaitable[None]]
    reconnected_cb: Callable[[], Awaitable[None]]
    closed_cb: Callable[[], Awaitable[None]]


class TargetError(PermanentError):
    """A target that cannot be used (unknown context, unreadable file, bad combination)."""


# The connection name of every JsClient connection (plan, apply, the controller, export, discover,
# audit): the server shows it in its connection lists and its JetStream API audit advisories, where
# jsops.reconciler.drift knows jsops's own changes by it. Subscribers name theirs (``jsops collect``:
# ``jsops-collect``).
CLIENT_NAME = "jsops"


@dataclass(frozen=True)
class Target:
    servers: tuple[str, ...] = (DEFAULT_SERVER,)
    context: str = "default"
    creds: str | None = None
    nkey: str | None = None
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    token: str | None = field(default=None, repr=False)
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_first: bool = False
    js_domain: str | None = None
    api_prefix: str | None = None
    monitor: str | None = None  # HTTP monitoring URL, for the server's JetStream limits (/varz)
    origin: str = field(default="", compare=False)  # how it was chosen, for describe_target (no secrets)

    def __post_init__(self) -> None:
        try:
            parse_servers(self.servers)
            if self.monitor:
                parse_url(self.monitor, what="monitor URL")
        except URLError as exc:
            raise TargetError(str(exc)) from None

    def identity(self) -> tuple[Any, ...]:
        """What makes two targets the same server and account (two context names for one server
        are planned as one target, so that neither prunes the other's objects)."""
        urls = parse_servers(self.servers)
        servers = tuple(sorted(u.bare().lower().rstrip("/") for u in urls))
        user = self.user or next((u.user for u in urls if u.password is not None), None)
        token = self.token is not None or any(u.user and u.password is None for u in urls)
        return (servers, self.api, self.creds, self.nkey, user, token)

    def display(self) -> str:
        """The server list without any user information (safe to print and to store in plans)."""
        return redact_servers(self.servers)

    def secrets(self) -> list[str]:
        """Every secret this target holds, in each form it could be echoed (for :func:`scrub`)."""
        out = [s for s in (self.password, self.token) if s]
        try:
            for u in parse_servers(self.servers) + ([parse_url(self.monitor)] if self.monitor else []):
                out += u.secrets()
        except URLError:
            pass
        return out

    def scrub(self, text: str) -> str:
        """``text`` (an error from a client library, say) with this target's secrets blanked out."""
        return scrub(text, list(self.secrets()))

    def monitor_url(self) -> tuple[str, str | None, str | None]:
        """The monitoring URL without user information (``http://`` added when it has no scheme),
        and the user and password for HTTP basic authentication it carried."""
        if not self.monitor:
            raise TargetError("no monitor URL")
        u = parse_url(self.monitor, what="monitor URL")
        if u.scheme not in ("", "http", "https"):
            raise TargetError("monitor URL: only http:// and https:// are supported")
        bare = u.bare() if u.scheme else f"http://{u.bare()}"
        if u.has_userinfo:
            return bare, u.user or "", u.password or ""
        return bare, None, None

    @property
    def api(self) -> str:
        if self.api_prefix:
            return self.api_prefix.rstrip(".")
        if self.js_domain:
            return f"$JS.{self.js_domain}.API"
        return "$JS.API"

    def connect_options(self) -> ConnectOptions:
        """Keyword arguments for ``nats.connect`` (they carry secrets: never print them)."""
        urls = parse_servers(self.servers)
        # nats-py neither percent-decodes user information nor parses a '/' or '@' in it: the
        # credentials go as options, the URLs without them (as nats.go decodes them).
        opts: ConnectOptions = {"servers": [u.bare() for u in urls]}
        in_urls = _url_credentials(urls)
        if not (self.user or self.token or self.creds or self.nkey):
            opts.update(in_urls)
        if self.creds:
            _readable(self.creds, "creds file")
            opts["user_credentials"] = self.creds
        if self.nkey:
            _readable(self.nkey, "nkey seed file")
            opts["nkeys_seed"] = self.nkey
        if self.user:
            opts["user"] = self.user
        if self.password:
            opts["password"] = self.password
        if self.token:
            opts["token"] = self.token
        tls = self._tls_context()
        if tls is not None:
            opts["tls"] = tls
            if self.tls_first:
                opts["tls_handshake_first"] = True
        return opts

    def _tls_context(self) -> ssl.SSLContext | None:
        """The TLS context the target asks for (a CA, a client certificate, TLS first or a tls:// URL), or None."""
        if not (self.tls_ca or self.tls_cert or self.tls_first or any(s.startswith("tls://") for s in self.servers)):
            return None
        ctx = ssl.create_default_context(purpose=ssl.Purpose.SERVER_AUTH)
        try:
            if self.tls_ca:
                ctx.load_verify_locations(cafile=self.tls_ca)
            if self.tls_cert:
                if not self.tls_key:
                    raise TargetError("--tls-cert needs --tls-key")
                ctx.load_cert_chain(certfile=self.tls_cert, keyfile=self.tls_key)
        except (OSError, ssl.SSLError) as exc:
            raise TargetError(
                f"cannot load TLS files: {exc.strerror if isinstance(exc, OSError) and exc.strerror else exc}"
            ) from None
        return ctx


def _url_credentials(urls: Sequence[ServerURL]) -> ConnectOptions:
    """The user/password or token the server URLs carry (one set for all of them), as options."""
    infos = {(u.user, u.password) for u in urls if u.has_userinfo}
    if len(infos) > 1:
        raise TargetError("the server URLs carry different credentials; give one user/password or token")
    if not infos:
        return {}
    url_user, url_password = next(iter(infos))
    if url_password is None:
        return {"token": url_user or ""}
    return {"user": url_user or "", "password": url_password}


def _redact(url: str) -> str:
    return redact_url(url)


def _readable(path: str, what: str) -> None:
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise TargetError(f"{what} {path!r} is not a readable file")


def context_dir() -> str:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "nats", "context")


def selected_context(directory: str | None = None) -> str | None:
    """The natscli context chosen with ``nats context select``: the name in ``context.txt`` beside
    the context directory (``~/.config/nats/context.txt``), or None."""
    path = os.path.join(os.path.dirname((directory or context_dir()).rstrip(os.sep)), "context.txt")
    try:
        with open(path, encoding="utf-8") as fh:
            name = fh.read().strip()
    except OSError:
        return None
    return name or None


SCHEMES = ("nats", "tls", "ws", "wss")


def split_servers(text: str, what: str = "--server") -> tuple[str, ...]:
    """Comma-separated server URLs; empty text or a scheme nats-py cannot dial is an error."""
    servers = tuple(u.strip() for u in text.split(",") if u.strip())
    if not servers:
        raise TargetError(f"{what} is empty; give a server URL such as {DEFAULT_SERVER}")
    for url in servers:
        m = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://", url)
        if m and m.group(1).lower() not in SCHEMES:
            raise TargetError(
                f"{what}: {_redact(url)} has the scheme {m.group(1)}://, not one of "
                + ", ".join(f"{x}://" for x in SCHEMES)
            )
    return servers


def describe_target(target: Target) -> str:
    """One line naming the target and how it was chosen (no user information)."""
    return f"target {target.display()}" + (f" ({target.origin})" if target.origin else "")


def _check_name(name: str) -> None:
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or name in (".", ".."):
        raise TargetError(f"invalid context name {name!r}")


def load_context(name: str, directory: str | None = None) -> Target:
    """A target from the natscli context file ``~/.config/nats/context/NAME.json``."""
    _check_name(name)
    path = os.path.join(directory or context_dir(), f"{name}.json")
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise TargetError(f"unknown context {name!r} (no {path})") from None
    except (OSError, ValueError) as exc:
        raise TargetError(f"cannot read context {name!r}: {exc}") from None
    if not isinstance(data, dict):
        raise TargetError(f"context {name!r} is not a JSON object")

    def s(key: str) -> str | None:
        v = data.get(key)
        return v if isinstance(v, str) and v else None

    url = s("url") or DEFAULT_SERVER
    return Target(
        servers=tuple(u.strip() for u in url.split(",") if u.strip()),
        context=name,
        creds=_expand(s("creds")),
        nkey=_expand(s("nkey")),
        user=s("user"),
        password=s("password"),
        token=s("token"),
        tls_ca=_expand(s("ca")),
        tls_cert=_expand(s("cert")),
        tls_key=_expand(s("key")),
        tls_first=bool(data.get("tls_first")),
        js_domain=s("jetstream_domain"),
        api_prefix=s("jetstream_api_prefix"),
    )


def _expand(path: str | None) -> str | None:
    return os.path.expanduser(path) if path else None


def _secret(ref: SecretRef | None, name: str, what: str, root: str) -> str | None:
    """The value a ``{env: VAR}`` / ``{file: PATH}`` reference points at (never put in messages)."""
    if ref is None:
        return None
    try:
        return ref.read(root)
    except ValueError as exc:
        raise TargetError(f"context {name!r}: {what}: {exc}") from None


def target_from_config(name: str, ctx: ContextConfig, root: str = ".") -> Target:
    """A target from a context of the jsops config (``jsops.linter.config.ContextConfig``); files are
    relative to the config's directory, secrets are read from their environment variable or file."""
    _check_name(name)

    def f(path: str | None) -> str | None:
        return os.path.normpath(os.path.join(root, os.path.expanduser(path))) if path else None

    servers = tuple(ctx.servers()) or (DEFAULT_SERVER,)
    password = _secret(ctx.password, name, "password", root)
    if password and not ctx.user:
        raise TargetError(f"context {name!r}: a password needs a user")
    return Target(
        servers=servers,
        context=name,
        creds=f(ctx.creds),
        nkey=f(ctx.nkey),
        user=ctx.user,
        password=password,
        token=_secret(ctx.token, name, "token", root),
        tls_ca=f(ctx.tls_ca),
        tls_cert=f(ctx.tls_cert),
        tls_key=f(ctx.tls_key),
        tls_first=ctx.tls_first,
        js_domain=ctx.js_domain,
        api_prefix=ctx.api_prefix,
        monitor=ctx.monitor,
    )


def resolve_context(
    name: str, config: Config | None = None, directory: str | None = None, accounts: Mapping[str, Any] | None = None
) -> Target:
    """The target called ``name``: a context of the jsops config first, then a natscli context, then
    a NACK ``Account`` of the manifests (``accounts``: ``Estate.accounts``) with servers."""
    _check_name(name)
    contexts = getattr(config, "contexts", None) or {}
    if name in contexts:
        return target_from_config(name, contexts[name], getattr(config, "root", "."))
    account = (accounts or {}).get(name)
    if account is not None and account.servers:
        try:
            return load_context(name, directory)
        except TargetError:
            return Target(servers=tuple(account.servers), context=name)
    try:
        return load_context(name, directory)
    except TargetError as exc:
        if contexts and str(exc).startswith("unknown context"):
            known = ", ".join(sorted(contexts))
            raise TargetError(f"{exc}; the jsops config {getattr(config, 'source', '')} declares: {known}") from None
        raise


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    # A command that adds natscli's spellings itself (as collect once did) takes them over quietly.
    for container in (parser, *getattr(parser, "_action_groups", ())):
        container.conflict_handler = "resolve"
    g = parser.add_argument_group(
        "target",
        "Chosen as natscli does: flags, then NATS_URL/NATS_USER/NATS_PASSWORD/NATS_CREDS/NATS_NKEY/"
        "NATS_CA/NATS_CERT/NATS_KEY, over the context named by --context or NATS_CONTEXT, else the jsops "
        "config's 'default' context, else the natscli selected context (nats context select), else "
        f"{DEFAULT_SERVER}. natscli's flag spellings (--tlsca, --tlscert, --tlskey, --tlsfirst) work too.",
    )
    g.add_argument("--server", "-s", metavar="URL", help="NATS server URL(s), comma separated (env NATS_URL)")
    g.add_argument(
        "--context",
        metavar="NAME",
        help="a context of the jsops config, else a natscli context (~/.config/nats/context/NAME.json) (env NATS_CONTEXT)",
    )
    g.add_argument("--creds", metavar="FILE", help="user credentials (JWT) file (env NATS_CREDS)")
    g.add_argument("--nkey", metavar="FILE", help="nkey seed file (env NATS_NKEY)")
    g.add_argument("--user", metavar="USER", help="(env NATS_USER)")
    g.add_argument("--password", metavar="PASSWORD", help="(env NATS_PASSWORD)")
    g.add_argument("--token", metavar="TOKEN")
    g.add_argument("--tls-ca", "--tlsca", dest="tls_ca", metavar="FILE", help="(env NATS_CA)")
    g.add_argument("--tls-cert", "--tlscert", dest="tls_cert", metavar="FILE", help="(env NATS_CERT)")
    g.add_argument("--tls-key", "--tlskey", dest="tls_key", metavar="FILE", help="(env NATS_KEY)")
    g.add_argument(
        "--tls-first",
        "--tlsfirst",
        dest="tls_first",
        action="store_true",
        help="TLS handshake before the NATS protocol",
    )
    g.add_argument("--js-domain", metavar="DOMAIN", help="JetStream domain")
    g.add_argument(
        "--js-api-prefix", dest="api_prefix", metavar="PREFIX", help="JetStream API prefix (instead of a domain)"
    )
    g.add_argument(
        "--monitor", metavar="URL", help="the server's HTTP monitoring URL (its JetStream limits are read from /varz)"
    )


_ENV = (
    ("NATS_USER", "user"),
    ("NATS_PASSWORD", "password"),
    ("NATS_CREDS", "creds"),
    ("NATS_NKEY", "nkey"),
    ("NATS_CA", "tls_ca"),
    ("NATS_CERT", "tls_cert"),
    ("NATS_KEY", "tls_key"),
)


def _base_target(
    args: argparse.Namespace, config: Config | None, environ: Mapping[str, str], directory: str | None
) -> tuple[Target, str]:
    """The target the settings are laid over (see :func:`target_from_args`), and what chose it."""
    contexts = getattr(config, "contexts", None) or {}
    source = getattr(config, "source", None) or "the jsops config"
    if args.context is not None or environ.get("NATS_CONTEXT"):
        name = args.context if args.context is not None else environ["NATS_CONTEXT"]
        return resolve_context(name, config, directory), f"context {name}" + (
            " from NATS_CONTEXT" if args.context is None else ""
        )
    if "default" in contexts:
        return resolve_context("default", config, directory), f"context default of {source}"
    selected = selected_context(directory)
    if selected is not None:
        try:
            base = load_context(selected, directory)
        except TargetError as exc:
            raise TargetError(f"the natscli selected context (nats context select): {exc}") from None
        return base, f"natscli selected context {selected}"
    return Target(), f"the default server {DEFAULT_SERVER}"


def _settings(args: argparse.Namespace, environ: Mapping[str, str]) -> dict[str, Any]:
    """The single settings the ``NATS_*`` variables, then the explicit flags, set (the server aside)."""
    changes: dict[str, Any] = {}
    for var, key in _ENV:
        if environ.get(var):
            changes[key] = environ[var]
    for key in (
        "creds",
        "nkey",
        "user",
        "password",
        "token",
        "tls_ca",
        "tls_cert",
        "tls_key",
        "js_domain",
        "api_prefix",
        "monitor",
    ):
        v = getattr(args, key, None)
        if v:
            changes[key] = v
    if getattr(args, "tls_first", False):
        changes["tls_first"] = True
    return changes


def target_from_args(
    args: argparse.Namespace,
    config: Config | None = None,
    env: Mapping[str, str] | None = None,
    directory: str | None = None,
) -> Target:
    """The target the arguments name, with natscli's precedence: the context named by
    ``--context`` or ``$NATS_CONTEXT`` (jsops config, then natscli), else the jsops config's
    ``default`` context, else the natscli selected context (``context.txt``), else the local
    default server; then ``$NATS_URL`` and the other ``NATS_*`` variables, then explicit flags,
    override single settings. ``Target.origin`` says which of these chose the server."""
    environ = os.environ if env is None else env
    contexts = getattr(config, "contexts", None) or {}
    base, origin = _base_target(args, config, environ, directory)
    changes: dict[str, Any] = {}
    if args.server is not None:
        changes["servers"] = split_servers(args.server)
        origin = "--server"
    elif environ.get("NATS_URL") is not None:
        changes["servers"] = split_servers(environ["NATS_URL"], "NATS_URL")
        origin = "NATS_URL" + (f" over {origin}" if base.context != "default" or "default" in contexts else "")
    else:
        split_servers(",".join(base.servers), f"{origin}: url")
    changes.update(_settings(args, environ))
    if changes.get("password") and not (changes.get("user") or base.user):
        raise TargetError("--password needs --user")
    return Target(**{**base.__dict__, **changes, "origin": origin})
