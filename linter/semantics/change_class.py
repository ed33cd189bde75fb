"""The class of one field change: the one vocabulary of the field catalog's update facts
(:mod:`jsops.linter.semantics.catalog`, :mod:`jsops.linter.semantics.updates`) and the reconciler's
plans (re-exported by :mod:`jsops.reconciler.vocabulary`). It imports nothing."""

from __future__ import annotations

from enum import StrEnum
from typing import Final

__all__ = ["ChangeClass"]


class ChangeClass(StrEnum):
    """The class of one field change, for the linter and the reconciler (a member *is* its string). An
    update is ``in-place``, ``one-way``, ``recreate`` or ``forbidden`` (:attr:`Update.change`); ``reset``
    (a consumer start changed by the reset API) and ``data-loss`` (a limit change that removes stored
    messages) are the plan's."""

    IN_PLACE = "in-place"
    ONE_WAY = "one-way"
    RESET = "reset"
    RECREATE = "recreate"
    FORBIDDEN = "forbidden"
    DATA_LOSS = "data-loss"

    @property
    def rank(self) -> int:
        """Severity, in declaration order (``data-loss`` counts as in place: the server applies it)."""
        return _RANKS[self]


_RANKS: Final = {c: i for i, c in enumerate(ChangeClass)} | {ChangeClass.DATA_LOSS: 0}
