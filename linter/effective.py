from linter.semantics.effective import *  # noqa: F403  # TEMPORARY: removed at merge
