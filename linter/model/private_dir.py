"""A directory only this user can enter, worked in through its file descriptor: what the parse
cache writes and reads, safe in a cache directory another user can write (a shared ``/tmp``, a CI
cache, a volume). :func:`read_private` and :func:`write_private` apply the same checks to one file
by path (the schema and entry-point caches, which sit directly in the cache directory).

- the directory is created 0700, opened without following a link (``O_NOFOLLOW``), and used only
  when it is a directory owned by the effective uid (its mode is narrowed to 0700 when wider);
- every name is resolved relative to that open descriptor (``dir_fd``): a link or a rename planted
  later at the directory's path changes nothing, and nothing here touches a file outside it;
- a file is read only when ``fstat`` of the open descriptor says it is a regular file owned by
  the effective uid, with one link, writable by nobody else, and no larger than the bound; it is
  opened with ``O_NOFOLLOW | O_NONBLOCK`` (a link is refused, a FIFO never blocks the open) and
  read with a bound (a file growing while read is refused);
- a file is written to a fresh temporary name created with ``O_CREAT | O_EXCL | O_NOFOLLOW``,
  mode 0600, then renamed over the final name (a rename replaces a planted link, never follows it);
- removal is ``unlink`` relative to the descriptor: it never follows a link, never recurses.

POSIX only (``dir_fd`` and ``O_NOFOLLOW``): where they are missing :meth:`PrivateDir.open` returns
None and the caller goes without its cache.
"""

from __future__ import annotations

import os
import stat

__all__ = ["PrivateDir", "TMP_SUFFIX", "read_private", "write_private"]

TMP_SUFFIX = ".tmp"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_SUPPORTED = bool(_NOFOLLOW and _DIRECTORY) and os.open in os.supports_dir_fd and os.unlink in os.supports_dir_fd


def _euid() -> int:
    return os.geteuid()


class PrivateDir:
    """An open private directory (see the module's docstring); close it with :meth:`close` (or ``with``)."""

    def __init__(self, fd: int, path: str) -> None:
        self.fd = fd
        self.path = path

    @classmethod
    def open(cls, path: str, *, create: bool = True) -> PrivateDir | None:
        """The directory at ``path`` (made 0700 when missing and ``create``), or None when it is a
        link, not a directory, not the effective uid's, or cannot be opened."""
        if not _SUPPORTED:
            return None
        try:
            if create:
                parent = os.path.dirname(os.path.abspath(path))
                if not os.path.isdir(parent):
                    os.makedirs(parent, mode=0o700, exist_ok=True)
                try:
                    os.mkdir(path, 0o700)  # never follows a link planted at ``path`` (EEXIST)
                except FileExistsError:
                    pass
            fd = os.open(path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != _euid():
                os.close(fd)
                return None
            if stat.S_IMODE(st.st_mode) & 0o077:
                os.fchmod(fd, 0o700)
        except OSError:
            os.close(fd)
            return None
        return cls(fd, path)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> PrivateDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def read(self, name: str, max_bytes: int) -> bytes | None:
        """The bytes of the regular file ``name`` when it is safe to trust (see the module's
        docstring) and at most ``max_bytes`` long; else None. Never blocks, never raises OSError."""
        try:
            fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _NOCTTY | _CLOEXEC, dir_fd=self.fd)
        except OSError:
            return None
        return _read_checked(fd, max_bytes)

    def write(self, name: str, data: bytes) -> bool:
        """Write ``data`` to ``name`` atomically, mode 0600 (see the module's docstring); False
        when it cannot be written (nothing is left behind)."""
        return _write_replace(name, data, self.fd)

    def entries(self) -> list[tuple[str, os.stat_result]]:
        """``(name, lstat)`` of each entry (links are not followed); empty when it cannot be listed."""
        out = []
        try:
            names = os.listdir(self.fd)
        except OSError:
            return []
        for name in names:
            try:
                out.append((name, os.stat(name, dir_fd=self.fd, follow_symlinks=False)))
            except OSError:
                continue
        return out

    def remove(self, name: str) -> None:
        """Unlink ``name`` in this directory (a link is removed, never followed; a directory is left)."""
        try:
            os.unlink(name, dir_fd=self.fd)
        except OSError:
            pass


def read_private(path: str, max_bytes: int) -> bytes | None:
    """The bytes of the file at ``path`` when it is a regular file of the effective uid, with one
    link, writable by nobody else, at most ``max_bytes`` (opened without following a link, without
    blocking on a FIFO); else None."""
    if not _SUPPORTED:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _NOCTTY | _CLOEXEC)
    except OSError:
        return None
    return _read_checked(fd, max_bytes)


def write_private(path: str, data: bytes) -> bool:
    """Write ``data`` at ``path`` atomically, mode 0600, through an exclusively created temporary
    file beside it (a directory made for it is 0700); False when it cannot be written."""
    if not _SUPPORTED:
        return False
    directory = os.path.dirname(path) or "."
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError:
        return False
    return _write_replace(path, data, None)


def _read_checked(fd: int, max_bytes: int) -> bytes | None:
    """Read the open ``fd`` (and close it) if fstat says it may be trusted (see the module's docstring)."""
    try:
        st = os.fstat(fd)
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_uid != _euid()
            or st.st_nlink != 1
            or stat.S_IMODE(st.st_mode) & 0o022
            or st.st_size > max_bytes
        ):
            return None
        if stat.S_IMODE(st.st_mode) & 0o077:
            os.fchmod(fd, 0o600)
        chunks: list[bytes] = []
        left = st.st_size + 1  # one byte more than fstat said: a file still growing is refused
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return data if len(data) == st.st_size else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _write_replace(path: str, data: bytes, dir_fd: int | None) -> bool:
    """``path`` (relative to ``dir_fd`` when given) written through a fresh ``O_EXCL`` temporary file."""
    head, name = os.path.split(path)
    tmp = os.path.join(head, f".{name}.{os.getpid()}.{os.urandom(6).hex()}{TMP_SUFFIX}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        try:
            os.fchmod(fd, 0o600)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(tmp, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except OSError:
        try:
            os.unlink(tmp, dir_fd=dir_fd)  # never follows a link
        except OSError:
            pass
        return False
    return True
