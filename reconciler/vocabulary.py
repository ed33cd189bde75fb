"""The reconciler's words, typed: what an action does, how a field change is classed, how an
applied action ended.

Each is a :class:`~enum.StrEnum`: a member *is* its string (``ActionKind.CREATE == "create"``),
so plans and outcomes serialise to the same JSON as always, saved plans load, and a member prints
as its value. Members know what the renderers show for them (an action its terraform-style
symbol and the past tense apply reports).
"""

from __future__ import annotations

from enum import StrEnum
from typing import get_args

from jsops.linter import CLASS_ORDER
from jsops.linter import ChangeClass as LintChangeClass

__all__ = ["ActionKind", "ChangeClass", "Outcome"]


class ActionKind(StrEnum):
    """What an action of a plan does to one object."""

    CREATE = "create"
    UPDATE = "update"
    RECREATE = "recreate"
    DELETE = "delete"
    ADOPT = "adopt"
    BLOCKED = "blocked"
    # A recreate-class change or a rename carried out without loss (``--migrate``,
    # :mod:`jsops.reconciler.plan.migration`): the new stream is built from the old one's data.
    MIGRATE = "migrate"
    # A consumer changed through a server API instead of a recreate (jsops.reconciler.server_apis): its
    # other changes, if any, are sent as an update too.
    PAUSE = "pause"  # $JS.API.CONSUMER.PAUSE with a time (2.11+)
    RESUME = "resume"  # $JS.API.CONSUMER.PAUSE without one (2.11+)
    RESET = "reset"  # $JS.API.CONSUMER.RESET (2.14+): a changed start without a recreate

    @property
    def symbol(self) -> str:
        """The plan's mark for it: ``+`` create, ``~`` update or adopt, ``-/+`` recreate,
        ``-`` delete, ``!`` blocked, ``=>`` migrate, ``||`` pause, ``|>`` resume, ``<<`` reset."""
        return _SYMBOLS[self]

    @property
    def past(self) -> str:
        """What apply reports when it is done (``created``, ``deleted and created again``, ...)."""
        return _PAST[self]

    @property
    def writes(self) -> bool:
        """Whether the action carries the object's config (create, update, recreate, adopt, migrate,
        and pause, resume and reset, which send it as an update when they change more)."""
        return self not in (ActionKind.DELETE, ActionKind.BLOCKED)

    @property
    def creates(self) -> bool:
        """Whether the object need not exist yet: a create, or a migration (it builds the new stream)."""
        return self in (ActionKind.CREATE, ActionKind.MIGRATE)

    @property
    def server_api(self) -> bool:
        """Whether apply changes the object through a server API instead of a config (pause, resume, reset)."""
        return self in (ActionKind.PAUSE, ActionKind.RESUME, ActionKind.RESET)


_SYMBOLS = {
    ActionKind.CREATE: "+",
    ActionKind.UPDATE: "~",
    ActionKind.ADOPT: "~",
    ActionKind.RECREATE: "-/+",
    ActionKind.DELETE: "-",
    ActionKind.BLOCKED: "!",
    ActionKind.MIGRATE: "=>",
    ActionKind.PAUSE: "||",
    ActionKind.RESUME: "|>",
    ActionKind.RESET: "<<",
}
_PAST = {
    ActionKind.CREATE: "created",
    ActionKind.UPDATE: "updated",
    ActionKind.ADOPT: "adopted",
    ActionKind.RECREATE: "deleted and created again",
    ActionKind.DELETE: "deleted",
    ActionKind.BLOCKED: "blocked",
    ActionKind.MIGRATE: "migrated without loss",
    ActionKind.PAUSE: "paused",
    ActionKind.RESUME: "resumed",
    ActionKind.RESET: "reset",
}


class ChangeClass(StrEnum):
    """The class of one field change: those of :mod:`jsops.linter.semantics.updates` (what the server lets an
    update change, and ``reset``: a consumer start the server refuses as an update, made through the
    reset API), and ``data-loss``, which the plan gives a limit change that removes stored messages
    (:mod:`jsops.reconciler.dataloss`)."""

    IN_PLACE = "in-place"
    ONE_WAY = "one-way"
    RESET = "reset"
    RECREATE = "recreate"
    FORBIDDEN = "forbidden"
    DATA_LOSS = "data-loss"

    @property
    def rank(self) -> int:
        """Severity as :func:`jsops.linter.semantics.updates.worst` orders it (``data-loss`` counts as in place:
        the server applies it as an update)."""
        return CLASS_ORDER.get(self.value, 0)


# The linter's classes are the source; this enum names them and adds the reconciler's own.
assert set(get_args(LintChangeClass)) == {c.value for c in ChangeClass} - {ChangeClass.DATA_LOSS.value}


class Outcome(StrEnum):
    """How one action of an apply ended."""

    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"  # not attempted (a dependency failed, an interruption, a lost connection)
    BLOCKED = "blocked"  # refused by the permissions (flags or annotations)
    UNKNOWN = "unknown"  # the request got no answer and the object could not be read back
