"""Subject-mapping validation as nats-server does it.

Two entry points, matching the server's two checks:

* :func:`mapping_problem` -- the check for stream ``subject_transform``, ``mirror.subject_transforms``
  and ``sources[].subject_transforms`` (the server's mapping validation: destination tokens, known
  mapping functions, then building the transform);
* :func:`transform_problem` -- building the transform only, which is all the server does for a
  ``republish`` source and destination (whitespace in a destination token is not refused there).

nats-server 2.15.1 accepts ``{{left(..)}}`` and ``{{right(..)}}`` in all four places (checked
live), so mapping validation knows them too. Both entry points take the target's release
(measured on 2.10.26, 2.11.11, 2.12.8, 2.14.6 and 2.15.1): mapping validation learnt ``left`` and
``right`` in 2.15 (2.14.6 still refuses them; the transform builder knows them on every release);
``random()``, a ``partition(n)`` without wildcard indexes, and partition indexes on a source
without wildcards are accepted from 2.12; 2.10 validates a mirror or stream transform by building
it only (whitespace and ``left``/``right`` pass) and refuses an empty mirror or source ``src``.

Both return None for a valid pair, otherwise a short reason. They run in time linear in the
length of the destination.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .releases import NEWEST as _NEWEST
from .releases import Version
from .units import INT64_MAX as _INT64_MAX

__all__ = [
    "mapping_problem",
    "mapping_stage",
    "transform_problem",
    "BUILD_ONLY_BEFORE",
    "EMPTY_SRC_REFUSED_BEFORE",
    "LEFT_RIGHT_VALIDATED",
    "LOOSE_PARTITION_RANDOM",
]

LEFT_RIGHT_VALIDATED: Version = (2, 15, 0)  # mapping validation knows left() and right()
LOOSE_PARTITION_RANDOM: Version = (2, 12, 0)  # random(), bare partition(n), partition indexes on a literal source
BUILD_ONLY_BEFORE: Version = (2, 11, 0)  # stream and mirror transforms: built, not validated as mappings
EMPTY_SRC_REFUSED_BEFORE: Version = (2, 11, 0)  # an empty mirror/source transform src is an invalid subject

_INT32_MAX = (1 << 31) - 1
_INT64_MIN = -_INT64_MAX - 1
_WS = frozenset("\t\n\f\r ")
_S = "[\t\n\f\r ]*"  # Go's \s in RE2 (ASCII whitespace without \v)
_DIGITS = re.compile(r"[+-]?[0-9]+")
_COMMA = re.compile(",[\t\n\f\r ]*")


def _fn(name: str) -> re.Pattern[str]:
    """The opening of a mapping function, ``{{ name (``, as the server spells it (first letter and
    inner capitals in either case). The rest, ``(.*) )\\s* }}`` with a greedy argument, is matched
    by :func:`_args` in linear time (a backtracking regex would be quadratic on hostile input)."""
    letters = "".join(f"[{c.lower()}{c.upper()}]" if c.isupper() or i == 0 else c for i, c in enumerate(name))
    return re.compile(r"\{\{" + _S + letters + _S + r"\(")


_WILDCARD = _fn("wildcard")
_PARTITION = _fn("partition")
_SPLIT_FROM_LEFT = _fn("splitFromLeft")
_SPLIT_FROM_RIGHT = _fn("splitFromRight")
_SLICE_FROM_LEFT = _fn("sliceFromLeft")
_SLICE_FROM_RIGHT = _fn("sliceFromRight")
_SPLIT = _fn("split")
_LEFT = _fn("left")
_RIGHT = _fn("right")
_RANDOM = _fn("random")
# The functions mapping validation recognises.
_KNOWN_TO_VALIDATION = (
    _PARTITION,
    _WILDCARD,
    _SPLIT_FROM_LEFT,
    _SPLIT_FROM_RIGHT,
    _SLICE_FROM_LEFT,
    _SLICE_FROM_RIGHT,
    _SPLIT,
    _RANDOM,
    _LEFT,
    _RIGHT,
)
# (pattern, name) for the functions taking (wildcard index, int32), in the order the server tries them
_INDEX_INT = (
    (_SPLIT_FROM_LEFT, "splitFromLeft"),
    (_SPLIT_FROM_RIGHT, "splitFromRight"),
    (_SLICE_FROM_LEFT, "sliceFromLeft"),
    (_SLICE_FROM_RIGHT, "sliceFromRight"),
    (_RIGHT, "right"),
    (_LEFT, "left"),
)


class _Bad(Exception):
    pass


def _short(token: str) -> str:
    return token if len(token) <= 60 else token[:57] + "..."


def _atoi(text: str, lo: int = _INT64_MIN, hi: int = _INT64_MAX) -> int:
    """Go's strconv.Atoi / ParseInt(base 10): optional sign, ASCII digits, in range."""
    if not _DIGITS.fullmatch(text) or len(text) > 21:  # more digits than any 64-bit value
        raise _Bad
    v = int(text)
    if not lo <= v <= hi:
        raise _Bad
    return v


def _closers(token: str) -> list[int]:
    """For each position i, the largest q >= i where ``)`` followed by optional whitespace and
    ``}}`` starts, with no newline in between (Go's ``.`` does not match one); -1 when none."""
    n = len(token)
    braces = [False] * (n + 1)  # "}}" starts here, after optional whitespace
    for j in range(n - 1, -1, -1):
        braces[j] = token.startswith("}}", j) or (token[j] in _WS and braces[j + 1])
    out = [-1] * (n + 1)
    best = -1
    for i in range(n - 1, -1, -1):
        if token[i] == "\n":
            best = -1
        elif best < 0 and token[i] == ")" and braces[i + 1]:
            best = i
        out[i] = best
    return out


def _args(pattern: re.Pattern[str], token: str, closers: list[int]) -> list[str] | None:
    """The comma-separated arguments of the leftmost call of ``pattern``'s function in ``token``
    (the greedy ``(.*)`` of the server's expression), or None when there is no complete call."""
    for m in pattern.finditer(token):
        q = closers[m.end()]
        if q >= 0:
            return _COMMA.split(token[m.end() : q])
    return None


def _is_mustache(token: str) -> bool:
    return len(token) > 4 and token.startswith("{{") and token.endswith("}}")


def _wildcard(token: str, name: str, args: list[str], release: Version) -> list[int] | None:
    if len(args) != 1 or args[0] == "":
        raise _Bad(f"{_short(token)}: wildcard() takes exactly one index")
    try:
        return [_atoi(args[0].strip(" "))]
    except _Bad:
        raise _Bad(f"{_short(token)}: the wildcard index is not an integer") from None


def _partition(token: str, name: str, args: list[str], release: Version) -> list[int] | None:
    try:
        _atoi(args[0].strip(" "), hi=_INT32_MAX)
        indexes = [_atoi(a.strip(" ")) for a in args[1:]]
    except _Bad:
        raise _Bad(f"{_short(token)}: partition() takes a partition count and wildcard indexes, all integers") from None
    if not indexes and release < LOOSE_PARTITION_RANDOM:
        raise _Bad(f"{_short(token)}: partition() needs wildcard indexes before nats-server 2.12")
    return indexes


def _index_int(token: str, name: str, args: list[str], release: Version) -> list[int] | None:
    """The functions of a wildcard index and a 32-bit integer (:data:`_INDEX_INT`)."""
    if len(args) != 2:
        raise _Bad(f"{_short(token)}: {name}() takes a wildcard index and a number")
    try:
        index = _atoi(args[0].strip(" "))
        _atoi(args[1].strip(" "), -(1 << 31), _INT32_MAX)
    except _Bad:
        raise _Bad(f"{_short(token)}: {name}() takes a wildcard index and a 32-bit integer") from None
    return [index]


def _split(token: str, name: str, args: list[str], release: Version) -> list[int] | None:
    if len(args) != 2:
        raise _Bad(f"{_short(token)}: split() takes a wildcard index and a delimiter")
    try:
        index = _atoi(args[0].strip(" "))
    except _Bad:
        raise _Bad(f"{_short(token)}: the split() index is not an integer") from None
    if " " in args[1] or "." in args[1]:
        raise _Bad(f"{_short(token)}: the split() delimiter cannot hold a space or '.'")
    return [index]


def _random(token: str, name: str, args: list[str], release: Version) -> list[int] | None:
    if release < LOOSE_PARTITION_RANDOM:
        return None  # not a function before 2.12
    try:
        if len(args) != 1:
            raise _Bad
        _atoi(args[0].strip(" "), hi=_INT32_MAX)
    except _Bad:
        raise _Bad(f"{_short(token)}: random() takes one integer") from None
    return []


# The mapping functions, in the order they are tried: each checks its arguments (raising _Bad) and
# gives the wildcard indexes it refers to, or None when the release has no such function.
_FUNCTIONS: tuple[tuple[re.Pattern[str], str, Callable[[str, str, list[str], Version], list[int] | None]], ...] = (
    (_WILDCARD, "wildcard", _wildcard),
    (_PARTITION, "partition", _partition),
    *((pattern, name, _index_int) for pattern, name in _INDEX_INT),
    (_SPLIT, "split", _split),
    (_RANDOM, "random", _random),
)


def _placeholder(token: str, release: Version = _NEWEST) -> tuple[str, list[int]]:
    """The kind of a destination token ("none", "wildcard", "partition", "random" or another
    function) and the wildcard indexes it refers to. Raises _Bad for a malformed function."""
    if len(token) > 1 and token[0] == "$":
        try:
            return "wildcard", [_atoi(token[1:])]
        except _Bad:
            return "none", []  # "$foo" is a literal token
    if not _is_mustache(token):
        return "none", []
    closers = _closers(token)
    for pattern, name, check in _FUNCTIONS:
        args = _args(pattern, token, closers)
        if args is not None:
            indexes = check(token, name, args, release)
            if indexes is not None:
                return name, indexes
    raise _Bad(f"{_short(token)}: unknown mapping function")


def _info(subject: str) -> tuple[bool, list[str], int, bool]:
    """(valid, tokens, number of '*' tokens, has '>'), without the whitespace check."""
    if not subject:
        return False, [], 0, False
    tokens = subject.split(".")
    pwcs, fwc = 0, False
    for t in tokens:
        if not t or fwc:
            return False, [], 0, False
        if t == ">":
            fwc = True
        elif t == "*":
            pwcs += 1
    return True, tokens, pwcs, fwc


def _build(src: str, dest: str, release: Version = _NEWEST) -> None:
    if not dest:
        return
    src = src or ">"
    sv, _, pwcs, fwc = _info(src)
    dv, dtokens, dpwcs, dfwc = _info(dest)
    if not sv:
        raise _Bad("the source is not a valid subject")
    if not dv:
        raise _Bad("the destination is not a valid subject (an empty token, or a token after '>')")
    if dpwcs:
        raise _Bad("the destination has a '*' token (use {{wildcard(n)}} to place source wildcards)")
    if fwc != dfwc:
        raise _Bad("source and destination must both end in '>' or both not")
    wild = pwcs > 0 or fwc
    for token in dtokens:
        kind, indexes = _placeholder(token, release)
        if wild or (kind == "partition" and release < LOOSE_PARTITION_RANDOM):
            for i in indexes:
                if i > pwcs:
                    raise _Bad(
                        f"{_short(token)}: wildcard index {i} is out of range (the source has {pwcs} '*' wildcard(s))"
                    )
        elif kind not in ("none", "random", "partition"):
            raise _Bad(f"{_short(token)}: the source has no '*' wildcard to refer to")


def transform_problem(src: str, dest: str, release: Version = _NEWEST) -> str | None:
    """Why the server cannot build a transform from ``src`` to ``dest`` (empty src reads as '>',
    empty dest means no transform), or None."""
    try:
        _build(src, dest, release)
    except _Bad as exc:
        return str(exc)
    return None


def mapping_stage(src: str, dest: str, release: Version = _NEWEST) -> tuple[str, str] | None:
    """Why the server's mapping validation refuses ``src`` -> ``dest`` and at which stage:
    ``("validate", why)`` (the destination's tokens and functions) or ``("build", why)``
    (building the transform); None when it accepts it."""
    if not dest:
        return None
    known = [p for p in _KNOWN_TO_VALIDATION if release >= LEFT_RIGHT_VALIDATED or p not in (_LEFT, _RIGHT)]
    if release < LOOSE_PARTITION_RANDOM:
        known.remove(_RANDOM)
    fwc = False
    for token in dest.split("."):
        if not token or fwc:
            return "validate", "destination is not a valid subject (an empty token, or a token after '>')"
        if _is_mustache(token):
            closers = _closers(token)
            if all(_args(p, token, closers) is None for p in known):
                return "validate", f"{_short(token)}: unknown mapping function"
            continue
        if token == ">":
            fwc = True
        elif _WS.intersection(token):
            return "validate", f"destination token {_short(token)!r} holds whitespace"
    why = transform_problem(src, dest, release)
    return ("build", why) if why else None


def mapping_problem(src: str, dest: str, release: Version = _NEWEST) -> str | None:
    """Why the server's mapping validation refuses ``src`` -> ``dest``, or None."""
    found = mapping_stage(src, dest, release)
    return found[1] if found else None
