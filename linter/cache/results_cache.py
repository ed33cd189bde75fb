"""Where ``jsops lint`` keeps its results between runs: one pack per set of paths (a tree), beside
the parse cache (:mod:`jsops.linter.cache.parse_cache`), in ``results/`` under the same cache
directory, private the same way (:mod:`jsops.linter.model.private_dir`) and off the same way
(``JSOPS_NO_CACHE=1``, ``--no-cache``).

A pack holds two kinds of entries, each marshalled on its own (a run decodes only what it asks for):

- the **estate entry**: the whole result of the last run (its findings, counts, files), under a key
  of every input of that run (see :mod:`jsops.linter.cache.incremental`); a run whose inputs are all
  unchanged reads it and loads nothing;
- **file entries**: per file, under a key of the run's inputs but the tree (the rules, their options,
  the target, the profiles, the build) and of the file's path and content, what the per-object rules
  found on the file's objects, with what each finding read outside its own object
  (:mod:`jsops.linter.cache.memo`): a run with some files changed reuses the entries of the others.

Everything here is plain data (marshal; a pack never holds code). A pack carries a MAC under the
user's cache key (:mod:`jsops.linter.cache.packs`): one forged into a shared or restored cache is a miss; a missing,
damaged, foreign or older pack, or an entry of the wrong shape, is a miss, never an error; a pack is
written to an exclusively created temporary file renamed into place, so two lints at once never
read a torn pack (the last to finish wins). A pack holds the entries its last run used, so it
follows its tree; after a write the oldest packs beyond :data:`MAX_BYTES` are removed.
"""

from __future__ import annotations

import hashlib
import marshal
import os
from collections.abc import Sequence
from typing import Any, TypeAlias

from ..findings import Applicability, Edit, Finding, FixSuggestion, ObjectRef, Severity
from ..semantics.errcodes import ErrCode
from .packs import PACK_SUFFIX, Marshalled, read_pack, write_pack

__all__ = ["MAX_BYTES", "PlainFinding", "ResultsCache", "plain_finding", "finding_of"]

MAX_BYTES = 64 * 1024 * 1024
"""The most the result packs may take together; beyond it the oldest are removed (down to 3/4)."""

_MAGIC = b"jsops-results-cache 1\n"

PlainFinding: TypeAlias = tuple[Any, ...]
"""A finding as plain values (:func:`plain_finding`); one read back from a pack is of any shape
until :func:`finding_of` has checked it."""


class ResultsCache:
    """The result pack of one tree (see the module's docstring). :meth:`estate` and :meth:`file`
    read it; :meth:`put_estate` and :meth:`put_file` fill what :meth:`save` writes."""

    def __init__(self, directory: str, tree: Sequence[str], max_bytes: int = MAX_BYTES) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        paths = "\0".join(sorted(os.path.abspath(p) for p in tree)).encode()
        self.name = hashlib.sha256(_MAGIC + paths).hexdigest()[:40] + PACK_SUFFIX
        self._estate: tuple[str, bytes] | None = None
        self._files: dict[str, bytes] = {}
        self._read()
        self._new_estate: tuple[str, bytes] | None = None
        self._new_files: dict[str, bytes] = {}

    def estate(self, key: str) -> object:
        """The estate entry's value when it was stored under ``key``, else None (never raises)."""
        if self._estate is None or self._estate[0] != key:
            return None
        try:
            return marshal.loads(self._estate[1])
        except Exception:  # anything a damaged entry makes marshal raise
            return None

    def file(self, key: str) -> object:
        """A file entry's value, or None; the entry is kept for the next run when it is used."""
        blob = self._files.get(key)
        if type(blob) is not bytes:
            return None
        try:
            value = marshal.loads(blob)
        except Exception:
            return None
        self._new_files.setdefault(key, blob)
        return value

    def put_estate(self, key: str, value: Marshalled) -> None:
        try:
            self._new_estate = (key, marshal.dumps(value))
        except ValueError:  # a value marshal cannot hold: not cached
            self._new_estate = None

    def put_file(self, key: str, value: Marshalled) -> None:
        try:
            self._new_files[key] = marshal.dumps(value)
        except ValueError:
            self._new_files.pop(key, None)

    def save(self) -> None:
        """Write the pack (the estate entry, when this run made one, and the file entries it used or
        made) atomically, then prune; a cache that cannot be written is left alone."""
        if self._new_estate is None and not self._new_files:
            return
        write_pack(self.directory, self.name, _MAGIC, (self._new_estate, self._new_files), self.max_bytes)

    def _read(self) -> None:
        value = read_pack(self.directory, self.name, _MAGIC, self.max_bytes)
        if type(value) is not tuple or len(value) != 2:
            return
        estate, files = value
        if type(estate) is tuple and len(estate) == 2 and type(estate[0]) is str and type(estate[1]) is bytes:
            self._estate = estate
        if type(files) is dict:
            self._files = files


def plain_finding(f: Finding) -> PlainFinding:
    """A finding as plain values (marshal)."""
    fix = f.fix
    return (
        f.rule,
        f.name,
        f.severity.value,
        f.message,
        f.file,
        f.line,
        f.column,
        None if f.object is None else (f.object.kind, f.object.name, f.object.stream),
        None if f.server_error_code is None else int(f.server_error_code),
        None
        if fix is None
        else (
            fix.applicability.value,
            fix.description,
            tuple((e.op, e.path, e.value, e.duration, e.document) for e in fix.edits),
        ),
        f.excerpt,
        f.since,
        f.about,
        f.server_answer,
    )


def _text(v: object) -> str:
    if type(v) is not str:
        raise ValueError("not a string")
    return v


def _int(v: object) -> int:
    if type(v) is not int:
        raise ValueError("not an integer")
    return v


def _code(n: int) -> int:
    """An err_code as rules give it: the :class:`ErrCode` member when there is one."""
    try:
        return ErrCode(n)
    except ValueError:
        return n


def _opt_text(v: object) -> str | None:
    return None if v is None else _text(v)


def finding_of(p: PlainFinding) -> Finding:
    """The reverse of :func:`plain_finding`; ValueError (or TypeError) for a value of another shape."""
    rule, name, severity, message, file, line, column, obj, code, fix, excerpt, since, about, answer = p
    ref = None if obj is None else ObjectRef(_text(obj[0]), _text(obj[1]), _opt_text(obj[2]))
    suggestion = None
    if fix is not None:
        applicability, description, edits = fix
        suggestion = FixSuggestion(
            Applicability(_text(applicability)),
            _text(description),
            tuple(
                Edit(_text(op), tuple(path), value, bool(duration), None if doc is None else _int(doc))
                for op, path, value, duration, doc in edits
            ),
        )
    if since is not None and (type(since) is not tuple or len(since) != 3 or not all(type(x) is int for x in since)):
        raise ValueError("not a release")
    return Finding(
        _text(rule),
        _text(name),
        Severity(severity),
        _text(message),
        _text(file),
        _int(line),
        _int(column),
        ref,
        None if code is None else _code(_int(code)),
        suggestion,
        excerpt=bool(excerpt),
        since=since,
        about=_text(about),
        server_answer=bool(answer),
    )
