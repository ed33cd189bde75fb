"""Telemetry paths as the driver sees them (no pyspark): local or a URI, which files are under them."""

from __future__ import annotations

import gzip
import re
import struct
import zlib
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

__all__ = [
    "broken_input",
    "JSON_SUFFIXES",
    "is_local",
    "has_files",
    "check_paths",
    "hour_partitions",
    "local_bytes",
    "SMALL_INPUT_BYTES",
    "worth_caching",
    "shuffle_partitions",
]

JSON_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz")
#: below this much local input, jsops starts Spark with one shuffle partition (docs/profiler.md, Speed)
SMALL_INPUT_BYTES = 64 * 2**20


def is_local(path: str) -> bool:
    """A path on this machine's disk (not a URI such as ``file:``, ``hdfs://`` or ``s3a://``)."""
    return "://" not in path and not path.startswith("file:")


def has_files(path: str, suffixes: tuple[str, ...]) -> bool:
    """Whether the local ``path`` is, or holds at any depth, a file ending with one of ``suffixes`` that
    Spark reads in a directory: not a hidden one (``_`` or ``.`` first, such as a compacted table's
    ``_jsops_events.json`` marker, which made a compacted Parquet input look like JSON lines)."""
    p = Path(path)
    if p.is_file():
        return p.name.endswith(suffixes)
    return any(f.name.endswith(suffixes) and not f.name.startswith(("_", ".")) for f in p.rglob("*") if f.is_file())


def check_paths(paths: Iterable[str]) -> str | None:
    """The first local path that does not exist, as a message; ``None`` when all do (URIs are Spark's)."""
    for p in paths:
        if is_local(p) and not Path(p).exists():
            return f"{p}: no such file or directory"
    return None


_PARTITION = re.compile(r"^day=(\d{4}-\d\d-\d\d)$"), re.compile(r"^hour=(\d\d?)$")


def hour_partitions(path: str) -> dict[int, str] | None:
    """The ``day=YYYY-MM-DD/hour=HH`` directories under a local ``path`` by the start of their hour
    (microseconds since the epoch, UTC); ``None`` when ``path`` is not laid out that way."""
    if not is_local(path) or not Path(path).is_dir():
        return None
    out: dict[int, str] = {}
    for day in Path(path).iterdir():
        d = _PARTITION[0].match(day.name)
        if not d or not day.is_dir():
            continue
        for hour in day.iterdir():
            h = _PARTITION[1].match(hour.name)
            if h and hour.is_dir():
                start = datetime.strptime(d.group(1), "%Y-%m-%d").replace(tzinfo=UTC, hour=int(h.group(1)))
                out[int(start.timestamp()) * 1_000_000] = str(hour)
    return out or None


def local_bytes(paths: Iterable[str]) -> int | None:
    """The total size of the files under local ``paths``; ``None`` when one is a URI (size unknown)."""
    total = 0
    for path in paths:
        if not is_local(path):
            return None
        p = Path(path)
        total += p.stat().st_size if p.is_file() else sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
    return total


def worth_caching(paths: Iterable[str]) -> bool:
    """Whether a job that reads its input more than once should cache the parsed events (on disk): yes
    when some input is JSON lines or a URI of unknown format (parsing costs more than the cache); no
    for local Parquet, whose column-pruned, filtered scans cost less than writing and reading a cache."""
    return any(not is_local(p) or has_files(p, JSON_SUFFIXES) for p in paths)


def shuffle_partitions(paths: Iterable[str]) -> int:
    """spark.sql.shuffle.partitions for ``paths``: one below :data:`SMALL_INPUT_BYTES` of local input
    (fewer, equally useful tasks per stage), else one per 256 MiB, between 4 and 200 (every shuffle of
    the job carries partial aggregates; adaptive execution is off, see :mod:`jsops.profiler.session`)."""
    size = local_bytes(paths)
    if size is None:
        return 4
    if size < SMALL_INPUT_BYTES:
        return 1
    return max(4, min(200, size // (256 * 2**20)))


def _local_files(path: str) -> list[Path]:
    p = Path(path)
    return [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.is_file())


def _gzip_problem(path: Path) -> str | None:
    try:
        with gzip.open(path, "rb") as fh:
            while fh.read(1 << 20):
                pass
    except EOFError:
        return "the gzip stream is truncated (the file ends before the compressed data does)"
    except (gzip.BadGzipFile, zlib.error, OSError) as exc:
        return f"not a valid gzip file ({str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__})"
    return None


def _parquet_problem(path: Path) -> str | None:
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(4)
        if size < 12 or head != b"PAR1":
            return "not a Parquet file (no PAR1 header)"
        fh.seek(size - 8)
        footer_len, magic = struct.unpack("<I4s", fh.read(8))
    if magic != b"PAR1":
        return "the Parquet file is truncated (no footer at its end)"
    if footer_len > size - 12:
        return "the Parquet file is truncated (its footer is longer than the file)"
    return None


def broken_input(paths: Iterable[str]) -> str | None:
    """``FILE: what is wrong`` for the first local input file that cannot be read whole (a truncated
    ``.gz``, a Parquet file without its footer); None when every one reads. Called after Spark
    failed, to name the file (reading every gzip stream costs a pass over the input)."""
    for path in paths:
        if not is_local(path):
            continue
        for f in _local_files(path):
            if f.name.endswith(".gz"):
                problem = _gzip_problem(f)
            elif f.name.endswith(".parquet") and not f.name.startswith((".", "_")):
                problem = _parquet_problem(f)
            else:
                continue
            if problem:
                return f"{f}: {problem}"
    return None
