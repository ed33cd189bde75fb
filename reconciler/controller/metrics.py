"""The controller's metrics: a small thread-safe registry and its Prometheus text rendering.

The registry holds plain numbers; :func:`render` turns a snapshot into the Prometheus text
exposition format (version 0.0.4). The names and HELP lines are part of the interface (golden test).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from jsops.linter.cli.kit import prometheus_labels, prometheus_number

__all__ = ["Metrics", "METRICS", "DURATION_BUCKETS", "render_metrics"]

PREFIX = "jsops_controller_"
DURATION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)

# name (without prefix) -> (type, help, label names)
METRICS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "reconcile_total": ("counter", "Reconcile rounds run, by result (success or error).", ("result",)),
    "reconcile_duration_seconds": (
        "histogram",
        "Duration of reconcile rounds (load, lint, read live state, plan, apply).",
        (),
    ),
    "last_success_timestamp_seconds": (
        "gauge",
        "Unix time at which the last successful reconcile round ended (0: never).",
        (),
    ),
    "drift_objects": (
        "gauge",
        "Objects whose live state differed from the manifests in force at the last plan, per target (context).",
        ("context",),
    ),
    "blocked_objects": (
        "gauge",
        "Objects the last plan could not change, per target (context) and by what they need (allow-recreate, allow-data-loss, allow-prune, adopt, forbidden, unavailable).",
        ("context", "needs"),
    ),
    "errors_total": (
        "counter",
        "Errors, by target (context; empty for lint, config, load and git errors), type (api, connection, access, lint, config, load, git, lease, internal) and JetStream err_code (empty when there is none).",
        ("context", "type", "err_code"),
    ),
    "actions_total": (
        "counter",
        "Plan actions this controller carried out, per target (context), by action and status (done, failed, skipped).",
        ("context", "action", "status"),
    ),
    "object_sync_state": (
        "gauge",
        "One series per object at the last round on its target (context), labelled with its state (synced, out_of_sync, blocked, error).",
        ("context", "kind", "stream", "name", "state"),
    ),
    "drift_quarantined": (
        "gauge",
        "1 per field the controller no longer heals because the same client (author: its connection name, else its user) keeps changing it back, per target (context) (docs/drift.md).",
        ("context", "kind", "stream", "name", "field", "author"),
    ),
    "leader": (
        "gauge",
        "1 while this controller holds the leader lease of the target (context) and may apply there, else 0.",
        ("context",),
    ),
    "ready": ("gauge", "1 once a reconcile round has succeeded, else 0.", ()),
    "revision_info": ("gauge", "The manifest revision in force (the last one that passed lint).", ("revision",)),
    "revision_rejected": (
        "gauge",
        "1 while the newest manifest revision is not applied because it has lint errors.",
        (),
    ),
    "lint_errors": ("gauge", "Lint errors in the newest manifest revision.", ()),
    "git_commit_info": (
        "gauge",
        "The git commit of the revision in force (--repo or --git; no series without a git source).",
        ("commit",),
    ),
    "git_last_fetch_timestamp_seconds": (
        "gauge",
        "Unix time of the last successful git fetch (0: never, or no git source).",
        (),
    ),
    "notices_total": (
        "counter",
        "Notices per receiver, by result (sent; failed: given up after its attempts or refused; dropped: the oldest waiting when the queue was full).",
        ("receiver", "result"),
    ),
    "notices_queued": ("gauge", "Notices waiting or being sent, per receiver.", ("receiver",)),
}


@dataclass
class _Histogram:
    buckets: list[int] = field(default_factory=lambda: [0] * len(DURATION_BUCKETS))
    count: int = 0
    total: float = 0.0

    def observe(self, value: float) -> None:
        self.count += 1
        self.total += value
        for i, edge in enumerate(DURATION_BUCKETS):
            if value <= edge:
                self.buckets[i] += 1


class Metrics:
    """Counters and gauges keyed by (name, label values). Every method takes the lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, dict[tuple[str, ...], float]] = {
            n: {} for n, m in METRICS.items() if m[0] != "histogram"
        }
        self._duration = _Histogram()
        for name, (kind, _, labels) in METRICS.items():
            if kind != "histogram" and not labels:
                self._values[name][()] = 0.0

    def inc(self, name: str, *labels: str, by: float = 1.0) -> None:
        with self._lock:
            series = self._values[name]
            series[labels] = series.get(labels, 0.0) + by

    def set(self, name: str, value: float, *labels: str) -> None:
        with self._lock:
            self._values[name][labels] = float(value)

    def replace(self, name: str, series: dict[tuple[str, ...], float]) -> None:
        """Replace every series of ``name`` (per-object state, blocked counts, revision)."""
        with self._lock:
            self._values[name] = dict(series)

    def observe_duration(self, seconds: float) -> None:
        with self._lock:
            self._duration.observe(seconds)

    def get(self, name: str, *labels: str) -> float:
        with self._lock:
            return self._values[name].get(labels, 0.0)

    def render(self) -> str:
        with self._lock:
            values = {n: dict(s) for n, s in self._values.items()}
            hist = _Histogram(list(self._duration.buckets), self._duration.count, self._duration.total)
        return render_metrics(values, hist)


def render_metrics(values: dict[str, dict[tuple[str, ...], float]], hist: _Histogram) -> str:
    """The Prometheus text exposition of a metrics snapshot (series sorted by labels)."""
    out: list[str] = []
    for name, (kind, help_text, label_names) in METRICS.items():
        full = PREFIX + name
        out.append(f"# HELP {full} {help_text}")
        out.append(f"# TYPE {full} {kind}")
        if kind == "histogram":
            for edge, n in zip(DURATION_BUCKETS, hist.buckets):
                out.append(f'{full}_bucket{{le="{prometheus_number(edge) if edge != int(edge) else str(edge)}"}} {n}')
            out.append(f'{full}_bucket{{le="+Inf"}} {hist.count}')
            out.append(f"{full}_sum {prometheus_number(hist.total)}")
            out.append(f"{full}_count {hist.count}")
            continue
        for labels in sorted(values.get(name, {})):
            out.append(f"{full}{prometheus_labels(label_names, labels)} {prometheus_number(values[name][labels])}")
    return "\n".join(out) + "\n"
