"""Opening the Spark Connect session of a run (``--remote``, ``SPARK_REMOTE`` or Sail's loopback server),
with one-line errors for what users meet first: nothing listening, a client that cannot talk to the
server's version, credentials refused, a client without its Connect dependencies.

Errors are told apart by their gRPC status code and PySpark's error classes, never by message text.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING

from jsops.profiler.engine import CONNECT_HINT, EngineError, probe

if TYPE_CHECKING:  # pyspark is imported when a session is opened
    from pyspark.sql import SparkSession

__all__ = ["open_session", "check_versions", "preload"]

_AUTH = ("UNAUTHENTICATED", "PERMISSION_DENIED")


def _client_ready() -> None:
    """The Connect client's own dependencies (grpc, protobuf, pyarrow, pandas) are importable."""
    try:
        with warnings.catch_warnings():  # pandas 3 is "not yet fully supported": not the user's concern here
            warnings.simplefilter("ignore")
            from pyspark.sql.connect.utils import check_dependencies

            check_dependencies()
    except ImportError as exc:
        name = getattr(exc, "name", None) or "a dependency"
        raise EngineError(f"the Spark Connect client lacks {name}: {CONNECT_HINT}") from None


def preload() -> None:
    """Import the Connect client now (grpc, pyarrow, pandas, PySpark's Connect modules: about a second),
    e.g. while jsops's Sail server starts; :class:`EngineError` when a dependency is missing."""
    _client_ready()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pyspark.sql.connect.session  # noqa: F401  (the import is the work)


def check_versions(client: str, server: str) -> None:
    """Refuse a client whose major version differs from the server's: Spark Connect keeps its protocol
    compatible within a major version only."""
    if client.split(".")[0] != server.split(".")[0]:
        raise EngineError(
            f"version mismatch: this client is PySpark {client}, the server runs Spark {server}; "
            f"install the client of the server's major version (pip install 'pyspark-client=="
            f"{server.split('.')[0]}.*' for Spark 4, 'pyspark[connect]=={server.rsplit('.', 1)[0]}.*' before)"
        )


def open_session(
    url: str, *, shuffle_partitions: int, extra_conf: Mapping[str, str], check: bool = True, checkpoint: bool = False
) -> SparkSession:
    """A configured Connect session at ``url``; :class:`EngineError` in one line when it cannot be had.
    ``check``: probe the endpoint first and compare versions (a remote server; jsops's own Sail server
    is known to listen, and its process has no PySpark whose version it could report). ``checkpoint``:
    the server ignores ``persist`` and has a checkpoint directory (jsops's own Sail server, see
    :func:`jsops.profiler.session.keep`)."""
    if check:
        probe(url)
    _client_ready()
    from pyspark import __version__ as client_version

    from jsops.profiler.sail import checkpoint_dir
    from jsops.profiler.session import connect_session

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spark = connect_session(
                url,
                shuffle_partitions,
                extra_conf,
                checkpoint=checkpoint,
                checkpoint_dir=checkpoint_dir(url) if checkpoint else None,
            )
    except Exception as exc:
        raise EngineError(_explain(url, exc, client_version)) from None
    if check:
        try:
            check_versions(client_version, str(spark.version))
        except BaseException as exc:
            spark.stop()
            if isinstance(exc, Exception) and not isinstance(exc, EngineError):
                raise EngineError(_explain(url, exc, client_version)) from None
            raise
    return spark


def _explain(url: str, exc: Exception, client_version: str) -> str:
    code = getattr(exc, "getGrpcStatusCode", None)
    status = getattr(code(), "name", "") if callable(code) else ""
    if status in _AUTH:
        return (
            f"the Spark Connect server at {url} refused this client ({status}): check the token "
            "(sc://HOST:PORT/;token=...) and whether TLS is needed (;use_ssl=true)"
        )
    if status == "UNIMPLEMENTED":
        return (
            f"the Spark Connect server at {url} does not implement what PySpark {client_version} asks "
            "(UNIMPLEMENTED): the client and the server versions do not match"
        )
    cls = getattr(exc, "getCondition", None)
    error_class = cls() if callable(cls) else None
    lines = str(exc).strip().splitlines()
    what = error_class or status or type(exc).__name__
    return f"cannot open a Spark Connect session at {url}: {what}: {lines[0] if lines else ''}"
