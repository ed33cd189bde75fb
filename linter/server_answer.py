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


def mark_server_answers(findings: Sequence[Finding], release: Version) -> list[Finding]:
    """``findings`` with exactly one rejection (an error finding with an err_code) per object marked as the
    server's answer at ``release``: the earliest in the server's order, the first listed among equals."""
    first: dict[tuple[str, str, str | None], tuple[int, int]] = {}
    for i, f in enumerate(findings):
        ref, code = f.object, f.server_error_code
        if ref is None or code is None or f.severity is not Severity.ERROR:
            continue
        rank = answer_rank(str(ref.kind), code, f.about, release)
        key = (str(ref.kind), ref.name, ref.stream)
        if key not in first or rank < first[key][0]:
            first[key] = (rank, i)
    marked = {i for _, i in first.values()}
    return [
        replace(f, server_answer=i in marked) if f.server_answer != (i in marked) else f for i, f in enumerate(findings)
    ]
