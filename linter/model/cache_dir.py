"""Where jsops keeps what it caches between runs (the entry points, parsed manifests, lint results),
and the key that vouches for it: imports nothing heavy, so that every command can ask.

What a cache holds is trusted only when it carries a MAC (keyed BLAKE2b) made with the user's own
**cache key**: 32 random bytes in a file of their own, mode 0600, kept *outside* the cache directory
(``$XDG_STATE_HOME/jsops/cache.key``, else ``~/.local/state/jsops/cache.key``), made on first use.
Whoever can write the cache directory without reading that file (a CI cache restored from another
job, a volume shared with other containers, a cache directory another user can write) cannot make
an entry jsops will use: its MAC does not hold, and it is a miss. A cache restored into a job that
has no key of its own is therefore rebuilt there, never trusted. With no key (no home, a key file
that is not the user's own regular 0600 file, a key file inside the cache directory) there is no
cache at all.
"""

from __future__ import annotations

import hashlib
import os

__all__ = ["KEY_BYTES", "MAC_BYTES", "cache_dir", "cache_key", "cache_key_path", "cache_mac"]

KEY_BYTES = 32
MAC_BYTES = 16
_KEYS: dict[tuple[str | None, str | None], bytes | None] = {}  # the key, read (or made) once per process


def cache_dir() -> str | None:
    """The directory the cache lives in, or None when ``JSOPS_NO_CACHE`` turns it off."""
    if os.environ.get("JSOPS_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("JSOPS_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jsops")


def cache_mac(data: bytes, key: bytes) -> bytes:
    """The MAC of ``data`` under ``key`` (:func:`cache_key`): keyed BLAKE2b, as fast as a checksum."""
    return hashlib.blake2b(data, digest_size=MAC_BYTES, key=key).digest()


def cache_key_path() -> str | None:
    """Where the cache key lives (see the module); None when there is no home to keep it in."""
    state = os.environ.get("XDG_STATE_HOME")
    if not state:
        home = os.path.expanduser("~")
        if not home or home == "~":
            return None
        state = os.path.join(home, ".local", "state")
    return os.path.join(os.path.abspath(state), "jsops", "cache.key")


def cache_key() -> bytes | None:
    """The user's cache key (made when there is none yet), or None when there is no usable one:
    then nothing is read from, or written to, the cache."""
    path, directory = cache_key_path(), cache_dir()
    where = (path, directory)
    if where not in _KEYS:
        _KEYS[where] = _load_key(path, directory)
    return _KEYS[where]


def _load_key(path: str | None, directory: str | None) -> bytes | None:
    from .private_dir import read_private, write_private

    if path is None or directory is None or _inside(path, directory):
        return None  # a key the cache's writers could read vouches for nothing
    key = read_private(path, KEY_BYTES)
    if key is None and not os.path.lexists(path):
        # Made once: written beside, then linked into place (never over a key another run just made).
        fresh = os.urandom(KEY_BYTES)
        tmp = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.new"
        if write_private(tmp, fresh):
            try:
                os.link(tmp, path)
            except OSError:
                pass
            finally:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        key = read_private(path, KEY_BYTES)
    return key if key is not None and len(key) == KEY_BYTES else None


def _inside(path: str, directory: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(directory)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)
