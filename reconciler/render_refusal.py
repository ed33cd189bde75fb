"""Why an action is blocked, as text: a typed :class:`~jsops.reconciler.permissions.Refusal`
rendered with the grants it lacks named in the caller's vocabulary (flags for ``jsops plan``/``apply``,
annotations for the controller, the recorded marks for an object that left the manifests).

The plan holds the typed refusal in a verdict (:func:`reason` renders one); the text plan, the JSON plan, apply's outcome and the controller's
events all render it here (never by rewriting another vocabulary's text).
"""

from __future__ import annotations

from typing import Protocol

from .permissions import ALLOW_DATA_LOSS, ALLOW_PRUNE, Permission, Refusal, Vocabulary
from .verdict import Blocked, Verdict

__all__ = ["needs_text", "reason", "reason_of", "render_refusal"]

_LOSSLESS = "; or {flag}, which moves them to the new config without loss"


def _plural(n: int) -> str:
    return f"{n} message{'s' if n != 1 else ''}"


def needs_text(missing: tuple[Permission, ...], via: Vocabulary) -> str:
    """``needs --allow-recreate and --allow-data-loss``, or with annotations
    ``needs the annotation jsops.io/allow-recreate: "true" on its manifest``."""
    if via == Vocabulary.FLAGS:
        return "needs " + " and ".join(p.flag for p in missing)
    quoted = " and ".join(f'{p.annotation}: "true"' for p in missing)
    return f"needs the annotation{'s' if len(missing) > 1 else ''} {quoted} on its manifest"


def render_refusal(r: Refusal, *, label: str, lost: int = 0) -> str:
    """The text of ``r`` for an action on ``label`` (a stream's name, ``STREAM/CONSUMER``) that
    removes ``lost`` stored messages."""
    if not r.missing:
        return r.said
    if r.via == Vocabulary.MARKS:  # the controller prunes by what the object's last apply recorded
        if Permission.PRUNE in r.missing:
            return f'left the manifests; it is pruned only if its manifest had {ALLOW_PRUNE}: "true" when it was last applied'
        return f'left the manifests holding {_plural(lost)}; pruning it needs {ALLOW_DATA_LOSS}: "true" as well'
    if r.missing == (Permission.ADOPT,) and r.via == Vocabulary.FLAGS:
        return f"{r.said}pass {Permission.ADOPT.flag} {label} to take it over"
    hint = _LOSSLESS.format(flag=Permission.MIGRATE.flag) if r.lossless and r.via == Vocabulary.FLAGS else ""
    return r.said + needs_text(r.missing, r.via) + hint


def reason(v: Verdict, *, label: str, lost: int = 0) -> str | None:
    """Why a verdict blocks an intent on ``label`` (that removes ``lost`` stored messages), as text;
    None when it does not block (or a saved plan's JSON gave no reason)."""
    if not isinstance(v, Blocked):
        return None
    if isinstance(v.refusal, str):
        return v.refusal or None
    return render_refusal(v.refusal, label=label, lost=lost)


class Judged(Protocol):
    """What :func:`reason_of` reads of a plan's item (the renderer imports no plan)."""

    @property
    def verdict(self) -> Verdict: ...
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def stream(self) -> str | None: ...
    @property
    def data_loss(self) -> int | None: ...


def reason_of(a: Judged) -> str | None:
    """Why plan item ``a`` is blocked, as text (None when it is not): its verdict rendered."""
    label = f"{a.stream}/{a.name}" if a.kind == "Consumer" else a.name
    return reason(a.verdict, label=label, lost=a.data_loss or 0)
