"""Fields a plan leaves as they are live: owned elsewhere (the ``jsops.io/ignore-drift`` annotation)
or quarantined by the controller (a tug-of-war with another client). Pure.

The desired config of such a field is set to the live value before planning, so the plan neither
changes nor heals it, and everything else about the object is reconciled as usual. Each field held
while the manifest says otherwise is reported (:class:`Held`) so that the plan can show the live
value and whose it is.

``jsops.io/ignore-drift`` (``metadata.annotations``, a string): the fields, separated by commas or
spaces, optionally in brackets: ``"num_replicas"``, ``"[num_replicas, max_age]"``. A field the
object's kind does not have, a name field, or ``metadata`` is not held (:func:`unknown_fields`;
``jsops lint`` says so: JS447). How the value is read lives with jsops's other annotations
(:mod:`jsops.linter.semantics.monitor`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from jsops.linter import Kind, api_json
from jsops.linter.api import IGNORE_DRIFT, ignore_drift_fields, unheld_fields

if TYPE_CHECKING:
    from jsops.linter import Estate

    from ..live import LiveState
    from ..plan import Desired

__all__ = [
    "IGNORE_DRIFT",
    "Held",
    "ObjectKey",
    "hold",
    "ignore_drift_fields",
    "ignored_in_estate",
    "merged",
    "unknown_fields",
]


ObjectKey = tuple[str, str | None, str]  # (kind, stream of a consumer, name)


@dataclass(frozen=True)
class Held:
    """A field left as it is live: ``live`` and ``manifest`` in the server's JSON; ``reason`` says
    whose it is (``owned elsewhere (jsops.io/ignore-drift)``, ``quarantined: ...``)."""

    live: object
    manifest: object
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"live": self.live, "manifest": self.manifest, "reason": self.reason}


def unknown_fields(kind: str, fields: Iterable[str]) -> list[str]:
    """The named fields an object of ``kind`` has not, or that are never held (names, metadata);
    ``jsops lint`` reports them (JS447)."""
    return unheld_fields(kind, fields)


def ignored_in_estate(estate: Estate, contexts: Iterable[str]) -> dict[ObjectKey, dict[str, str]]:
    """The fields each manifest routed to ``contexts`` marks ``jsops.io/ignore-drift``, with the
    reason shown for them."""
    wanted = set(contexts)
    out: dict[ObjectKey, dict[str, str]] = {}
    for r in estate.resources:
        fields = ignore_drift_fields((r.annotations or {}).get(IGNORE_DRIFT)) if r.context in wanted else ()
        bad = set(unknown_fields(r.kind, fields))
        kept = {f: f"owned elsewhere ({IGNORE_DRIFT})" for f in fields if f not in bad}
        if kept:
            out[(r.kind, r.stream if r.kind == Kind.CONSUMER else None, r.name)] = kept
    return out


def hold(
    desired: Sequence[Desired], live: LiveState, fields: Mapping[ObjectKey, Mapping[str, str]]
) -> tuple[list[Desired], dict[tuple[ObjectKey, str], Held]]:
    """``desired`` with each held field of an object that exists live set to its live value, and
    the fields held where the manifest says otherwise."""
    out: list[Desired] = []
    held: dict[tuple[ObjectKey, str], Held] = {}
    for d in desired:
        key: ObjectKey = (d.kind, d.stream if d.kind == Kind.CONSUMER else None, d.name)
        want = fields.get(key)
        current = (
            (live.streams.get(d.name) if d.kind == Kind.STREAM else live.consumers.get((d.stream or "", d.name)))
            if want
            else None
        )
        if not want or current is None:
            out.append(d)
            continue
        config = d.config
        live_json, desired_json = api_json(current.config), api_json(config)
        for path, reason in want.items():
            if unheld_fields(d.kind, (path,)) or path not in config._fields:
                continue
            value = getattr(current.config, path)
            if value != getattr(config, path):
                held[(key, path)] = Held(live_json.get(path), desired_json.get(path), reason)
                config = config._replace(**{path: value})
        out.append(replace(d, config=config) if config is not d.config else d)
    return out, held


def merged(*fields: Mapping[ObjectKey, Mapping[str, str]]) -> dict[ObjectKey, dict[str, str]]:
    """Held fields from several sources (the first one's reason wins for a field named twice)."""
    out: dict[ObjectKey, dict[str, str]] = {}
    for each in fields:
        for key, paths in each.items():
            for path, reason in paths.items():
                out.setdefault(key, {}).setdefault(path, reason)
    return out
