"""Parsing large estates on two cores: a forked child parses files from the end of the list while this
process loads them from the start, until they meet; then this process validates the child's documents in
file order. Where they meet is not fixed: a process that has other work meanwhile (a plan reads the
server while the manifests are parsed) or slower files leaves more of them to the other (:func:`load_parallel`).

Only parsing pays for the fork: when the parse cache already holds (about) every file of the tree,
reading an entry costs less than shipping it from a child and unpacking it again, and one process
loads the tree (:func:`worth_forking`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from ..model.resource import Estate
from .discovery import LoadError
from .documents import Limits
from .files import FileCache, finish_file, load_file, process, read_file
from .parsed import pack_parsed, unpack_parsed
from .walk import link_out_finding

__all__ = ["PARALLEL_MIN_FILES", "can_fork", "fork_half", "load_parallel", "worth_forking"]

R = TypeVar("R")

PARALLEL_MIN_FILES = 400


def can_fork() -> bool:
    # os.fork exists where multiprocessing offers the "fork" start method (not on Windows); asking
    # multiprocessing would import it (and threading) on every lint.
    return (os.cpu_count() or 1) >= 2 and hasattr(os, "fork") and os.environ.get("JSOPS_NO_PARALLEL") != "1"


def worth_forking(files: int, cache: FileCache | None) -> bool:
    """Whether ``files`` files are worth a forked child: enough of them, most not in ``cache`` (a
    cache entry per file is a warm run: there is nearly nothing to parse), and two cores to fork on."""
    if files < PARALLEL_MIN_FILES or cache is not None and 4 * cache.size() >= 3 * files:
        return False
    return can_fork()


def load_parallel(
    files: list[str],
    estate: Estate,
    limits: Limits | None,
    roots: dict[str, str] | None = None,
    meanwhile: Callable[[], None] | None = None,
    cache: FileCache | None = None,
) -> None:
    """Large estates: a forked child parses files from the last one down while this process loads
    them from the first one up (after ``meanwhile``), each claiming the next file in a counter both
    see (:class:`_Meeting`), until they meet. The child ships plain parse results (marshal: values
    and packed positions), and this process validates everything in file order, so the output is
    identical to a serial load. ``meanwhile`` runs in this process once the child is started (see
    :func:`load_paths`); both processes read and fill ``cache``."""
    import marshal

    roots = roots or {}
    meeting = _Meeting(len(files))

    def mine() -> int:
        if meanwhile is not None:
            meanwhile()
        done = 0
        while meeting.take_front(done):
            load_file(files[done], estate, limits=limits, root=roots.get(files[done]), cache=cache)
            done += 1
        return done

    try:
        done, payload = fork_half(lambda: _parse_for_parent(files, meeting, limits, roots, cache), mine)
    finally:
        meeting.close()
    try:
        start, parsed, used, digests = marshal.loads(payload) if payload is not None else (None, None, None, None)
    except (EOFError, ValueError, TypeError):
        parsed = None
    if parsed is None or not isinstance(start, int):  # the child failed: parse here instead
        start, parsed = len(files), []
    if cache is not None and isinstance(used, dict):
        cache.merge(used, digests if isinstance(digests, dict) else None)
    for f in files[done:start]:  # files neither claimed (never, unless the child failed)
        load_file(f, estate, limits=limits, root=roots.get(f), cache=cache)
    for item in parsed[max(done - start, 0) :]:  # a file both claimed at once was loaded here
        _load_parsed(item, estate)


class _Meeting:
    """Where the two processes of :func:`load_parallel` meet: in memory shared across the fork, the
    next file this process takes from the front and the last one the child took from the back. A file
    both claim at the same instant is parsed twice and loaded once; whatever the child did not parse is
    loaded here, so the counters decide only who does the work, never what is loaded."""

    def __init__(self, files: int) -> None:
        import mmap

        self._shared = mmap.mmap(-1, 8)  # anonymous and shared: the child writes into the same pages
        self._counters = memoryview(self._shared).cast("i")
        self._counters[0], self._counters[1] = 0, files

    def take_front(self, i: int) -> bool:
        """This process takes file ``i`` unless the child took it."""
        if i >= self._counters[1]:
            return False
        self._counters[0] = i + 1
        return True

    def take_back(self, i: int) -> bool:
        """The child takes file ``i`` unless this process took it."""
        if i < self._counters[0]:
            return False
        self._counters[1] = i
        return True

    def close(self) -> None:
        self._counters.release()
        self._shared.close()


def _parse_for_parent(
    files: list[str], meeting: _Meeting, limits: Limits | None, roots: dict[str, str], cache: FileCache | None
) -> bytes:
    """In the child: parse ``files`` from the last one down, as long as the parent has not claimed
    them; the index of the first one parsed and the results in file order (marshal), with the cache
    entries they used (the parent saves the cache) and the keys of the files read."""
    import marshal

    out: list[tuple[Any, ...]] = []
    start = len(files)
    while start > 0 and meeting.take_back(start - 1):
        start -= 1
        f = files[start]
        try:
            parsed = read_file(f, limits, root=roots.get(f), cache=cache)
        except LoadError as exc:
            out.append((f, None, str(exc)))
            continue
        out.append((f, pack_parsed(parsed), None))
    out.reverse()
    used, digests = cache.shipment() if cache is not None else ({}, {})
    return marshal.dumps((start, out, used, digests))


def _load_parsed(item: tuple[Any, ...], estate: Estate) -> None:
    """Load one file the child parsed (or raise the child's :class:`LoadError` for it)."""
    f, packed, error = item
    if packed is None:
        raise LoadError(error)
    docs, problems, trailing, looks = unpack_parsed(packed)
    first = len(estate.findings)
    if any(p.code == "link-outside" for p in problems):
        link_out_finding(f, estate)
        return
    estate.files.append(f)
    manifest = process(docs, problems, trailing, f, estate, looks)
    finish_file(estate, first, f, manifest or looks)


def fork_half(child: Callable[[], bytes], mine: Callable[[], R]) -> tuple[R, bytes | None]:
    """Run ``child`` in a forked process while ``mine`` runs here; ``mine``'s result and the bytes the
    child returned, or None when the child failed (the caller then does the child's part itself).
    The child leaves without running any exit handler."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(read_fd)
            data = child()
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    try:
        result = mine()
    finally:
        with os.fdopen(read_fd, "rb") as inp:
            payload = inp.read()
        _, status = os.waitpid(pid, 0)
    return result, (payload if status == 0 and payload else None)
