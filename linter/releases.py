from linter.semantics.releases import *  # noqa: F403  # TEMPORARY: removed at merge
