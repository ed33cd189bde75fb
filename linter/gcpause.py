"""No garbage collection while a lint or a plan is made.

Loading, linting and planning an estate allocate millions of small objects that live until the
result is shown (manifest trees, positions, models, configs, findings, live infos) and almost no
cyclic garbage, so every collection in between traverses them for nothing: 0.5 s of a no-op plan
at 1,000 streams x 5 consumers, 2.4 s at 3,000 x 5; a third of a lint's CPU time at 2,000 files
(10,000 objects). :func:`gc_paused` switches the collector off for the duration and,
on the way out, freezes what was allocated (:func:`gc.freeze`: later collections skip it) before
switching the collector back on, so that the first collection after the plan does not traverse it
either. For one-shot commands (``jsops lint``, ``plan``, ``apply``), not for the controller's long life.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """The collector off inside; on the way out what was allocated is frozen and it is on again
    (as it was before)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was:
            gc.enable()
