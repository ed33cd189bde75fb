"""The lint gate of ``jsops plan``/``apply``: only errors stop a plan, so only the rules that can
report one run.

A rule reports errors when its severity (the config's, else its own) is ``error``; a rule whose
severity is ``warning`` or ``info`` never does (a violation may lower its severity, never raise it).
The one exception is JS010 unused-suppression: a suppression of a rule the gate skips would look
unused, so when the config makes JS010 an error the gate runs every rule. The errors are exactly
those of :func:`jsops.linter.lint_estate` with every selected rule (tested), for a fraction of the time:
the costliest rules are advice.

With ``objects`` the gate judges only those objects (those a plan acts on): per-object rules check
only them, and with none no rule runs (the loader's findings stay); suppression comments are read
only from the files of those objects and of the loader's findings (a comment suppresses findings of
its own file), unless JS011 invalid-suppression is an error. Not with JS010 an error: then every
rule runs on every object, as above.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from jsops.linter import Config, Estate, LintResult, Severity, lint_estate, read_manifest_bytes

__all__ = ["lint_errors"]

_UNUSED_SUPPRESSION = "JS010"
_INVALID_SUPPRESSION = "JS011"

SourceReader = Callable[[str], bytes | None]


def lint_errors(
    estate: Estate,
    config: Config,
    read_source: SourceReader | None = read_manifest_bytes,
    objects: Collection[tuple[str, str, str | None]] | None = None,
    env: str | None = None,
) -> LintResult:
    """:func:`jsops.linter.lint_estate` of ``estate`` with ``config``, running only the rules that can
    report an error (its other findings are incomplete: read only the errors); with ``objects``
    (``(kind, name, stream)``), only the errors of those objects and of no object are complete.
    ``read_source`` reads a file's bytes for suppression comments (None: comments are not read).
    The config's policies are rules like the others (``env``: the environment they see): a policy
    error refuses the manifests as a lint error does."""
    from jsops.linter import RuleSelection, discover_rules, select_rules

    registry = discover_rules(config, env=env)
    selection = select_rules(config, registry)
    if selection.severity.get(_UNUSED_SUPPRESSION) is not Severity.ERROR:
        rules = [r for r in selection.rules if selection.severity.get(r.code, r.severity) is Severity.ERROR]
        if objects is not None:
            rules = rules if objects else []
            if selection.severity.get(_INVALID_SUPPRESSION) is not Severity.ERROR:
                read_source = _files_of(estate, objects, read_source)
        selection = RuleSelection(rules, selection.options, selection.severity, selection.ignored)
    else:
        objects = None  # JS010 is an error: every rule runs on every object
    return lint_estate(
        estate, registry, config=config, selection=selection, read_source=read_source, only_objects=objects
    )


def _files_of(
    estate: Estate, objects: Collection[tuple[str, str, str | None]], read_source: SourceReader | None
) -> SourceReader | None:
    """``read_source`` for the files of ``objects`` and of the loader's findings; nothing elsewhere."""
    if read_source is None:
        return None
    files = {r.file for r in estate.resources if (r.kind, r.name, r.stream) in objects} | {
        f.file for f in estate.findings
    }
    reader = read_source
    return lambda file: reader(file) if file in files else None
