"""Which of the controller's events are notices, and what each notice says.

The controller writes one event log (:mod:`jsops.reconciler.controller.events`); :class:`Classifier`
reads its records, in order, and turns some of them into :class:`Notice` values: frozen data with an
id, a type from :data:`NOTICE_TYPES`, a one-line summary and the event's fields. It keeps the little
state the types need (the revision in force and whether it has been applied, the blocked changes
already told, the targets known to be unreachable), so that a lasting condition is told once.

Every notice has its own id (a random UUID), kept on every attempt to send it. Replicas:
``revision.applied``, ``drift.healed``, ``action.blocked`` and ``data_loss.refused`` are told only by
the controller that applies to the target, ``revision.rejected`` by one that applies to some target
(or routes none yet): ``leads(context)``, ``leads(None)``.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["NOTICE_TYPES", "Notice", "Classifier"]

# type -> what it tells (docs/controller.md's table)
NOTICE_TYPES: Mapping[str, str] = {
    "revision.applied": "a new revision of the manifests is in force and every target it routes to converged to it",
    "revision.rejected": "a revision was refused (lint errors, the team's policies, or a repository config setting operator keys); the last good one stays",
    "drift.healed": "objects changed or deleted behind the controller's back were put back (one notice per target and round)",
    "action.blocked": "a change waits for an annotation (allow-recreate, allow-prune, adopt, ...) or is one the server would refuse",
    "data_loss.refused": "a change that would lose stored messages is refused until the manifest allows data loss",
    "leader.changed": "this controller acquired, lost or released a target's leader lease",
    "target.unreachable": "a target could not be reached (told once until it is reached again)",
    "target.reachable": "a target that could not be reached is connected again",
    "pull.planned": "pull mode: the head of a pull request was planned read-only, or could not be (ref, commit, result, the plan's summary)",
}

_DATA_LOSS = "allow-data-loss"
_MAX_REMEMBERED = 10_000


@dataclass(frozen=True)
class Notice:
    """One notice: the same id on every attempt to send it."""

    id: str
    type: str
    time: str  # the event's time (RFC 3339, UTC)
    summary: str  # one line for people
    context: str | None = None  # the target it is about
    subject: str | None = None  # the object or revision it is about
    data: dict[str, Any] = field(default_factory=dict)  # JSON values only


def _json(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The fields as plain JSON values (the event log writes them with ``default=str``)."""
    out = json.loads(json.dumps({k: v for k, v in fields.items() if k not in ("time", "event")}, default=str))
    return out if isinstance(out, dict) else {}


def _short(revision: object) -> str:
    text = str(revision or "")
    return text.rsplit(":", 1)[-1][:12] if text else "?"


class Classifier:
    """Event log records in, notices out. Thread-safe (events come from the round, the leases and
    the senders). ``leads(context)`` tells whether this controller applies to that target; ``leads(None)``
    whether it applies to some target, or has routed none yet."""

    def __init__(self, leads: Callable[[str | None], bool]) -> None:
        self._leads = leads
        self._lock = threading.Lock()
        self._in_force: str | None = None
        self._applied: str | None = None  # the last revision told as applied
        self._changes = 0  # actions done since the revision in force was accepted
        self._healed: dict[str, list[dict[str, Any]]] = {}  # context -> actions done this round
        self._blocked: set[tuple[str, ...]] = set()
        self._down: set[str] = set()

    def observe(self, record: Mapping[str, Any]) -> list[Notice]:
        handler = _HANDLERS.get(str(record.get("event")))
        if handler is None:
            return []
        # asked before taking the lock (the leases' threads log too)
        if handler is Classifier._drift and (
            record.get("action") != "blocked" or not self._leads(record.get("context"))
        ):
            return []
        if handler is Classifier._rejected and not self._leads(None):
            return []
        with self._lock:
            return handler(self, record)

    # -- the handlers (under the lock) ------------------------------------------------------------

    def _accepted(self, r: Mapping[str, Any]) -> list[Notice]:
        if r.get("revision") != self._in_force:
            self._in_force = r.get("revision")
            self._changes = 0
        return []

    def _rejected(self, r: Mapping[str, Any]) -> list[Notice]:
        why = "lint errors" if r.get("reason") == "lint" else "its jsops config sets keys only the operator may set"
        keep = f"; {_short(r.get('in_force'))} stays in force" if r.get("in_force") else "; nothing is applied"
        summary = f"revision {_short(r.get('revision'))} rejected ({why}: {r.get('lint_errors') or len(r.get('keys') or [])}){keep}"
        return [self._notice("revision.rejected", r, summary, subject=r.get("revision"))]

    def _action(self, r: Mapping[str, Any]) -> list[Notice]:
        if r.get("status") != "done":
            return []
        context = str(r.get("context") or "")
        self._blocked = {k for k in self._blocked if k[:2] != (context, str(r.get("object")))}
        if self._applied is not None and self._applied == self._in_force:
            self._healed.setdefault(context, []).append(
                {"object": r.get("object"), "action": r.get("action"), "detail": r.get("detail")}
            )
        else:
            self._changes += 1
        return []

    def _round(self, r: Mapping[str, Any]) -> list[Notice]:
        out = []
        for context, done in self._healed.items():
            if not done:
                continue
            objects = ", ".join(str(d["object"]) for d in done[:5]) + (
                f" and {len(done) - 5} more" if len(done) > 5 else ""
            )
            summary = f"drift healed on {context}: {objects}"
            out.append(
                self._notice(
                    "drift.healed",
                    {"time": r.get("time"), "revision": r.get("revision"), "actions": done},
                    summary,
                    context=context,
                )
            )
        self._healed = {}
        targets = [t for t in r.get("targets") or [] if isinstance(t, dict)]
        rev = r.get("revision")
        if r.get("result") == "success" and rev and rev != self._applied and any(t.get("leader") for t in targets):
            self._applied = self._in_force = str(rev)
            names = ", ".join(str(t.get("context")) for t in targets)
            summary = (
                f"revision {_short(rev)} applied on {names} ({self._changes} change{'s' if self._changes != 1 else ''})"
            )
            fields = {
                "time": r.get("time"),
                "revision": rev,
                "commit": r.get("commit"),
                "changes": self._changes,
                "targets": targets,
            }
            out.append(self._notice("revision.applied", fields, summary, subject=str(rev)))
        return out

    def _drift(self, r: Mapping[str, Any]) -> list[Notice]:
        key = (
            str(r.get("context") or ""),
            str(r.get("object")),
            str(r.get("wanted")),
            str(r.get("changes")),
            str(r.get("needs")),
        )
        if key in self._blocked:
            return []
        if len(self._blocked) >= _MAX_REMEMBERED:
            self._blocked.clear()
        self._blocked.add(key)
        needs = [str(n) for n in r.get("needs") or []]
        where = f"{r.get('object')} on {r.get('context')}"
        if _DATA_LOSS in needs or r.get("data_loss"):
            summary = (
                f"{where}: {r.get('wanted')} refused, it would lose data ({r.get('consequence') or r.get('reason')})"
            )
            return [self._notice("data_loss.refused", r, summary, context=r.get("context"), subject=r.get("object"))]
        wants = f" (needs {', '.join(needs)})" if needs else ""
        summary = f"{where}: {r.get('wanted')} blocked{wants}: {r.get('reason')}"
        return [self._notice("action.blocked", r, summary, context=r.get("context"), subject=r.get("object"))]

    def _leader(self, r: Mapping[str, Any]) -> list[Notice]:
        change = str(r.get("event")).removeprefix("leader_")
        summary = f"{r.get('identity')} {change} the leader lease of {r.get('context')}"
        return [self._notice("leader.changed", {**r, "change": change}, summary, context=r.get("context"))]

    def _error(self, r: Mapping[str, Any]) -> list[Notice]:
        context = r.get("context")
        if r.get("type") != "connection" or not context or context in self._down:
            return []
        self._down.add(str(context))
        return [
            self._notice("target.unreachable", r, f"target {context} unreachable: {r.get('message')}", context=context)
        ]

    def _connected(self, r: Mapping[str, Any]) -> list[Notice]:
        context = r.get("context")
        if context not in self._down:
            return []
        self._down.discard(str(context))
        return [
            self._notice(
                "target.reachable", r, f"target {context} reachable again ({r.get('target')})", context=context
            )
        ]

    def _pull(self, r: Mapping[str, Any]) -> list[Notice]:
        summary = f"plan of {r.get('ref')} at {str(r.get('commit') or '')[:12]}: {r.get('summary')}"
        return [self._notice("pull.planned", r, summary, subject=r.get("ref"))]

    def _notice(
        self, kind: str, r: Mapping[str, Any], summary: str, *, context: object = None, subject: object = None
    ) -> Notice:
        return Notice(
            id=str(uuid.uuid4()),
            type=kind,
            time=str(r.get("time") or ""),
            summary=summary,
            context=None if context is None else str(context),
            subject=None if subject is None else str(subject),
            data=_json(r),
        )


_HANDLERS: dict[str, Callable[[Classifier, Mapping[str, Any]], list[Notice]]] = {
    "revision_accepted": Classifier._accepted,
    "revision_rejected": Classifier._rejected,
    "action": Classifier._action,
    "round": Classifier._round,
    "drift": Classifier._drift,
    "change": Classifier._drift,  # a blocked change of a new revision waits for the same permissions
    "leader_acquired": Classifier._leader,
    "leader_lost": Classifier._leader,
    "leader_released": Classifier._leader,
    "error": Classifier._error,
    "connected": Classifier._connected,
    "pull_planned": Classifier._pull,
}
