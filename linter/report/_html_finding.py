"""A finding as the HTML report lists it: one row, the same in the files section and the live section.

Both sections show findings; this row is the one thing they share, so it lives below both of them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FindingRow"]


@dataclass(frozen=True)
class FindingRow:
    severity: str
    rule: str
    name: str
    message: str
    file: str
    line: int
    column: int
