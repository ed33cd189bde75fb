"""One target's tug-of-war state (:mod:`jsops.reconciler.drift.tug`), kept in JetStream so that it
survives a restart and a change of leader: key ``tugs`` of the KV bucket ``JSOPS_DRIFT`` on the
target (history 1, no expiry). The leader writes it; every controller reads it each round, so a
follower reports the same quarantines. ``nats kv del JSOPS_DRIFT tugs`` clears it (every quarantine
of that target ends at the next round).

Only rounds whose plan changes fields whose author the account's audit record names read the
record (docs/drift.md), and only for what the controller's own subscription (``--advisory-subscription``)
did not settle; with neither nothing is counted and nothing is quarantined.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from jsops.linter import Kind, api_json

from ..drift import Author, ChangedBy, Drifted, Heard, attribute_drift, hold
from ..drift.tug import BUCKET, KEY, TugState, field_id, manifest_values

if TYPE_CHECKING:
    from ..client import JsClient, KvBucket
    from ..live import LiveState
    from ..plan import Desired, Plan

__all__ = ["BUCKET", "KEY", "Tugs"]

_DRIFTABLE = ("update", "recreate", "blocked")


class Tugs:
    """A target's quarantines: read from the bucket each round, written back when they change."""

    def __init__(self, threshold: int, window: float, *, writes: bool = False) -> None:
        self.threshold = threshold
        self.window = window
        self.writes = writes  # this round leads on the target (else: reads the state, never writes it)
        self.state = TugState()
        self._bucket: KvBucket | None = None
        self._client: JsClient | None = None  # the connection the bucket is bound to
        # who made the live values of the fields the round's plan changes: (kind, stream, name) -> field ->
        # changed_by as in the plan's JSON, or {"unknown_since": T}
        self.authors: dict[tuple[str, str, str], dict[str, dict[str, str | None]]] = {}

    def _bind(self, client: JsClient) -> KvBucket:
        if self._client is not client:  # a new connection (the last one was lost): its bucket went with it
            self._bucket, self._client = None, client
        if self._bucket is None:
            self._bucket = client.run(
                client.akey_value(
                    BUCKET, ttl=0, description="jsops controller: fields quarantined in a tug-of-war (docs/drift.md)"
                )
            )
        return self._bucket

    def load(self, client: JsClient, live: LiveState) -> None:
        """The state as the bucket holds it (empty without the bucket: it is made at the first write)."""
        if f"KV_{BUCKET}" not in live.streams:
            self.state, self._bucket = TugState(), None
            return
        found = client.run(self._bind(client).entry(KEY))
        try:
            self.state = TugState.from_json(json.loads(found[0])) if found else TugState()
        except ValueError:
            self.state = TugState()

    def _save(self, client: JsClient, state: TugState) -> None:
        if state == self.state:
            return
        self.state = state
        if self.writes:
            client.run(self._bind(client).put(KEY, json.dumps(state.to_json(), separators=(",", ":")).encode()))

    def held(
        self, client: JsClient, live: LiveState, wanted: Sequence[Desired], log: Callable[..., None]
    ) -> list[Desired]:
        """``wanted`` (the manifests' objects) with the quarantined fields at their live values; the
        quarantines whose manifest value changed end here (event ``quarantine_released``)."""
        self.load(client, live)
        values = _values(wanted, [fid for fid in self.state.quarantined])
        state, gone = self.state.released(values)
        for fid in gone:
            log("quarantine_released", field=fid, reason="the manifest changed")
        self._save(client, state)
        return hold(wanted, live, self.state.held())[0]

    def observe(
        self,
        client: JsClient,
        live: LiveState,
        plan: Plan,
        wanted: Sequence[Desired],
        context: str,
        log: Callable[..., None],
        *,
        heard: Heard | None = None,
    ) -> list[str]:
        """Name the authors of the fields ``plan`` changes (:attr:`authors`, for the ``drift``
        events; from what the controller's own subscription ``heard`` and the record) and, leading,
        count the changes back of those it heals; the fields newly quarantined (event ``quarantined`` each)."""
        self.authors = {}
        drifted = [
            Drifted(a.kind, a.stream, a.name, c.path, c.old)
            for a in plan.actions
            if a.action in _DRIFTABLE
            for c in a.changes
            if "." not in c.path
        ]
        if not drifted:
            return []
        found = attribute_drift(client, live, context, drifted, heard=heard)
        for k, who in found.authors.items():
            self.authors.setdefault((k.kind, k.stream or "", k.name), {})[k.field] = _shown(who)
        authors = {
            field_id((k.kind, k.stream, k.name), k.field): who
            for k, who in found.authors.items()
            if isinstance(who, ChangedBy)
        }
        if not authors or self.threshold <= 0 or not self.writes:  # the leader counts; followers read what it wrote
            return []
        state, new = self.state.observe(
            authors, _values(wanted, list(authors)), datetime.now(UTC), threshold=self.threshold, window=self.window
        )
        for fid in new:
            q = state.quarantined[fid]
            log(
                "quarantined",
                field=fid,
                author={"user": q.user, "account": q.account, "client_name": q.client_name, "host": q.host},
                changes=q.changes,
                window=self.window,
            )
        self._save(client, state)
        return new

    def series(self, context: str) -> dict[tuple[str, ...], float]:
        """The quarantine gauge's series: context, kind, stream, name, field, author."""
        out: dict[tuple[str, ...], float] = {}
        for fid, q in self.state.quarantined.items():
            kind, stream, name, path = fid.split("/", 3)
            out[(context, kind, stream, name, path, q.client_name or q.user)] = 1.0
        return out

    def lines(self, context: str) -> list[str]:
        """``/readyz`` detail: one line per quarantined field."""
        return [f"quarantined {context} {fid}: {q.describe()}" for fid, q in sorted(self.state.quarantined.items())]


def _values(wanted: Sequence[Desired], fids: list[str]) -> dict[str, str]:
    """The manifests' values of the fields ``fids`` (those of objects the manifests declare)."""
    want = set(fids)
    rows: list[tuple[Any, str, object]] = []
    for d in wanted:
        key = (d.kind, d.stream if d.kind == Kind.CONSUMER else None, d.name)
        paths = [fid.rsplit("/", 1)[1] for fid in want if fid.startswith(field_id(key, ""))]
        if paths:
            config = api_json(d.config)
            rows += [(key, p, config.get(p)) for p in paths]
    return manifest_values(rows)


def _shown(who: Author) -> dict[str, str | None]:
    """An author as the ``drift`` event carries it: the plan JSON's ``changed_by``, or ``unknown_since``."""
    if isinstance(who, ChangedBy):
        out: dict[str, str | None] = {}
        out.update(who.to_json())
        return out
    return {"unknown_since": who.to_json()["since"]}
