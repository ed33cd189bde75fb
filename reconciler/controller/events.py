"""The controller's event log: JSON lines, secrets blanked out."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import IO, Any

from ..client import scrub

__all__ = ["EventLog"]


class EventLog:
    """One JSON object per line: ``{"time": ..., "event": ..., ...}``. Thread-safe.

    Every string in a record has the known secrets (:meth:`add_secrets`) and any URL's user
    information blanked out before it is written."""

    def __init__(self, stream: IO[str], secrets: list[str] | None = None) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._secrets: list[str] = list(secrets or [])
        self._listeners: list[Callable[[dict[str, Any]], None]] = []

    def subscribe(self, listener: Callable[[dict[str, Any]], None]) -> None:
        """Call ``listener`` with every record once it is written (the notices: it must not block)."""
        self._listeners.append(listener)

    def add_secrets(self, secrets: list[str]) -> None:
        with self._lock:
            self._secrets = sorted(set(self._secrets) | {s for s in secrets if s}, key=len, reverse=True)

    def _clean(self, value: Any) -> Any:
        if isinstance(value, str):
            return scrub(value, self._secrets)
        if isinstance(value, dict):
            return {k: self._clean(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._clean(v) for v in value]
        if isinstance(value, (int, float, bool)) or value is None:
            return value
        return scrub(str(value), self._secrets)

    def __call__(self, event: str, **fields: Any) -> None:
        now = datetime.now(UTC)
        record = {
            "time": now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z",
            "event": event,
            **{k: self._clean(v) for k, v in fields.items() if k not in ("time", "event")},
        }
        line = json.dumps(record, default=str, separators=(",", ":"))
        with self._lock:
            try:
                self._stream.write(line + "\n")
                self._stream.flush()
            except (OSError, ValueError):
                pass
        for listener in self._listeners:
            try:
                listener(record)
            except Exception:  # a listener's trouble is never the controller's
                pass
