"""The HTML report's live section (``jsops audit --html``): what a target held when it was read.

Pure data, filled by the caller (``jsops audit`` builds it from what it read; the linter never talks
to a server): per target, the objects that have a live-state finding, with the figures the finding
is about (stored messages and bytes against the stream's limits; a consumer's backlog, messages
awaiting an ack against max_ack_pending, redeliveries) and the findings themselves. Healthy objects
are counted, not listed: the section stays short on an estate of thousands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ._html_finding import FindingRow

__all__ = ["LiveObject", "LiveTarget", "fill_of"]


@dataclass(frozen=True)
class LiveObject:
    """One stream or consumer with live findings. Figures the listing did not give are ``None``
    (shown as "no data"); a limit of ``None`` is unlimited."""

    kind: str  # "Stream" | "Consumer"
    stream: str
    name: str  # the stream's name, or the consumer's
    severity: str  # the worst of its live findings: "error" | "warning" | "info"
    findings: tuple[FindingRow, ...]
    # a stream's
    messages: int | None = None
    bytes: int | None = None
    max_msgs: int | None = None
    max_bytes: int | None = None
    # a consumer's
    pending: int | None = None  # num_pending: not yet delivered
    ack_pending: int | None = None  # num_ack_pending: delivered, not yet acknowledged
    max_ack_pending: int | None = None
    redelivered: int | None = None  # num_redelivered

    @property
    def label(self) -> str:
        return f"Stream {self.name}" if self.kind == "Stream" else f"Consumer {self.stream}/{self.name}"

    @property
    def fill(self) -> float | None:
        """How full the nearest limit is (0..1): the stream's messages or bytes against max_msgs or
        max_bytes, the consumer's ack_pending against max_ack_pending; None: no limit to fill."""
        if self.kind == "Stream":
            shares = [fill_of(self.messages, self.max_msgs), fill_of(self.bytes, self.max_bytes)]
        else:
            shares = [fill_of(self.ack_pending, self.max_ack_pending)]
        known = [s for s in shares if s is not None]
        return max(known) if known else None


def fill_of(value: int | None, limit: int | None) -> float | None:
    """``value`` over ``limit`` (capped at 1), or None without both."""
    if value is None or not limit or limit <= 0:
        return None
    return min(value / limit, 1.0)


@dataclass(frozen=True)
class LiveTarget:
    """What one target held when ``jsops audit`` read it."""

    target: str  # as the target is shown (credentials scrubbed)
    server_version: str | None
    read_at: datetime
    streams: int
    consumers: int
    requests: int
    objects: tuple[LiveObject, ...]  # those with live findings: errors first, then by name
    healthy: int  # streams and consumers with no live finding

    @property
    def counts(self) -> tuple[tuple[str, int], ...]:
        """(severity, objects) for the severities present, error first."""
        order = ("error", "warning", "info")
        return tuple((s, n) for s in order if (n := sum(1 for o in self.objects if o.severity == s)))
