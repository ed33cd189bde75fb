"""Where the profile job runs: classic Spark that jsops starts (local or ``spark://``), a Spark Connect
server (``--remote sc://HOST:PORT`` or ``SPARK_REMOTE``), or Sail, a Spark Connect server jsops starts and
stops (``--engine sail``). No pyspark import here: the choice is made before Spark is loaded.

The job is the same DataFrame code on all three; what differs is said here once:

* ``connect``: no ``sparkContext``, no JVM, no RDD; the session's SQL settings are set after it is made;
* ``exact_percentiles``: the engine lacks ``percentile_approx`` over an array of percentages (Sail), so
  ack_time and retry-horizon percentiles are computed with the exact ``percentile`` for every group
  (``--exact-limit`` does not apply; each group's values are held in memory once).
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from jsops.linter import install_hint
from jsops.profiler.errors import ProfilerError

__all__ = ["Engine", "EngineError", "choose", "probe", "ENGINES", "CONNECT_HINT", "SAIL_HINT", "SAIL_FALLBACK"]

ENGINES = ("spark", "sail")
#: how to get the Spark Connect client (no JVM) that --remote needs: the connect extra
CONNECT_HINT = (
    f"the connect extra (no JVM): {install_hint('connect')}; or pip install 'pyspark[connect]' beside the spark extra"
)
#: how to get Sail, which --engine sail needs: the sail extra
SAIL_HINT = f"the sail extra: {install_hint('sail')}"
_DEFAULT_PORT = 15002
#: what jsops says on a Sail run (the one function of the job Sail lacks, and what jsops does instead)
SAIL_FALLBACK = "Sail lacks percentile_approx over an array of percentages: every percentile is computed with the exact percentile (--exact-limit does not apply)"


class EngineError(ProfilerError):
    """A remote URL or an engine choice that cannot work, or an endpoint that does not answer."""


@dataclass(frozen=True)
class Engine:
    """The engine of one run. ``remote`` is the Spark Connect URL (for Sail, set once its server listens)."""

    name: str = "spark"  # "spark" or "sail"
    remote: str | None = None

    @property
    def connect(self) -> bool:
        return self.remote is not None or self.name == "sail"

    @property
    def exact_percentiles(self) -> bool:
        """Percentiles by the exact ``percentile`` only (Sail lacks ``percentile_approx`` over an array)."""
        return self.name == "sail"

    def describe(self) -> str:
        if self.name == "sail":
            return "Sail" + (f" at {self.remote}" if self.remote else "")
        return f"Spark Connect at {self.remote}" if self.remote else "Spark"


def choose(engine: str, remote: str | None, master: str | None, *, env: dict[str, str] | None = None) -> Engine:
    """The engine for ``--engine``, ``--remote`` and ``--master``; ``SPARK_REMOTE`` (as PySpark reads it)
    counts when neither ``--remote`` nor ``--master`` is given. Raises :class:`EngineError` on a conflict."""
    env = dict(os.environ) if env is None else env
    if engine not in ENGINES:
        raise EngineError(f"--engine {engine!r}: expected one of {', '.join(ENGINES)}")
    if engine == "sail":
        if remote is not None or master is not None:
            raise EngineError("--engine sail starts its own server: it goes without --remote and --master")
        return Engine("sail")
    if remote is None and master is None and env.get("SPARK_REMOTE"):
        remote = env["SPARK_REMOTE"]
    if remote is None:
        return Engine()
    if master is not None:
        raise EngineError("--remote and --master are two ways to reach Spark: give one")
    check_url(remote)
    return Engine(remote=remote)


def check_url(url: str) -> tuple[str, int]:
    """The host and port of a Spark Connect URL ``sc://HOST[:PORT][/;param=value...]``."""
    parts = urlsplit(url)
    if parts.scheme != "sc" or not parts.hostname:
        raise EngineError(f"--remote {url!r}: expected sc://HOST:PORT (a Spark Connect server)")
    try:
        port = parts.port or _DEFAULT_PORT
    except ValueError:
        raise EngineError(f"--remote {url!r}: the port is not a number from 1 to 65535") from None
    return parts.hostname, port


def probe(url: str, timeout: float = 10.0) -> None:
    """Fail fast, in one line, when nothing accepts connections at ``url``, or when the client would speak
    TLS to a server that does not (the Connect client would retry either for minutes)."""
    host, port = check_url(url)
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            if _client_uses_tls(url, host) and not _speaks_tls(sock, host):
                raise EngineError(
                    f"the Spark Connect server at {host}:{port} does not speak TLS, and the client would: a token "
                    "(or use_ssl=true) in the URL turns TLS on except for host localhost; give "
                    f"sc://localhost:{port}/;token=... for a server on this machine, or enable TLS on the server"
                )
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise EngineError(f"cannot reach the Spark Connect server at {host}:{port}: {reason.lower()}") from None


def _params(url: str) -> dict[str, str]:
    """The ``;key=value`` parameters of a Spark Connect URL."""
    pairs = (part.partition("=") for part in urlsplit(url).path.split(";")[1:])
    return {key: value for key, _, value in pairs if key}


def _client_uses_tls(url: str, host: str) -> bool:
    """Whether PySpark's channel builder opens a TLS channel for ``url``: ``use_ssl=true``, or a token to any
    host but ``localhost`` (to which it sends the token in the clear)."""
    params = _params(url)
    use_ssl = params.get("use_ssl", "").lower() == "true"
    return use_ssl or ("token" in params and host != "localhost")


def _speaks_tls(sock: socket.socket, host: str) -> bool:
    """Whether the peer completes a TLS handshake (its certificate is not judged here: the client does that)."""
    import ssl

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    try:
        with context.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=True):
            return True
    except (ssl.SSLError, ConnectionError, TimeoutError):
        return False
