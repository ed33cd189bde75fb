"""Helpers shared by the capacity and cost rules (``rules/capacity/``).

Everything here is a pure function of a config, a profile or the target; estate indexes are built
once per lint run and cached on the context, so every rule stays linear in the estate size.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from jsops.linter import api

if TYPE_CHECKING:  # annotations only: a lint without profiles never imports them
    from jsops.linter.api import StreamProfile

__all__ = [
    "byte_rate",
    "human_rate",
    "ceil_size",
    "multi_node",
    "hard_byte_bound",
    "profiled_bytes",
    "sourced_origins",
]


# ---------------------------------------------------------------------------------------------
# profiles and figures


def byte_rate(profile: StreamProfile | None, which: str = "mean") -> float | None:
    """Stored bytes per second from a stream profile: ``bytes.mean_per_s`` (``which="mean"``) or
    ``bytes.peak_per_s`` (``"peak"``); None when the profile lacks the figure (never a guess)."""
    if profile is None or profile.bytes is None:
        return None
    value = profile.bytes.mean_per_s if which == "mean" else profile.bytes.peak_per_s
    return float(value) if value is not None else None


def human_rate(bytes_per_s: float) -> str:
    return f"{api.human_size(bytes_per_s)}/s"


def ceil_size(n: float) -> int:
    """``n`` bytes rounded up to a whole KiB, MiB or GiB (whichever unit ``n`` reaches), so that
    :func:`jsops.linter.semantics.units.format_size` prints it readably."""
    for size in (api.GIB, api.MIB, api.KIB):
        if n >= size:
            return int(math.ceil(n / size)) * size
    return int(math.ceil(n))


def hard_byte_bound(eff: api.EffectiveStream, target: api.Target) -> int | None:
    """The most a stream can store per replica by its declared limits alone: ``max_bytes``, else
    ``max_msgs`` times the largest message (``max_msg_size``, else the target's ``max_payload``);
    None when nothing declared bounds it."""
    max_bytes = eff.max_bytes
    if max_bytes > 0:
        return int(max_bytes)
    max_msgs = eff.max_msgs
    largest = eff.max_msg_size
    if largest <= 0:
        largest = target.max_payload or -1
    if max_msgs > 0 and largest > 0:
        return int(max_msgs) * int(largest)
    return None


def profiled_bytes(eff: api.EffectiveStream, profile: StreamProfile | None) -> tuple[float, str] | None:
    """What a stream is expected to hold per replica by the profile, with how it was computed:
    the smaller of mean byte rate x ``max_age`` and ``max_msgs`` x mean stored message size.
    None when the profile lacks the figures for both."""
    if profile is None or profile.bytes is None:
        return None
    out: list[tuple[float, str]] = []
    rate = profile.bytes.mean_per_s
    max_age = eff.max_age
    if rate and max_age > 0:
        out.append(
            (
                rate * max_age / api.SECOND,
                f"profiled mean {human_rate(rate)} over max_age {api.format_duration(max_age)}",
            )
        )
    size = profile.bytes.stored_msg_size_mean
    max_msgs = eff.max_msgs
    if size and max_msgs > 0:
        out.append((size * max_msgs, f"max_msgs x profiled mean stored size {api.human_size(size)}"))
    return min(out) if out else None


# ---------------------------------------------------------------------------------------------
# target


def multi_node(target: api.Target) -> bool | None:
    """True when the target is a JetStream cluster of more than one node, False when it is known
    to be a single node, None when the target does not say."""
    if target.cluster_size is not None:
        return target.cluster_size > 1
    if target.clustered is not None:
        # Clustered JetStream needs a meta group; a "cluster" of one node is not clustered mode.
        return target.clustered
    return None


# ---------------------------------------------------------------------------------------------
# estate indexes (cached per lint run)


def sourced_origins(ctx: api.RuleContext) -> set[tuple[str, str]]:
    """(context, stream name) of every stream that another stream of the estate mirrors or sources
    (not through ``external``): the server keeps a consumer on the origin for each of them."""

    def build() -> set[tuple[str, str]]:
        out: set[tuple[str, str]] = set()
        for r in ctx.estate.resources:
            if r.kind != "Stream":
                continue
            cfg: Any = r.config
            mirror = getattr(cfg, "mirror", None)
            if mirror is not None and mirror.external is None and mirror.name:
                out.add((r.context, mirror.name))
            for src in getattr(cfg, "sources", None) or ():
                if src.external is None and src.name:
                    out.add((r.context, src.name))
        return out

    return ctx.cached("sourced_origins", build)
