from linter.semantics.units import *  # noqa: F403  # TEMPORARY: removed at merge
