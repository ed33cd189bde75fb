"""jsops reconciler: live state, normalisation, diff, plan, apply and the controller.

The only package that imports ``nats``. It may import ``linter``; ``linter`` never imports it.
Not implemented yet (see the reconciler and controller issues).
"""

from __future__ import annotations

__all__: list[str] = []
