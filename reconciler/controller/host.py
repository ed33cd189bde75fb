"""The controller as the parts of a round see it: the options it runs with, and what a target's round
(:mod:`jsops.reconciler.controller.target`) and the pull planner (:mod:`jsops.reconciler.controller.pulls`)
call back into the loop that runs them (:class:`jsops.reconciler.controller.loop.Controller`).

The loop imports its parts; they know it only by this :class:`Controller` protocol, so that no part imports
the loop.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..client import Target
    from .events import EventLog
    from .metrics import Metrics

__all__ = ["Controller", "ControllerOptions"]


@dataclass
class ControllerOptions:
    paths: list[str]
    interval: float = 30.0
    listen: tuple[str, int] | None = ("127.0.0.1", 9464)
    env: str | None = None
    dry_run: bool = False
    git: bool = False
    lease: bool = True
    lease_ttl: float = 15.0
    lease_bucket: str = "JSOPS_CONTROLLER"
    lease_key: str = "leader"
    identity: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")
    max_backoff: float = 60.0
    once: bool = False
    config: Any = None  # the jsops config (contexts, lint selection, declared target facts); None: defaults
    # Whether the default target was named (flags, --context, or a `default` context in the config).
    # When it was not and every object has a context, the local default server is not contacted.
    explicit_target: bool = True
    # The git source followed before each round (``--repo``; ``--git`` makes one for the clone
    # holding the first PATH): a :class:`jsops.reconciler.controller.git.GitSource`, or None.
    source: Any = None
    # No tug-of-war (docs/drift.md): a field the same client changes this many times within the window
    # (seconds) is no longer healed (0: never).
    quarantine_after: int = 3
    quarantine_window: float = 600.0
    advisory_subscription: bool = False  # hear each target's API audit advisories itself (controller/heard.py)


class Controller(Protocol):
    """The loop (:class:`jsops.reconciler.controller.loop.Controller`) as its parts call it."""

    @property
    def options(self) -> ControllerOptions: ...

    @property
    def log(self) -> EventLog: ...  # the event log: ``log(event, **fields)``

    @property
    def metrics(self) -> Metrics: ...

    @property
    def target(self) -> Target: ...  # the default target (objects without ``metadata.context``)

    @property
    def targets(self) -> Mapping[str, object]: ...  # the targets reconciled, by context name, in routing order

    @property
    def roots(
        self,
    ) -> tuple[str, ...]: ...  # the followed trees (:func:`jsops.reconciler.controller.source.followed_roots`)

    def leader(self, context: str | None = None) -> bool:
        """Whether this controller may apply to the target of ``context`` (None: to every target)."""
        ...

    def count_error(
        self, kind: str, exc: BaseException | str, *, err_code: int | None = None, context: str | None = None
    ) -> None:
        """Count and log an error of ``kind`` (on the target of ``context``; None: not a target's)."""
        ...
