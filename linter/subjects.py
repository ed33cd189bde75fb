from linter.semantics.subjects import *  # noqa: F403  # TEMPORARY: removed at merge
