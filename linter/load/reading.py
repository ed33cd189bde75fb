"""Reading an input file's bytes, bounded, without waiting for a writer that never comes.

A PATH given on the command line may be a pipe (``jsops lint <(helm template ...)``, a named FIFO)
or a device: it is read like a file, up to the same bound. Opening a FIFO for reading would wait
for a writer, forever when there is none, so it is opened without blocking (``O_NONBLOCK``, which
changes nothing for a regular file) and only then switched to blocking reads: a pipe with a writer
is read to its end, one without a writer reads as empty at once. A socket cannot be read as a file
and is refused: ``path: not a regular file``. A directory walk passes over every file that is not a
regular one before this (:func:`jsops.linter.load.discovery.discover_tree`).
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["NotRegularFile", "read_if_regular", "read_manifest_bytes", "read_regular", "unreadable"]

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """The path names a socket: it was not read."""

    def __init__(self, path: str) -> None:
        super().__init__(errno.EINVAL, "not a regular file", path)


def read_regular(path: str, limit: int) -> bytes:
    """At most ``limit`` bytes of the file ``path`` (callers pass their bound plus one, to know a
    file is too large without reading the rest); a pipe or a device is read to its end or the
    bound. Raises :class:`IsADirectoryError` for a directory, :class:`NotRegularFile` for a socket,
    and :class:`OSError` when the file cannot be opened or read."""
    _check_kind(os.stat(path).st_mode, path)
    fd = os.open(path, _FLAGS)  # O_NONBLOCK: a FIFO's open does not wait for a writer
    try:
        st = os.fstat(fd)
        _check_kind(st.st_mode, path)  # again, of what was opened: it may have been replaced meanwhile
        if not stat.S_ISREG(st.st_mode):
            os.set_blocking(fd, True)  # a pipe's writer is waited for; a pipe without one ends at once
            return _read_to(fd, limit, b"")
        return _read_sized(fd, st.st_size, limit)
    finally:
        os.close(fd)


def read_if_regular(path: str, limit: int) -> bytes | None:
    """:func:`read_regular` of a regular file; None, without reading it, for anything else (a pipe
    can be read only once: its reader must be the one that uses it). Raises :class:`OSError` when
    the file cannot be opened or read."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        return None
    fd = os.open(path, _FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # replaced meanwhile
            return None
        return _read_sized(fd, st.st_size, limit)
    finally:
        os.close(fd)


def _read_sized(fd: int, size: int, limit: int) -> bytes:
    """A regular file's bytes: the ``size`` it has now and one byte more to see it end (or grow), one
    read for most files; up to ``limit``."""
    want = min(limit, size + 1)
    first = os.read(fd, want)
    if len(first) == size < want:
        return first  # all of it: the file ended where fstat said
    return _read_to(fd, limit, first)


def _read_to(fd: int, limit: int, first: bytes) -> bytes:
    """``first`` and what follows it on ``fd``, to its end or ``limit`` bytes in all."""
    chunks = [first]
    left = limit - len(first)
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _check_kind(mode: int, path: str) -> None:
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if stat.S_ISSOCK(mode):
        raise NotRegularFile(path)


def unreadable(shown: str, exc: OSError) -> str:
    """The one line a command prints for an input it could not read: ``path: not a regular file``
    or ``path: cannot read: <reason>``."""
    if isinstance(exc, NotRegularFile):
        return f"{shown}: not a regular file"
    return f"{shown}: cannot read: {exc.strerror or exc}"


def read_manifest_bytes(file: str) -> bytes | None:
    """A manifest's bytes (for suppression comments and excerpts); None when it cannot be read or
    is past the loader's size bound (the loader refused that file: nothing in it applies), without
    reading the rest."""
    from .parsed import Limits

    bound = Limits.max_file_bytes
    try:
        data = read_regular(file, bound + 1)
    except OSError:
        return None
    return data if len(data) <= bound else None
