"""ACME's jsops rules: what a CEL policy cannot say (here: a look at every other stream of the estate)."""

from __future__ import annotations

from jsops.linter.api import Rule

from .acme_subject_prefix import AcmeSubjectPrefix


def get_rules() -> list[type[Rule]]:
    """The ``jsops.rules`` entry point: the rule classes of the package."""
    return [AcmeSubjectPrefix]
