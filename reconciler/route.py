"""Which target each manifest goes to: ``metadata.context`` routes objects to named targets.

Objects without a context (``default``) go to the run's default target: the one ``--server`` /
``--context`` / the target flags name, else the jsops config's ``default`` context, else the local
server. Objects whose context equals the default target's name go there too. Every other context
named in the manifests is resolved by name (jsops config first, then natscli context files).
Contexts that resolve to the same server and account are one target, planned once, so that no
context prunes another's objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from jsops.linter import Estate

from .client import Target

__all__ = ["Route", "route_estate"]


@dataclass
class Route:
    target: Target
    contexts: list[str]  # manifest contexts planned on this target; the first names it

    @property
    def name(self) -> str:
        return self.contexts[0]


def route_estate(
    estate: Estate | None, default: Target, resolve: Callable[[str], Target], *, explicit: bool = True
) -> list[Route]:
    """The targets a run plans, the default one first, then the others by context name.

    With ``explicit=False`` (no target was named: neither flags nor a ``default`` context) the
    default target is planned only when some object is routed to it or no other target is."""
    first = ["default"] + ([default.context] if default.context != "default" else [])
    routes = [Route(default, first)]
    used = {r.context for r in estate.resources} if estate is not None else set()
    named = sorted(used - set(first))
    for name in named:
        target = resolve(name)
        for route in routes:
            if route.target.identity() == target.identity():
                route.contexts.append(name)
                break
        else:
            routes.append(Route(target, [name]))
    if not explicit and len(routes) > 1 and not used & set(routes[0].contexts):
        routes.pop(0)
    return routes
