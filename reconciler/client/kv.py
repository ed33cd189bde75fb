"""A JetStream KeyValue bucket with compare-and-set writes, for the controller's leader lease.

The lease (``jsops.reconciler.controller.lease``) writes one key with revision checks: a create that
succeeds only when the key is absent, an update that names the revision it last wrote, a delete
under the same condition. A write whose condition does not hold raises :class:`WrongRevision`,
whichever way the client library reports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ErrCode, PermanentError

if TYPE_CHECKING:  # nats-py's classes, for their types only
    from nats.js.kv import KeyValue

    from .connection import Connection

__all__ = ["KvBucket", "WrongRevision", "abind_bucket"]


class WrongRevision(PermanentError):
    """The key was written by somebody else since the revision the write named (or exists already)."""


def _wrong_revision(exc: BaseException) -> bool:
    from nats.js.errors import KeyWrongLastSequenceError

    if isinstance(exc, KeyWrongLastSequenceError):
        return True
    # wrong last sequence reported as a plain API error by some client versions
    return type(exc).__name__ == "APIError" and getattr(exc, "err_code", None) == ErrCode.STREAM_WRONG_LAST_SEQUENCE


class KvBucket:
    """One bound bucket. ``max_age`` is the bucket's TTL in seconds (0: none)."""

    def __init__(self, kv: KeyValue, max_age: float) -> None:
        self._kv = kv
        self.max_age = max_age

    async def create(self, key: str, value: bytes) -> int:
        """Write ``key`` if it does not exist; its new revision."""
        try:
            return int(await self._kv.create(key, value))
        except Exception as exc:
            if _wrong_revision(exc):
                raise WrongRevision(f"{key} exists") from None
            raise

    async def update(self, key: str, value: bytes, last: int) -> int:
        """Write ``key`` if its revision is still ``last``; its new revision."""
        try:
            return int(await self._kv.update(key, value, last=last))
        except Exception as exc:
            if _wrong_revision(exc):
                raise WrongRevision(f"{key} was written since revision {last}") from None
            raise

    async def get(self, key: str) -> bytes | None:
        entry = await self._kv.get(key)
        value = entry.value
        return bytes(value) if value is not None else None

    async def entry(self, key: str) -> tuple[bytes, int] | None:
        """``key``'s value and revision; None when it is absent or deleted."""
        from nats.js.errors import KeyNotFoundError

        try:
            entry = await self._kv.get(key)
        except KeyNotFoundError:
            return None
        return bytes(entry.value or b""), entry.revision or 0  # a read entry always has one

    async def put(self, key: str, value: bytes) -> int:
        """Write ``key`` whatever its revision; its new revision."""
        return int(await self._kv.put(key, value))

    async def delete(self, key: str, last: int) -> None:
        """Delete ``key`` if its revision is still ``last``."""
        await self._kv.delete(key, last=last)


async def abind_bucket(nc: Connection, api: str, bucket: str, *, ttl: float, description: str) -> KvBucket:
    """The bucket named ``bucket`` on connection ``nc`` (JetStream API prefix ``api``), created with
    ``ttl`` as its max age and history 1 when it does not exist yet."""
    from nats.js.errors import BucketNotFoundError, NotFoundError

    js = nc.jetstream(prefix=api)
    try:
        kv = await js.key_value(bucket)
    except (BucketNotFoundError, NotFoundError):
        try:
            kv = await js.create_key_value(bucket=bucket, history=1, ttl=ttl, description=description)
        except Exception:
            kv = await js.key_value(bucket)  # another controller created it first
    info = await js.stream_info(f"KV_{bucket}")
    return KvBucket(kv, float(info.config.max_age or 0))
