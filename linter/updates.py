from linter.semantics.updates import *  # noqa: F403  # TEMPORARY: removed at merge
