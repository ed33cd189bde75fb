"""A Sail server (PyPI ``pysail``: a Spark Connect server on a Rust engine, no JVM) that ``jsops profile
--engine sail`` starts on loopback for one run and stops after it.

The server runs in a child process (``python -m jsops.profiler.sail``) that reads its standard input until
end of file and then stops the server: when jsops ends in any way (done, error, Ctrl-C, killed) the pipe
closes and the server goes with it. The child hides PySpark from Sail: Sail picks its defaults by the
PySpark version it finds in its own process and refuses one it does not know (4.3 with pysail 0.7);
the job needs no PySpark on the server side and sets the session settings it relies on itself.

Sail answers ``persist()`` and keeps nothing; it checkpoints instead (``localCheckpoint``) into its
``execution.checkpoint.path``, which jsops gives the server it starts: a temporary directory of its own
(``$SAIL_EXECUTION__CHECKPOINT__PATH`` when set), removed when the server stops
(:func:`jsops.profiler.session.keep`).

The server starts in its own process while this one goes on: ``SailServer(prepare=...)`` runs
``prepare`` (the Spark Connect client's imports, about a second) between starting the child and
waiting for its port, so the two overlap. No pyspark import here.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from jsops.profiler.engine import SAIL_HINT, EngineError

__all__ = ["SailServer", "have_sail", "checkpoint_dir"]

_START_TIMEOUT_S = 60.0
_CHECKPOINT_ENV = "SAIL_EXECUTION__CHECKPOINT__PATH"
#: the URL of each running server jsops started -> its local checkpoint directory
_DIRS: dict[str, str] = {}


def checkpoint_dir(url: str) -> str | None:
    """The local checkpoint directory of the server jsops started at ``url`` (``None``: not one of
    jsops's, or its checkpoints go where ``$SAIL_EXECUTION__CHECKPOINT__PATH`` says)."""
    return _DIRS.get(url)


def have_sail() -> bool:
    return importlib.util.find_spec("pysail") is not None


class SailServer:
    """``with SailServer() as url:`` a Sail Spark Connect server at ``url`` (``sc://127.0.0.1:PORT``).
    ``prepare`` runs while the server starts (an error in it stops the server and propagates)."""

    def __init__(self, prepare: Callable[[], None] | None = None) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._prepare = prepare
        self._checkpoints: str | None = None
        self.url: str | None = None

    def __enter__(self) -> str:
        if not have_sail():
            raise EngineError(f"--engine sail needs pysail: {SAIL_HINT}")
        env = {**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "error")}
        if not env.get(_CHECKPOINT_ENV):
            self._checkpoints = tempfile.mkdtemp(prefix="jsops-sail-checkpoints-")
            env[_CHECKPOINT_ENV] = Path(self._checkpoints).as_uri()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "jsops.profiler.sail"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        line: list[str] = []
        reader = threading.Thread(
            target=lambda: line.append(self._proc.stdout.readline() if self._proc and self._proc.stdout else ""),
            daemon=True,
        )
        reader.start()
        if self._prepare is not None:
            try:
                self._prepare()
            except BaseException:
                self._stop()
                raise
        reader.join(_START_TIMEOUT_S)
        port = line[0].strip() if line else ""
        if not port.isdigit():
            err = self._stop()
            detail = (err.strip().splitlines() or ["no port within 60 s"])[-1]
            raise EngineError(f"the Sail server did not start: {detail}")
        self.url = f"sc://127.0.0.1:{port}"
        if self._checkpoints is not None:
            _DIRS[self.url] = self._checkpoints
        return self.url

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop()

    def _stop(self) -> str:
        """Close the child's stdin (it stops the server and exits); its stderr."""
        proc, self._proc = self._proc, None
        err = ""
        if proc is not None:
            try:
                _, err = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
        if self._checkpoints is not None:
            _DIRS.pop(self.url or "", None)
            shutil.rmtree(self._checkpoints, ignore_errors=True)
            self._checkpoints = None
        return err or ""


def _serve() -> int:
    sys.modules["pyspark"] = None  # type: ignore[assignment]  # Sail falls back to its default settings
    from pysail.spark import SparkConnectServer

    server = SparkConnectServer("127.0.0.1", 0)
    server.start(background=True)
    address = server.listening_address
    if address is None:
        print("the Sail server has no address", file=sys.stderr)
        return 1
    print(address[1], flush=True)
    try:
        sys.stdin.read()  # until jsops closes the pipe (or ends)
    except KeyboardInterrupt:
        pass
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(_serve())
