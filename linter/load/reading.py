"""Reading an input file's bytes, bounded, and only when it is a regular file.

A FIFO, a socket or a device given as a PATH (or met in a directory walk) is never read: opening a
FIFO for reading waits for a writer, forever, and a device may never end. The file is opened without
blocking (``O_NONBLOCK``, which changes nothing for a regular file) only after ``stat`` said it is a
regular file, and its kind is checked again on the open descriptor, so a file swapped for a FIFO
between the check and the open is caught as well (and never waited for). A directory walk passes
over such files before this (:func:`jsops.linter.load.discovery.discover_tree`).
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["NotRegularFile", "read_regular", "unreadable"]

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """The path names a FIFO, a socket or a device: it was not read."""

    def __init__(self, path: str) -> None:
        super().__init__(errno.EINVAL, "not a regular file", path)


def read_regular(path: str, limit: int) -> bytes:
    """At most ``limit`` bytes of the regular file ``path`` (callers pass their bound plus one, to
    know a file is too large without reading the rest). Raises :class:`IsADirectoryError` for a
    directory, :class:`NotRegularFile` for any other file that is not a regular one, and
    :class:`OSError` when the file cannot be opened or read."""
    _check_kind(os.stat(path).st_mode, path)  # a device is not even opened (an open may act on it)
    fd = os.open(path, _FLAGS)
    try:
        st = os.fstat(fd)
        _check_kind(st.st_mode, path)  # again, of what was opened: it may have been replaced meanwhile
        # The size it has now, and one byte more to see it end (or grow): one read for most files.
        want = min(limit, st.st_size + 1)
        first = os.read(fd, want)
        if len(first) == st.st_size < want:
            return first  # all of it: the file ended where fstat said
        chunks = [first]
        left = limit - len(first)
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _check_kind(mode: int, path: str) -> None:
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if not stat.S_ISREG(mode):
        raise NotRegularFile(path)


def unreadable(shown: str, exc: OSError) -> str:
    """The one line a command prints for an input it could not read: ``path: not a regular file``
    or ``path: cannot read: <reason>``."""
    if isinstance(exc, NotRegularFile):
        return f"{shown}: not a regular file"
    return f"{shown}: cannot read: {exc.strerror or exc}"
