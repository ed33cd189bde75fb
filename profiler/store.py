"""The profile store: a local directory of per-window partial profiles that a re-run extends (no pyspark).

Layout::

    STORE/store.json                        settings every window was made with (window, alpha, ...)
    STORE/windows/2026-11-20T12:00:00Z.json.gz   one :class:`~jsops.profiler.partial.Partial` per closed window

A window is written once its telemetry is complete (see :func:`jsops.profiler.compute.build_store_profiles`);
a run computes only the windows the store lacks and merges the rest from here.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from jsops.profiler.errors import ProfilerError
from jsops.profiler.partial import Partial, partial_from_json, partial_to_json

__all__ = ["ProfileStore", "StoreError", "parse_time"]

_NAME = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\.json\.gz$")


class StoreError(ProfilerError):
    """A store made with other settings, an unreadable window file, or a bad ``--since``/``--until``."""


def parse_time(text: str) -> int:
    """``2026-11-20``, ``2026-11-20T13:00:00Z`` or with an offset, as microseconds since the epoch (UTC
    when no offset is given)."""
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise StoreError(f"{text!r}: expected a date or an RFC 3339 time such as 2026-11-20T13:00:00Z") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp()) * 1_000_000 + dt.microsecond


def _name(start_us: int) -> str:
    return datetime.fromtimestamp(start_us // 1_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ") + ".json.gz"


class ProfileStore:
    """The store at ``root`` for windows of ``window_us`` made with the settings of ``template``."""

    def __init__(self, root: Path, template: Partial, window_us: int) -> None:
        self.root, self.template, self.window_us = root, template, window_us
        settings = {
            "format": 1,
            "window_s": window_us // 1_000_000,
            "alpha": template.alpha,
            "exact_limit": template.exact_limit,
            "reach_s": template.reach // 1_000_000,
        }
        meta = root / "store.json"
        try:
            if meta.exists():
                have = json.loads(meta.read_text())
                if have != settings:
                    diff = ", ".join(
                        f"{k} {have.get(k)!r} (asked {v!r})" for k, v in settings.items() if have.get(k) != v
                    )
                    raise StoreError(
                        f"{root}: the store was made with other settings: {diff}; use another directory or the same settings"
                    )
            else:
                (root / "windows").mkdir(parents=True, exist_ok=True)
                meta.write_text(json.dumps(settings, indent=2) + "\n")
        except OSError as exc:
            raise StoreError(f"{root}: cannot use the profile store: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise StoreError(f"{meta}: not a profile store settings file: {exc}") from None

    def stored(self) -> set[int]:
        """The indices of the windows on disk (``start // window_us``)."""
        out = set()
        for f in (self.root / "windows").iterdir():
            m = _NAME.match(f.name)
            if m:
                out.add(parse_time(m.group(1)) // self.window_us)
        return out

    def save(self, p: Partial) -> None:
        path = self.root / "windows" / _name(p.start)
        tmp = path.with_name(path.name + ".tmp")
        try:
            with gzip.open(tmp, "wt", encoding="utf-8") as f:
                json.dump(partial_to_json(p), f, separators=(",", ":"))
            tmp.replace(path)
        except OSError as exc:
            raise StoreError(f"{path}: cannot write: {exc.strerror or exc}") from None

    def load(self, windows: Iterable[int]) -> list[Partial]:
        out = []
        for w in sorted(windows):
            path = self.root / "windows" / _name(w * self.window_us)
            try:
                with gzip.open(path, "rt", encoding="utf-8") as f:
                    out.append(partial_from_json(json.load(f)))
            except (OSError, ValueError, KeyError, TypeError, EOFError) as exc:
                raise StoreError(
                    f"{path}: not a readable partial profile ({exc}); delete it to recompute that window"
                ) from None
        return out
