"""``jsops lint`` with its results cache (:mod:`jsops.linter.cache.results_cache`): a run whose inputs
are all unchanged loads nothing; a run with some files changed checks again only what depends on them.

Every run starts the way the loader does: it walks the paths (the same walk, the same files passed
over) and reads every file it would read, keyed by content (:func:`jsops.linter.cache.parse_cache.content_key`).

- **The run's salt** is every input that is not a manifest: the build (jsops's version and the
  content of every file of its packages, of every rule plugin's module and of pydantic's package
  files, :func:`~jsops.linter.cache.packs.files_stamp`; the YAML extension's identity), the Python version, the config as validated (rules, options,
  severities, target, paths, exclusions), the profiles file's bytes, the arguments that change what
  is loaded (paths, ``--estate`` files, environment, NACK release, consumer streams), the working
  directory and the ``JSOPS_*`` environment.
- **The estate entry** is keyed by the salt, what the walk passed over and every file's path and
  content key, in order: when it matches, its result is the run's result.
- Otherwise the estate is loaded (with the parse cache) and linted; the estate-wide rules run, and
  each per-object rule's results are reused object by object where :mod:`jsops.linter.cache.memo` says they
  still hold (file entries keyed by the salt, the file's path and its content key). The new result
  is stored as the estate entry, and every file's per-object results as its file entry.

A run in which a check read the clock (:mod:`jsops.linter.cache.memo`) stores no estate entry: the next
run loads and checks again at its own time (the other rules' file entries still serve).

Templates are rendered with values from elsewhere: a run with a template in it uses no results
cache (the parse cache neither keeps templates). Findings are the same with and without the cache
(``tests/linter/test_lint_results_cache.py`` compares them after random edits).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal

from ..load import Estate, Limits
from ..load.reading import read_if_regular
from ..load.templates import is_template
from ..load.walk import readable_files
from ..result import LintResult
from .packs import Marshalled, files_stamp
from .parse_cache import build_digest, content_key
from .results_cache import ResultsCache, finding_of, plain_finding

if TYPE_CHECKING:
    from ..api import Rule
    from ..config import Config
    from ..model.profiles import Profiles

__all__ = ["lint_incremental", "warm_result"]

_FORMAT = "2"

_RULES_GROUP = "jsops.rules"
_BUILTIN_RULES = "jsops.rules:get_rules"
"""The entry point of jsops's own rules (pyproject.toml); any other in the group is a plugin's."""

_RunArgs = tuple[list[str], list[str] | None, str | None, list[str], list[tuple[str, ...]], str | None]
"""What a lint was asked beyond its config: paths, only files, env, excludes, consumer streams, NACK release."""


def lint_incremental(
    paths: Sequence[str],
    rules: Sequence[type[Rule]],
    *,
    config: Config,
    profiles: Profiles | None = None,
    profiles_path: str | None = None,
    only_files: Iterable[str] | None = None,
    env: str | None = None,
    exclude: Sequence[str] = (),
    consumer_streams: Sequence[tuple[str, str]] = (),
    nack_version: str | None = None,
) -> LintResult | None:
    """The lint of ``paths`` through the results cache, or None when there is none to use (the cache
    is off, a template is among the files, an input cannot be read): the caller lints as usual."""
    paths = list(paths)
    only = list(only_files) if only_files is not None else None
    args: _RunArgs = (paths, only, env, list(exclude), [tuple(p) for p in consumer_streams], nack_version)
    looked = _look_up(rules, config, profiles_path, args)
    if looked is None:
        return None
    salt, walked, files, cache, result = looked
    if result is not None:
        return result
    from ..engine import lint_estate
    from . import load_paths
    from .memo import ObjectMemo

    digests: dict[str, str] = {}
    estate = load_paths(
        paths,
        cache=True,
        env=env,
        exclude=exclude,
        consumer_streams=consumer_streams,
        nack_version=nack_version,
        digests=digests,
    )
    memo = ObjectMemo(cache, salt, digests)
    result = lint_estate(estate, rules, config=config, profiles=profiles, only_files=only, memo=memo)
    if not estate.rendered and set(digests) == set(files):  # the files walked are the files loaded
        memo.save()
        if not memo.clocked:  # a result that read the clock holds at this instant only
            cache.put_estate(_estate_key(salt, walked, files, digests), _plain_result(result))
        cache.save()
    return result


def warm_result(
    paths: Sequence[str],
    *,
    config: Config,
    profiles_path: str | None = None,
    only_files: Iterable[str] | None = None,
    env: str | None = None,
    exclude: Sequence[str] = (),
    consumer_streams: Sequence[tuple[str, str]] = (),
    nack_version: str | None = None,
) -> LintResult | None:
    """The result the estate entry holds when every input of the run is unchanged, found without
    loading the rules: None when there is none (then :func:`lint_incremental`, with the rules, does
    the lint), or when a rule plugin is installed (its rules are part of the run's salt, found from
    the rules themselves). Without plugins, the rules are the build's, which the salt covers
    (:func:`_build_stamp`), and the config the salt covers was validated with them by the run that
    stored the entry."""
    if not _builtin_rules_only():
        return None
    paths = list(paths)
    only = list(only_files) if only_files is not None else None
    args: _RunArgs = (paths, only, env, list(exclude), [tuple(p) for p in consumer_streams], nack_version)
    looked = _look_up(None, config, profiles_path, args)
    return None if looked is None else looked[4]


def _builtin_rules_only() -> bool:
    """Whether the only rules registered are jsops's own (no plugin is installed)."""
    from ..plugins import entry_points

    return all(ep.value.strip() == _BUILTIN_RULES for ep in entry_points(_RULES_GROUP))


def _look_up(
    rules: Sequence[type[Rule]] | None, config: Config, profiles_path: str | None, args: _RunArgs
) -> tuple[str, Estate, list[str], ResultsCache, LintResult | None] | None:
    """The walk, the salt and the estate entry of a run: (salt, what the walk passed over, the files,
    the results cache, the stored result or None); None when the results cache is not usable. The walk
    :func:`warm_result` made for a miss is handed to the next look-up of the same paths (the lint with
    the rules that follows it), never to a later one: the tree is walked and read once per run."""
    from ..model.cache_dir import cache_dir

    base = cache_dir()
    handed = _HANDED.pop() if _HANDED else None
    if not base:
        return None
    where = (base, tuple(args[0]), tuple(args[3]))
    if handed is not None and handed[0] == where:
        _, walked, files, keys, cache = handed
    else:
        walked = Estate()
        files, _ = readable_files(args[0], args[3], walked)
        if any(is_template(f) for f in files):
            return None
        found = _content_keys(files)
        if found is False:
            return None  # a pipe or a device: read once, by the loader
        keys = found
        cache = ResultsCache(os.path.join(base, "results"), args[0])
    salt = run_salt(rules, config, profiles_path, args)
    if salt is None:
        return None
    result = None
    if keys is not None:
        stored = cache.estate(_estate_key(salt, walked, files, keys))
        result = _result_of(stored) if stored is not None else None
    if rules is None and result is None:
        _HANDED.append((where, walked, files, keys, cache))
    return salt, walked, files, cache, result


_HANDED: list[
    tuple[tuple[str, tuple[str, ...], tuple[str, ...]], Estate, list[str], dict[str, str] | None, ResultsCache]
] = []
"""The walk of a :func:`warm_result` that missed, for the look-up right after it (:func:`_look_up`)."""


def _content_keys(files: list[str]) -> dict[str, str] | None | Literal[False]:
    """Every file's content key, read as the loader reads it; None when one cannot be read (the
    loader then says why) or there is no parser build to key by; False when one is not a regular
    file (a pipe can be read only once: the loader's)."""
    bound = Limits.max_file_bytes + 1
    out: dict[str, str] = {}
    for f in files:
        try:
            data = read_if_regular(f, bound)
        except OSError:
            return None
        if data is None:
            return False
        key = content_key(data, f.endswith(".json"))
        if key is None:
            return None
        out[f] = key
    return out


def _estate_key(salt: str, walked: Estate, files: list[str], keys: dict[str, str]) -> str:
    h = hashlib.sha256(salt.encode())
    passed = ([plain_finding(f) for f in walked.findings], sorted(walked.not_jetstream.items()), sorted(walked.opaque))
    h.update(marshal.dumps(passed))
    for f in files:
        h.update(f"\0{f}\0{keys.get(f)}".encode())
    return h.hexdigest()


def _plain_result(r: LintResult) -> Marshalled:
    return (
        [plain_finding(f) for f in r.findings],
        r.files,
        r.objects,
        list(r.paths),
        r.skipped,
        r.not_jetstream,
        r.assumed_release,
    )


def _result_of(stored: object) -> LintResult | None:
    if not isinstance(stored, (tuple, list)):
        return None
    try:
        findings, files, objects, paths, skipped, others, assumed = stored
        result = LintResult(
            [finding_of(f) for f in findings],
            int(files),
            int(objects),
            [str(p) for p in paths],
            int(skipped),
            int(others),
        )
        result.assumed_release = None if assumed is None else str(assumed)
    except Exception:  # an entry of another shape: a miss
        return None
    return result


def run_salt(
    rules: Sequence[type[Rule]] | None, config: Config, profiles_path: str | None, args: _RunArgs
) -> str | None:
    """A digest of every input of a lint but the manifests (see the module's docstring); None when
    one cannot be read."""
    from .._version import __version__

    h = hashlib.sha256(
        f"jsops-lint-results {_FORMAT}\0{__version__}\0{sys.version}\0{marshal.version}\0{build_digest()}\0".encode()
    )
    build = _build_stamp(rules)
    if build is None:
        return None
    h.update(build.encode())
    try:
        if profiles_path is not None:
            with open(profiles_path, "rb") as fh:
                h.update(f"\0profiles\0{profiles_path}\0".encode() + fh.read())
        h.update(f"\0{os.getcwd()}\0".encode())
    except OSError:
        return None
    settings = (config.model_dump(), config.source, config.root, args)
    environment = sorted(
        (k, v)
        for k, v in os.environ.items()
        if k.startswith("JSOPS_") and k not in ("JSOPS_CACHE_DIR", "JSOPS_NO_PARALLEL")
    )
    h.update(repr((settings, environment)).encode())
    return h.hexdigest()


def _build_stamp(rules: Sequence[type[Rule]] | None) -> str | None:
    """:func:`~jsops.linter.cache.packs.files_stamp` of jsops's packages, of every rule plugin's
    top-level package (or module) and of the libraries whose messages reach findings (pydantic,
    its core). ``rules`` None: jsops's own rules only (no plugin), whose files are all under jsops's
    packages: the same stamp as theirs, found without importing them."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # jsops.linter
    roots = {here, os.path.join(os.path.dirname(here), "rules")}
    top = getattr(sys.modules.get(__name__.split(".", 1)[0]), "__file__", None)
    if top and os.path.basename(top) == "__init__.py":
        roots.add(os.path.dirname(top))
    files: set[str] = set()
    for r in rules or ():
        own = getattr(sys.modules.get(r.__module__), "__file__", None)
        if own:
            files.add(own)
        top = getattr(sys.modules.get(r.__module__.split(".", 1)[0]), "__file__", None)
        if top and os.path.basename(top) == "__init__.py":
            roots.add(os.path.dirname(top))
    inside = tuple(os.path.join(root, "") for root in roots)
    return files_stamp(roots, {f for f in files if not os.path.abspath(f).startswith(inside)})
