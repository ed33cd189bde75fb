"""``python -m jsops.linter.cli``: the ``jsops`` command (as the console script)."""

import sys

from .app import main

sys.exit(main())
