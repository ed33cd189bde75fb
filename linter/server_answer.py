"""The server's answer among an object's rejections: nats-server stops at its first failed check and answers
that check's ``err_code``; jsops lists every rejection, and marks the one the server answers at the target's
release (``Finding.server_answer``, by :func:`jsops.linter.semantics.answer_order.answer_rank`). The object's
other rejections are what the server answers once that one is fixed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .findings import Finding, Severity
from .semantics.answer_order import answer_rank
from .semantics.releases import Version

__all__ = ["mark_server_answers"]

Key = tuple[str, str, str | None]  # an object (kind, name, stream), or ("", file, None) for a file's own findings


def _key(f: Finding) -> Key:
    ref = f.object
    return ("", f.file, None) if ref is None else (str(ref.kind), ref.name, ref.stream)


def mark_server_answers(findings: Sequence[Finding], release: Version) -> list[Finding]:
    """``findings`` with exactly one rejection (an error finding with an err_code) per object marked as the
    server's answer at ``release``: the earliest in the server's order, the first listed among equals. A
    rejection the loader could not tie to an object (a request body it could not decode) belongs to the
    file's one object when the file has one, else it answers for its file."""
    rejections = [
        (i, f) for i, f in enumerate(findings) if f.server_error_code is not None and f.severity is Severity.ERROR
    ]
    objects: dict[str, set[Key]] = {}
    for _, f in rejections:
        if f.object is not None:
            objects.setdefault(f.file, set()).add(_key(f))
    first: dict[Key, tuple[int, int]] = {}
    for i, f in rejections:
        key = _key(f)
        if f.object is None and len(objects.get(f.file, ())) == 1:
            (key,) = objects[f.file]
        kind = key[0] or (f.object.kind if f.object is not None else "")
        rank = answer_rank(str(kind), int(f.server_error_code or 0), f.about, release)
        if key not in first or rank < first[key][0]:
            first[key] = (rank, i)
    marked = {i for _, i in first.values()}
    return [
        replace(f, server_answer=i in marked) if f.server_answer != (i in marked) else f for i, f in enumerate(findings)
    ]
