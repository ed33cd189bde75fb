"""Profiles: the measured figures ``jsops profile`` writes and ``jsops lint --profiles`` reads (docs/formats.md; JSON Schema docs/schemas/profiles.schema.json).

Pure pydantic. Durations are integer nanoseconds, rates are per second. Missing evidence is absent
(``None`` / missing key), never zero: a rule that needs a figure the profile lacks stays silent.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import LinterError

__all__ = [
    "Profiles",
    "ProfileWindow",
    "StreamProfile",
    "IngestProfile",
    "BytesProfile",
    "PublishRetryProfile",
    "ConsumerProfile",
    "AckTimeProfile",
    "DeliveriesProfile",
    "AdvisoriesProfile",
    "DeliveryRateProfile",
    "ProfilesError",
    "load_profiles",
]


class _Strict(BaseModel):
    # defer_build: a lint without profiles never builds these; pydantic builds them when first used.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class ProfileWindow(_Strict):
    start: datetime
    end: datetime


class IngestProfile(_Strict):
    """Messages stored per second (publisher logs: every second of the window counted, empty ones as 0)."""

    messages: int = Field(ge=0)
    mean_per_s: float | None = Field(default=None, ge=0)
    p99_per_s: float | None = Field(default=None, ge=0)
    peak_per_s: int | None = Field(default=None, ge=0)
    peak_per_min: int | None = Field(default=None, ge=0)


class BytesProfile(_Strict):
    mean_per_s: float | None = Field(default=None, ge=0)
    peak_per_s: int | None = Field(default=None, ge=0)
    stored_msg_size_mean: float | None = Field(default=None, ge=0)


class PublishRetryProfile(_Strict):
    """From publisher attempt logs; the horizon is last attempt minus first attempt per retried msg_id."""

    attempts: int = Field(ge=0)
    retried_ids: int = Field(ge=0)
    horizon_p99_ns: int | None = Field(default=None, ge=0)
    horizon_max_ns: int | None = Field(default=None, ge=0)
    #: set when horizon_p99_ns comes from a log-bucketed histogram: its bound on the relative error
    relative_error: float | None = Field(default=None, ge=0, lt=1)


class StreamProfile(_Strict):
    ingest: IngestProfile | None = None
    bytes: BytesProfile | None = None
    publish_retry: PublishRetryProfile | None = None
    retention_span_ns: int | None = Field(default=None, ge=0)


class AckTimeProfile(_Strict):
    """``ack_time`` of sampled acks, nanoseconds: time from the last (re)delivery to the ack."""

    samples: int = Field(ge=1)
    p50: int = Field(ge=0)
    p90: int = Field(ge=0)
    p99: int = Field(ge=0)
    p999: int = Field(ge=0)
    max: int = Field(ge=0)
    #: set when the percentiles come from a log-bucketed histogram (a merged profile store): each is
    #: within this fraction of the exact value; absent when they are exact or rank-approximate
    relative_error: float | None = Field(default=None, ge=0, lt=1)


class DeliveriesProfile(_Strict):
    first_try_ratio: float = Field(ge=0, le=1)
    redelivered_ratio: float = Field(ge=0, le=1)
    max: int = Field(ge=1)


class AdvisoriesProfile(_Strict):
    max_deliver: int | None = Field(default=None, ge=0)
    nak: int | None = Field(default=None, ge=0)
    terminated: int | None = Field(default=None, ge=0)


class DeliveryRateProfile(_Strict):
    """Deliveries per second from consumer state snapshots (``delivered.consumer_seq`` deltas)."""

    mean_per_s: float | None = Field(default=None, ge=0)
    peak_per_s: float | None = Field(default=None, ge=0)


class ConsumerProfile(_Strict):
    ack_time_ns: AckTimeProfile | None = None
    deliveries: DeliveriesProfile | None = None
    advisories: AdvisoriesProfile | None = None
    delivery: DeliveryRateProfile | None = None


class Profiles(_Strict):
    """The whole profiles document. Consumers are keyed ``"<stream>/<consumer>"``."""

    version: int = 1
    generated_at: datetime
    window: ProfileWindow | None = None
    streams: dict[str, StreamProfile] = Field(default_factory=dict)
    consumers: dict[str, ConsumerProfile] = Field(default_factory=dict)

    def stream(self, name: str) -> StreamProfile | None:
        return self.streams.get(name)

    def consumer(self, stream: str, name: str) -> ConsumerProfile | None:
        return self.consumers.get(f"{stream}/{name}")


class ProfilesError(LinterError, ValueError):
    """A profiles file that cannot be read or does not validate (message names the file and the field)."""


def load_profiles(path: str | Path) -> Profiles:
    """Read and validate a profiles JSON file; raises :class:`ProfilesError` with a one-line reason."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProfilesError(f"{p}: cannot read profiles: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProfilesError(f"{p}: not a JSON profiles file: {exc}") from None
    try:
        return Profiles.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "(top level)"
        raise ProfilesError(f"{p}: invalid profiles at {where}: {first['msg']}") from None
