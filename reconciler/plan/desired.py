"""The desired objects: effective configs from the manifests, as a plan compares them with the
live state, and the jsops bookkeeping an apply writes with them (:func:`stamp`, the permission
marks, the position a recreated consumer resumes at)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from jsops.linter import (
    PREVENT_UPDATE,
    EffectiveConsumer,
    EffectiveStream,
    Estate,
    LintTarget,
    Resource,
    api_json,
    effective_consumer,
    effective_stream,
    is_stream,
)
from jsops.linter.model.config import ConsumerConfig

from ..configs import Config, ConfigT, with_metadata
from ..diff import START_FIELDS
from ..live import CONTEXT, ESTATE, MANAGED_BY, OWNER, REPO, RESUME, SOURCE
from ..permissions import RENAMED_FROM, annotation_true, prune_marks
from .scope import repo_root, source_path

__all__ = ["Desired", "desired_from_estate", "hold_start", "resume_config", "stamp"]


@dataclass(frozen=True)
class Desired:
    kind: str  # "Stream" | "Consumer"
    name: str
    stream: str | None
    config: (
        Config  # the effective config (with the prune marks of the manifest's annotations), without jsops bookkeeping
    )
    file: str = ""  # the manifest's path as recorded in metadata (see source_path)
    context: str = "default"  # the manifest's metadata.context
    prevent_update: bool = False  # NACK's preventUpdate (jsops.io/prevent-update): created, never changed
    # jsops.io/renamed-from: a stream's (jsops.reconciler.plan.migration), a consumer's (jsops.reconciler.plan.moved)
    renamed_from: str | None = None

    @property
    def key(self) -> tuple[str, str | None, str]:
        return (self.kind, self.stream, self.name)

    @property
    def stream_config(self) -> EffectiveStream:
        """The config of a desired stream."""
        if not isinstance(self.config, EffectiveStream):
            raise TypeError(f"{self.kind} {self.name}: not a stream")
        return self.config

    @property
    def consumer_config(self) -> EffectiveConsumer:
        """The config of a desired consumer."""
        if not isinstance(self.config, EffectiveConsumer):
            raise TypeError(f"{self.kind} {self.name}: not a consumer")
        return self.config


def desired_from_estate(
    estate: Estate,
    context: str = "default",
    *,
    contexts: Iterable[str] | None = None,
    target: LintTarget | None = None,
    root: str | None = None,
) -> list[Desired]:
    """Effective configs of the estate's objects routed to one target.

    A manifest annotated ``jsops.io/allow-prune: "true"`` gets the prune mark in its metadata
    (:func:`prune_marks`), so ``jsops plan``/``apply`` and the controller want the same server
    metadata and neither undoes the other's apply.

    With ``contexts``: exactly the objects whose ``metadata.context`` is one of them (objects
    without one are ``default``). Without it: those of ``context`` plus every ``default`` object.
    ``target`` gives the limits the server fills defaults from (see ``jsops.reconciler.limits``).
    Manifest paths are recorded in :func:`source_path` form (relative to ``root``, default the root of
    the repository holding the manifests, whatever the working directory)."""
    wanted = set(contexts) if contexts is not None else {context, "default"}
    res = [r for r in estate.resources if r.context in wanted]
    files = sorted({r.file for r in res if r.file})
    base = root or repo_root(files)
    paths = {f: source_path(f, base) for f in files}
    origins = {r.name: r.config for r in res if is_stream(r)}
    out: list[Desired] = []
    eff: dict[str, EffectiveStream] = {}
    for r in res:
        if is_stream(r):
            cfg = effective_stream(r.config, name=r.name, origins=origins, target=target)
            eff[r.name] = cfg
            out.append(
                Desired(
                    "Stream",
                    r.name,
                    None,
                    _marked(cfg, r),
                    paths.get(r.file, ""),
                    r.context,
                    annotation_true(r.annotations, PREVENT_UPDATE),
                    (r.annotations or {}).get(RENAMED_FROM) or None,
                )
            )
    for r in res:
        if r.kind == "Consumer":
            out.append(
                Desired(
                    "Consumer",
                    r.name,
                    r.stream,
                    _marked(_consumer(r, eff.get(r.stream or ""), target), r),
                    paths.get(r.file, ""),
                    r.context,
                    annotation_true(r.annotations, PREVENT_UPDATE),
                    (r.annotations or {}).get(RENAMED_FROM) or None,
                )
            )
    return out


def _marked(config: ConfigT, r: Resource) -> ConfigT:
    return with_metadata(config, prune_marks(r.annotations))


def _consumer(r: Resource, stream: EffectiveStream | None, target: LintTarget | None = None) -> EffectiveConsumer:
    cfg = r.config
    if not isinstance(cfg, ConsumerConfig):
        raise TypeError(f"{r.name}: not a consumer")
    durable = getattr(cfg, "durable_name", None)
    cname = getattr(cfg, "name", None)
    if not durable and not cname:
        durable = r.name
    return effective_consumer(cfg, stream, durable_name=durable, name=cname, target=target)


def stamp(
    config: ConfigT, source: str, context: str | None = None, estate: str | None = None, repo: str | None = None
) -> ConfigT:
    """``config`` with jsops ownership metadata (owner, manifest path, a non-default context and
    the estate when there is one, else the repository when given)."""
    meta = {MANAGED_BY: OWNER}
    if estate:
        meta[ESTATE] = estate
    elif repo:
        meta[REPO] = repo
    if source:
        meta[SOURCE] = source
    if context and context != "default":
        meta[CONTEXT] = context
    return with_metadata(config, meta)


def resume_config(config: EffectiveConsumer, start_seq: int) -> EffectiveConsumer:
    """``config`` starting at ``start_seq``, remembering the start the manifest asked for."""
    return _remember_start(
        config, config._replace(deliver_policy="by_start_sequence", opt_start_seq=start_seq, opt_start_time=None)
    )


def hold_start(config: EffectiveConsumer, live: EffectiveConsumer) -> EffectiveConsumer:
    """``config`` with the start fields (deliver policy, start sequence or time) of ``live``, which an
    update cannot change, remembering the start ``config`` asks for (``io.jsops.resume``): a consumer
    jsops recreated at its old position or reset (2.14+) compares with the manifest's start."""
    held = config._replace(
        deliver_policy=live.deliver_policy, opt_start_seq=live.opt_start_seq, opt_start_time=live.opt_start_time
    )
    return _remember_start(config, held)


def _remember_start(config: EffectiveConsumer, held: EffectiveConsumer) -> EffectiveConsumer:
    """``held`` remembering the start fields of ``config`` as its JSON gives them (an unset one left out)."""
    sent = api_json(config)
    start = {f: sent[f] for f in START_FIELDS if f in sent}
    return with_metadata(held, {RESUME: json.dumps(start, sort_keys=True, separators=(",", ":"))})
