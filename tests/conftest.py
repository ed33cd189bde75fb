"""Suite-wide hooks: helper processes never outlive an interrupted run (tests/procs.py)."""

from procs import pytest_configure, pytest_unconfigure

__all__ = ["pytest_configure", "pytest_unconfigure"]
