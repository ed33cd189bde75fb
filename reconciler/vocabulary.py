"""The reconciler's words, typed: what an action does, how a field change is classed, how an
applied action ended.

Each is a :class:`~enum.StrEnum`: a member *is* its string (``ActionKind.CREATE == "create"``),
so plans and outcomes serialise to the same JSON as always, saved plans load, and a member prints
as its value. Members know what the renderers show for them (an action its terraform-style
symbol and the past tense apply reports). :class:`ChangeClass` is the field catalog's
(:mod:`jsops.linter.semantics.catalog`), the one vocabulary of the linter and the plan.
"""

from __future__ import annotations

from enum import StrEnum

from jsops.linter import ChangeClass

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


class Outcome(StrEnum):
    """How one action of an apply ended."""

    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"  # not attempted (a dependency failed, an interruption, a lost connection)
    BLOCKED = "blocked"  # refused by the permissions (flags or annotations)
    UNKNOWN = "unknown"  # the request got no answer and the object could not be read back
