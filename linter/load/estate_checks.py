"""Checks done once the whole estate is loaded: objects declared twice, and consumers whose stream no
manifest declares (findings JS0xx, raised by the loader)."""

from __future__ import annotations

from dataclasses import replace

from ..findings import FieldPath
from ..model.config import ConsumerConfig
from ..model.resource import Estate, Resource, ResourceKey
from ..semantics.errcodes import ErrCode
from .messages import finding, short, shown

__all__ = ["check_estate"]


def _name_path(r: Resource) -> FieldPath:
    """The document path of the value that names ``r``."""
    if r.dialect == "native":
        return ("metadata", "name")
    if r.dialect.startswith("nack"):
        return ("spec", "name") if r.kind == "Stream" else ("spec", "durableName")
    field_name = (
        "name"
        if r.kind == "Stream" or not isinstance(r.config, ConsumerConfig) or not r.config.durable_name
        else "durable_name"
    )
    return r.spec_path + (field_name,)


def _stream_path(r: Resource) -> FieldPath:
    """The document path of the value that names a consumer's stream."""
    if r.dialect == "native":
        return ("metadata", "stream")
    if r.dialect.startswith("nack"):
        return ("spec", "streamName")
    return ("stream_name",)


def _directory_not_a_stream(r: Resource, estate: Estate) -> None:
    """A bare consumer config (no stream in the file, none given) in a directory that is not a
    declared stream: which stream it is for is a layout question, not the server's. The directory's
    name was only a guess: the consumer joins the bare ones (its stream unknown, never the guess),
    checked without its stream (the lint engine says which checks that skips); no JS022 note."""
    estate.findings = [f for f in estate.findings if not (f.rule == "JS022" and f.file == r.file and f.object == r.ref)]
    estate.bare.append(replace(r, stream=None))


def check_estate(estate: Estate) -> None:
    seen: dict[ResourceKey, Resource] = {}
    kept: list[Resource] = []
    for r in estate.resources:
        first = seen.get(r.key)
        if first is not None:
            line, col = r.locate(_name_path(r), document_path=True)
            fline, _ = first.locate(_name_path(first), document_path=True)
            where = f" in context {short(r.context)!r}" if r.context != "default" else ""
            estate.findings.append(
                finding(
                    "duplicate-object",
                    f"{shown(r.ref)}{where} is declared twice; the first declaration is at {first.file}:{fline}",
                    r.file,
                    line,
                    col,
                    r.ref,
                )
            )
            continue
        seen[r.key] = r
        kept.append(r)
    estate.resources = kept
    streams = {(r.context, r.name) for r in kept if r.kind == "Stream"}
    streams |= {(ctx, name) for ctx, kind, name, _ in estate.invalid if kind == "Stream"}
    guessed = [
        r
        for r in kept
        if r.kind == "Consumer" and r.key in estate.named_from_path and (r.context, r.stream) not in streams
    ]
    for r in guessed:
        _directory_not_a_stream(r, estate)
    if guessed:
        estate.resources = kept = [r for r in kept if not any(r is g for g in guessed)]
    for r in kept:
        if r.kind == "Consumer" and (r.context, r.stream) not in streams:
            line, col = r.locate(_stream_path(r), document_path=True)
            where = f" in context {short(r.context)!r}" if r.context != "default" else ""
            estate.findings.append(
                finding(
                    "consumer-stream-not-found",
                    f"consumer {short(r.name)!r} belongs to stream {short(r.stream)!r}, which no manifest declares{where}; "
                    "nats-server rejects a consumer on a missing stream",
                    r.file,
                    line,
                    col,
                    r.ref,
                    ErrCode.STREAM_NOT_FOUND,
                )
            )
