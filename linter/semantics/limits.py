"""The fixed limits nats-server checks every stream and consumer config against (constants of
nats-server's ``server/jetstream_api.go`` and ``server/stream.go``), and how it measures them.

Limits a server's configuration sets (``max_payload``, account limits, ``limits {}`` of the
``jetstream`` block) belong to the target (:mod:`jsops.linter.model.target`), not here.
"""

from __future__ import annotations

from .units import KIB

__all__ = [
    "MAX_NAME_LEN",
    "MAX_DESCRIPTION_LEN",
    "MAX_METADATA_LEN",
    "REQ_LEVEL_METADATA_LEN",
    "REQ_LEVEL_SINCE",
    "metadata_budget",
    "MAX_REPLICAS",
    "go_len",
]

MAX_NAME_LEN = 255
"""``JSMaxNameLen``: a stream or consumer name, in bytes."""

MAX_DESCRIPTION_LEN = 4096
"""``JSMaxDescriptionLen``: a description, in bytes."""

MAX_METADATA_LEN = 128 * KIB
"""``JSMaxMetadataLen``: the metadata keys plus values, in bytes."""

REQ_LEVEL_METADATA_LEN = len("_nats.req.level") + 1
"""The ``"_nats.req.level": "<digit>"`` entry the server stores before it measures metadata."""

REQ_LEVEL_SINCE = (2, 11, 0)
"""The first release that stores the ``_nats.req.level`` entry before it measures metadata. Every supported
release refuses metadata over :data:`MAX_METADATA_LEN`; 2.10 measures the manifest's keys and values alone
(measured on 2.10.26: 131,072 bytes accepted, 131,073 refused; 2.11.11 ... 2.15.1: 131,056 and 131,057)."""


def metadata_budget(release: tuple[int, int, int]) -> int:
    """The bytes of metadata keys plus values (``_nats.*`` keys aside) that ``release`` accepts."""
    return MAX_METADATA_LEN - (REQ_LEVEL_METADATA_LEN if release >= REQ_LEVEL_SINCE else 0)


MAX_REPLICAS = 5
"""``StreamMaxReplicas``: the most replicas a stream (and so a consumer) may have."""


def go_len(text: str) -> int:
    """The length of ``text`` in bytes, as Go's ``len`` counts a string (UTF-8)."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))
