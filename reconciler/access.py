"""Which manifests may name which contexts, and which servers a NACK Account may point at.

A manifest's ``metadata.context`` (or NACK ``spec.account``) picks the target, with that target's
credentials: without a bound, a file under ``teams/a/`` naming ``context: team-b`` is applied into
team B's account, and a NACK ``Account`` with ``servers:`` makes jsops connect wherever it says.
The jsops config's ``access`` list bounds both::

    access:
      - paths: [teams/a]                 # manifests under these paths (relative to the config's
        contexts: [team-a]               #   directory; globs with * and **) may name these contexts
        servers: ["nats://a-1:4222"]     # and a NACK Account there may point at these servers

The rules:

- an object routed to the run's own target (no context, or the default target's own context name)
  is always allowed;
- any other context is allowed when a rule whose ``paths`` match the manifest lists it (``"*"``:
  any context);
- a NACK Account whose ``servers`` are used (some object names it and no config or natscli context
  of that name takes precedence) is allowed when a rule whose ``paths`` match the Account's file
  lists every one of them (host and port compared; ``"*"``: any server).

``jsops plan``/``apply`` enforce the list when the config has one; the controller always does (no
``access`` list: only its own target, no Account servers). A refused context is a plan-level
error that names the file, the context and the rule; nothing is planned for it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .client import URLError, context_dir, parse_servers

if TYPE_CHECKING:
    from jsops.linter import Config, Estate

__all__ = ["AccessRefusal", "access_refusals", "path_matches", "shadowed_contexts"]


@dataclass(frozen=True)
class AccessRefusal:
    context: str
    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


def _pattern(glob: str) -> re.Pattern[str]:
    out = []
    i = 0
    text = glob.strip("/")
    while i < len(text):
        if text.startswith("**", i):
            out.append(".*")
            i += 2
        elif text[i] == "*":
            out.append("[^/]*")
            i += 1
        elif text[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(text[i]))
            i += 1
    return re.compile("".join(out) + "(/.*)?")  # a directory matches what is under it


def path_matches(path: str, globs: Iterable[str]) -> bool:
    """Whether ``path`` (``/``-separated, relative) is one of ``globs`` or under one of them."""
    return any(_pattern(g).fullmatch(path) for g in globs)


def _relative(file: str, root: str) -> str:
    rel = os.path.relpath(os.path.abspath(file), os.path.abspath(root))
    return rel.replace(os.sep, "/")


def _endpoint(url: str) -> tuple[str, int] | None:
    try:
        parsed = parse_servers(url)
    except URLError:
        return None
    if len(parsed) != 1:
        return None
    return parsed[0].host.lower(), parsed[0].port or 4222


def _servers_refused(servers: Sequence[str], allowed: Iterable[str]) -> list[str]:
    """The servers of ``servers`` that ``allowed`` does not list, shown without user information."""
    allowed = list(allowed)
    if "*" in allowed:
        return []
    known = {_endpoint(a) for a in allowed} - {None}
    out = []
    for s in servers:
        if _endpoint(s) not in known:
            try:
                out.append(", ".join(u.bare() for u in parse_servers(s)))
            except URLError:
                out.append("(an invalid URL)")
    return out


def shadowed_contexts(names: Iterable[str], config: Config | None, directory: str | None = None) -> set[str]:
    """The ``names`` a jsops config context or a natscli context file resolves before any NACK
    Account of the same name (see :func:`jsops.reconciler.client.resolve_context`)."""
    declared = set(config.contexts) if config is not None else set()
    folder = directory or context_dir()
    return {n for n in names if n in declared or os.path.isfile(os.path.join(folder, f"{n}.json"))}


def access_refusals(estate: Estate, config: Config | None, own: Iterable[str]) -> list[AccessRefusal]:
    """What ``estate`` names that ``config.access`` does not allow (no config or no ``access``: only the
    contexts ``own``, the run's own target, and no Account servers)."""
    rules = list(config.access or []) if config is not None else []
    root = (config.root if config is not None else ".") or "."
    source = (config.source if config is not None else None) or "the jsops config"
    own = set(own)
    refused: list[AccessRefusal] = []
    seen: set[tuple[str, str]] = set()
    for res in estate.resources:
        ctx = res.context
        if ctx in own or (res.file, ctx) in seen:
            continue
        seen.add((res.file, ctx))
        rel = _relative(res.file, root)
        allowed = sorted({c for r in rules if path_matches(rel, r.paths) for c in r.contexts})
        if ctx in allowed or "*" in allowed:
            continue
        what = f"names context {ctx!r}"
        if not rules:
            why = (
                f"{what}, but no `access` list in {source} allows any context besides the controller's own target "
                "(add `access: [{paths: [...], contexts: [...]}]`)"
            )
        else:
            here = ", ".join(repr(c) for c in allowed) if allowed else "none"
            why = f"{what}, which the `access` list of {source} does not allow for {rel} (allowed here: {here})"
        refused.append(AccessRefusal(ctx, res.file, res.doc_line, why))
    used = {r.context for r in estate.resources} - own
    used -= shadowed_contexts(used, config)
    for name, account in sorted(estate.accounts.items()):
        if name not in used or not account.servers:
            continue
        rel = _relative(account.file, root)
        allowed_servers = [s for r in rules if path_matches(rel, r.paths) for s in r.servers]
        bad = _servers_refused(account.servers, allowed_servers)
        if bad:
            refused.append(
                AccessRefusal(
                    name,
                    account.file,
                    account.line,
                    f"NACK Account {name!r} points at {', '.join(bad)}, which the `access` list of "
                    f"{source} does not allow for {rel}" + ("" if rules else " (there is none)"),
                )
            )
    return refused
