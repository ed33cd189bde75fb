"""The consumer APIs jsops uses instead of recreating a consumer: pause/resume and reset.

Facts read in nats-server's source (``server/jetstream_api.go``, ``server/consumer.go``) and checked
on the 2.10.26, 2.11.11, 2.12.8, 2.14.6 and 2.15.1 binaries:

- ``$JS.API.CONSUMER.PAUSE.<stream>.<consumer>`` (2.11+), body ``{"pause_until": RFC 3339}``: the
  consumer delivers nothing until then; an empty body (or ``{}``) resumes it. The answer is
  ``{"paused": bool, "pause_until": ..., "pause_remaining": ns}``; the consumer's config then holds
  ``pause_until`` in UTC (a time already past is kept, and the consumer is not paused), and none after a
  resume. A config update ignores ``pause_until``; a create honours it. 2.10 has no pause API: the
  request gets no answer.
- ``$JS.API.CONSUMER.RESET.<stream>.<consumer>`` (2.14+), body ``{"seq": N}``: the consumer starts
  again at stream sequence N (delivered and ack floor N-1, pending acks dropped); no body (or seq 0)
  resets it to its ack floor (N = ack floor + 1). The config (deliver policy, start) is not changed.
  A non-zero N is refused (err_code 10204, "invalid reset") unless the consumer's deliver policy is
  ``all``, or ``by_start_sequence`` with N at or above its ``opt_start_seq`` (``by_start_time``: at or
  above the first sequence at that time). On an interest stream, messages below the new floor that no
  other consumer wants are removed. 2.11 and 2.12 have no reset API: the request gets no answer.

Pure: the requests are :meth:`jsops.reconciler.client.JsClient.apause_consumer` and
:meth:`~jsops.reconciler.client.JsClient.areset_consumer`; the plan decides in :mod:`jsops.reconciler.plan.apis`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from jsops.linter import EffectiveConsumer, ErrCode, ServerVersion, format_version, parse_version

__all__ = [
    "PAUSE_RELEASE",
    "RESET_RELEASE",
    "PROMOTE_RELEASE",
    "INVALID_RESET",
    "can_pause",
    "can_reset",
    "can_promote",
    "canonical_time",
    "no_pause_reason",
    "reset_allowed",
    "start_sequence",
]

PAUSE_RELEASE: ServerVersion = (2, 11, 0)
RESET_RELEASE: ServerVersion = (2, 14, 0)
# An update that removes a mirror's `mirror` (and gives it subjects): accepted by 2.12.8, 2.14.6 and 2.15.1,
# refused with 10055 by 2.10.26 and 2.11.11 (tests/integration/test_failover_supercluster.py).
PROMOTE_RELEASE: ServerVersion = (2, 12, 0)
INVALID_RESET = ErrCode.CONSUMER_INVALID_RESET  # "invalid reset: not allowed" / "below start seq" / "below start time"


def _release(version: str | None) -> ServerVersion | None:
    return parse_version(version) if version else None


def can_pause(version: str | None) -> bool | None:
    """Whether a server of ``version`` has the pause API (None: the release is not known)."""
    v = _release(version)
    return None if v is None else v >= PAUSE_RELEASE


def can_reset(version: str | None) -> bool | None:
    """Whether a server of ``version`` has the consumer reset API (None: the release is not known)."""
    v = _release(version)
    return None if v is None else v >= RESET_RELEASE


def can_promote(version: str | None) -> bool | None:
    """Whether a server of ``version`` promotes a mirror in place (None: the release is not known)."""
    v = _release(version)
    return None if v is None else v >= PROMOTE_RELEASE


def no_pause_reason(version: str) -> str:
    return (
        f"nats-server {version} has no pause API ({format_version(PAUSE_RELEASE)}+): the consumer cannot be paused "
        "or resumed on this release; upgrade the servers or remove pause_until"
    )


def canonical_time(value: str) -> str:
    """An RFC 3339 time as the server stores it after a pause (UTC, ``Z``, trailing zeros of the
    fraction dropped), so that ``+02:00`` and ``Z`` spellings of one instant compare equal. Anything
    that is not such a time is returned unchanged."""
    if "T" not in value:
        return value
    text, frac, zone = value, "", ""
    if text.endswith(("Z", "z")):
        text, zone = text[:-1], "+00:00"
    elif len(text) > 6 and text[-6] in "+-" and text[-3] == ":":
        text, zone = text[:-6], text[-6:]
    else:
        return value
    if "." in text:
        text, frac = text.split(".", 1)
        if not frac.isdigit() or len(frac) > 9:
            return value
    try:
        stamp = datetime.fromisoformat(text + zone).astimezone(UTC)
    except ValueError:
        return value
    frac = frac.rstrip("0")
    return stamp.strftime("%Y-%m-%dT%H:%M:%S") + (f".{frac}" if frac else "") + "Z"


def start_sequence(start: EffectiveConsumer, first_seq: int, last_seq: int) -> int | None:
    """The stream sequence a consumer with the start fields of ``start`` (``deliver_policy``,
    ``opt_start_seq``) begins at on a stream holding ``first_seq``..``last_seq``; None when no
    single sequence says it (``by_start_time``, ``last_per_subject``)."""
    policy = start.deliver_policy or "all"
    if policy == "all":
        return first_seq if first_seq > 0 else last_seq + 1
    if policy == "by_start_sequence":
        seq = start.opt_start_seq
        return seq if seq is not None and seq > 0 else None
    if policy == "new":
        return last_seq + 1
    if policy == "last":
        return last_seq if last_seq > 0 else 1
    return None


def reset_allowed(live_cfg: EffectiveConsumer, seq: int) -> bool:
    """Whether the server accepts a reset of a consumer with ``live_cfg`` to stream sequence ``seq``
    (a reset to the ack floor is always accepted; ``by_start_time`` is not judged here)."""
    policy = live_cfg.deliver_policy or "all"
    if policy == "all":
        return True
    if policy == "by_start_sequence":
        start = live_cfg.opt_start_seq
        return start is not None and seq >= start
    return False
