"""The shapes of JetStream API answers: a server (or anything answering on ``$JS.API``) that sends a
string where a number belongs gets a clear error naming the field, never a crash further on.

Config fields are checked against the linter's config records (``jsops.linter.model.config``: the one
home of each field's type); the envelopes (pages, StreamInfo/ConsumerInfo state, INFO) are
declared here as mappings of key to type. Only JSON types are checked (a string, an integer, a
list...), not values: a new server may send a retention policy this jsops does not know yet, and
keys jsops does not know are passed over.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Iterable
from typing import Any, Literal, TypeAlias, Union

__all__ = [
    "Hint",
    "answer_problem",
    "server_info_problem",
    "info_shape",
    "list_page",
    "ACCOUNT_INFO",
    "ERROR_SHAPE",
    "SERVER_INFO",
    "MONITOR_SHAPES",
    "NOT_NULL",
]


_JSON_NAMES = {
    str: "a string",
    int: "an integer",
    bool: "a boolean",
    float: "a number",
    list: "a list",
    dict: "an object",
    type(None): "null",
}


Hint: TypeAlias = object
"""A shape's type hint: a class (``int``, a config record), a typing form (``list[str]``,
``Annotated[int, NOT_NULL]``) or an envelope (a mapping of key to hint). Typing forms are no
``type``: they are told apart by :func:`typing.get_origin`."""


def _kind(value: object) -> str:
    return _JSON_NAMES.get(type(value), type(value).__name__)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


# A checker returns None when the value has the shape, else (the path below it, what was expected);
# None instead of a checker: anything goes. Shapes are compiled once (a check runs per listed object).
Checker = typing.Callable[[object], tuple[str, str] | None]


class _Simple:
    """A value of one simple JSON type (or null): a checker whose parts :func:`_envelope` reads
    to check it inline."""

    __slots__ = ("kinds", "expected", "no_bool")

    def __init__(self, kinds: tuple[type, ...], expected: str, no_bool: bool = False) -> None:
        self.kinds, self.expected, self.no_bool = kinds, expected, no_bool

    def __call__(self, value: object) -> tuple[str, str] | None:
        if value is None or (isinstance(value, self.kinds) and not (self.no_bool and isinstance(value, bool))):
            return None
        return "", self.expected


def _simple(kinds: tuple[type, ...], expected: str, no_bool: bool = False) -> Checker:
    return _Simple(kinds, expected, no_bool)


def _envelope(fields: dict[str, Checker | None]) -> Checker:
    # Keys of a simple JSON type are checked inline (one isinstance, no call): a listing checks
    # every key of thousands of configs. The others go through their checkers.
    simple: dict[str, tuple[tuple[type, ...], str, bool]] = {}
    nested: dict[str, Checker] = {}
    for k, c in fields.items():
        if isinstance(c, _Simple):
            simple[k] = (c.kinds, c.expected, c.no_bool)
        elif c is not None:
            nested[k] = c
    return _envelope_check(simple, nested)


def _envelope_check(simple: dict[str, tuple[tuple[type, ...], str, bool]], nested: dict[str, Checker]) -> Checker:
    def check(value: object) -> tuple[str, str] | None:
        if not isinstance(value, dict):
            return None if value is None else ("", "an object")
        for key, v in value.items():
            spec = simple.get(key)
            if spec is not None:
                if v is None or (isinstance(v, spec[0]) and not (spec[2] and v.__class__ is bool)):
                    continue
                return f".{key}", spec[1]
            c = nested.get(key)
            if c is not None:
                found = c(v)
                if found:
                    return f".{key}{found[0]}", found[1]
        return None

    return check


def _items(item: Checker | None, kind: type) -> Checker:
    expected = "a list" if kind is list else "an object"

    def check(value: object) -> tuple[str, str] | None:
        if value is None:
            return None
        if not isinstance(value, kind):
            return "", expected
        if item is not None:
            pairs: Iterable[tuple[object, object]] = (
                enumerate(value) if isinstance(value, list) else value.items() if isinstance(value, dict) else ()
            )
            for k, v in pairs:
                found = item(v)
                if found:
                    return (f"[{k}]" if kind is list else f".{k}") + found[0], found[1]
        return None

    return check


NOT_NULL: typing.Final = "not null"
"""In a shape, ``Annotated[T, NOT_NULL]``: a key that may be left out but, when present, is never null."""


def _not_null(simple: _Simple) -> Checker:
    def check(value: object) -> tuple[str, str] | None:
        return ("", simple.expected) if value is None else simple(value)

    return check


def _union(options: list[Checker]) -> Checker:
    def check(value: object) -> tuple[str, str] | None:
        problems = [c(value) for c in options]
        return None if any(p is None for p in problems) else problems[0]

    return check


_SIMPLE: dict[Any, Checker] = {
    bool: _simple((bool,), "a boolean"),
    int: _simple((int,), "an integer", no_bool=True),
    float: _simple((int, float), "a number", no_bool=True),
    str: _simple((str,), "a string"),
}


def _compile(hint: Hint) -> Checker | None:
    if hint is Any:
        return None
    if isinstance(hint, dict):  # an envelope: key -> type
        return _envelope({k: _compile(v) for k, v in hint.items()})
    return _compile_type(hint)


@functools.cache
def _compile_type(hint: Hint) -> Checker | None:
    origin = typing.get_origin(hint)
    if origin is None:
        return _compile_plain(hint)
    if origin is typing.Annotated:
        inner = _compile(typing.get_args(hint)[0])
        return (
            _not_null(inner) if NOT_NULL in getattr(hint, "__metadata__", ()) and isinstance(inner, _Simple) else inner
        )
    if origin in (Union, types.UnionType):
        return _compile_union(hint)
    if origin is Literal:
        return _SIMPLE.get(type(typing.get_args(hint)[0]))
    if origin in (list, tuple):
        return _items(_compile((typing.get_args(hint) or (Any,))[0]), list)
    if origin is dict:
        args = typing.get_args(hint)
        return _items(_compile(args[1]) if args else None, dict)
    return _compile_plain(hint)


def _compile_union(hint: Hint) -> Checker | None:
    compiled = [_compile(a) for a in typing.get_args(hint) if a is not type(None)]
    options = [c for c in compiled if c is not None]
    if len(options) < len(compiled):  # one of them takes anything
        return None
    return options[0] if len(options) == 1 else _union(options)


def _compile_plain(hint: Hint) -> Checker | None:
    """The checker of a type that is not generic: a JSON scalar, a bare container, a config record."""
    if hint in _SIMPLE:
        return _SIMPLE[hint]
    if getattr(hint, "__name__", "") == "datetime":
        return _SIMPLE[str]
    if hint is dict:
        return _items(None, dict)
    if hint is list:
        return _items(None, list)
    if _is_record(hint):  # a config record: its fields' types
        return _envelope({k: _compile(v) for k, v in _hints(hint).items() if not k.startswith("_")})
    return None


def _is_record(hint: Hint) -> bool:
    from jsops.linter import is_record_class

    return isinstance(hint, type) and is_record_class(hint)


def _problem(value: object, shape: Hint) -> str | None:
    """``FIELD is KIND, expected KIND`` for the first field of ``value`` not of ``shape``, or None."""
    check = _checker(shape)
    found = check(value) if check is not None else None
    if not found:
        return None
    field, expected = found[0].lstrip("."), found[1]
    at = value
    for part in _walk(field):
        at = at[part] if isinstance(at, dict) and part in at or isinstance(at, list) and isinstance(part, int) else None
    return f"{field or 'the answer'} is {_kind(at)}, expected {expected}"


def answer_problem(value: object, shape: Hint, what: str) -> str | None:
    """What is wrong with ``value`` for ``shape`` (one line naming the field), or None."""
    problem = _problem(value, shape)
    return None if problem is None else f"the server's answer to {what} is malformed: {problem}"


def server_info_problem(info: object) -> str | None:
    """What is wrong with the INFO a server sent on connect (:data:`SERVER_INFO`; one line naming the
    field), or None."""
    problem = _problem(info, SERVER_INFO)
    return (
        None
        if problem is None
        else f"the server's INFO (what it tells every client on connect) is malformed: {problem}"
    )


_COMPILED: dict[int, tuple[Hint, Checker | None]] = {}


def _checker(shape: Hint) -> Checker | None:
    """The compiled checker of ``shape`` (module-level shapes are compiled once, by identity)."""
    hit = _COMPILED.get(id(shape))
    if hit is not None and hit[0] is shape:
        return hit[1]
    check = _compile(shape)
    _COMPILED[id(shape)] = (shape, check)
    return check


def _walk(field: str) -> list[Any]:
    parts: list[Any] = []
    for piece in field.replace("[", ".[").split("."):
        if not piece:
            continue
        parts.append(int(piece[1:-1]) if piece.startswith("[") else piece)
    return parts


def _config(kind: str) -> type:
    from jsops.linter.model.config import ConsumerConfig, StreamConfig

    return StreamConfig if kind == "StreamConfig" else ConsumerConfig


_SEQ = {"stream_seq": int, "consumer_seq": int}
STREAM_INFO: dict[str, Any] = {
    "config": dict,  # the record's fields: info_shape
    "state": {
        "messages": int,
        "bytes": int,
        "first_seq": int,
        "last_seq": int,
        "consumer_count": int,
        "num_subjects": int,
        "num_deleted": int,
        "first_ts": str,
        "last_ts": str,
    },
}
CONSUMER_INFO: dict[str, Any] = {
    "stream_name": str,
    "name": str,
    "config": dict,
    "delivered": _SEQ,
    "ack_floor": _SEQ,
    "num_pending": int,
    "num_ack_pending": int,
    "num_redelivered": int,
    "num_waiting": int,
}
_LIMITS = dict[str, int | bool]
ACCOUNT_INFO: dict[str, Any] = {"limits": _LIMITS, "tiers": dict[str, dict[str, Any]]}
ERROR_SHAPE: dict[str, Any] = {"error": {"description": str, "err_code": int, "code": int}}
SERVER_INFO: dict[str, Any] = {
    # what nats-server 2.10-2.15 send (a standalone server; a cluster adds cluster and connect_urls)
    "server_id": str,
    "server_name": str,
    "version": typing.Annotated[str, NOT_NULL],  # what discover writes as the target's release
    "proto": int,
    "git_commit": str,
    "go": str,
    "host": str,
    "port": int,
    "headers": bool,
    "max_payload": typing.Annotated[int, NOT_NULL],  # the client compares every payload's size with it
    "jetstream": bool,
    "client_id": int,
    "client_ip": str,
    "xkey": str,
    "api_lvl": int,
    "cluster": str,
    "connect_urls": list[str],
    "ws_connect_urls": list[str],
    "domain": str,
    "nonce": str,
    "auth_required": bool,
    "tls_required": bool,
    "tls_verify": bool,
    "tls_available": bool,
    "ldm": bool,
    "cluster_dynamic": bool,
    "ip": str,
}
"""The server's INFO, the first thing it sends every client (nats-server's ``Info``): its keys' JSON types."""


@functools.cache
def list_page(key: str) -> dict[str, Any]:
    """The shape of one ``STREAM.LIST``/``CONSUMER.LIST`` page whose items are under ``key``."""
    return {key: list[dict[str, Any]], "total": int, "offset": int, "limit": int, "missing": list[str]}


@functools.cache
def info_shape(kind: str) -> dict[str, Any]:
    """StreamInfo (``kind`` "StreamConfig") or ConsumerInfo ("ConsumerConfig") with its config's fields."""
    base = STREAM_INFO if kind == "StreamConfig" else CONSUMER_INFO
    return {**base, "config": _config(kind)}


MONITOR_SHAPES: dict[str, dict[str, Any]] = {
    # the keys of the monitoring endpoints jsops reads (discover, --monitor), as nats-server 2.10-2.15 send them
    "varz": {
        "server_id": str,
        "server_name": str,
        "tags": list[str],
        "jetstream": {
            "config": {"max_memory": int, "max_storage": int},
            "stats": {"reserved_memory": int, "reserved_storage": int},
            "limits": {
                "max_ack_pending": int,
                "max_request_batch": int,
                "max_duplicate_window": int,
                "max_ha_assets": int,
            },
        },
    },
    "jsz": {"meta_cluster": {"name": str, "cluster_size": int}},
    "routez": {"routes": list[dict[str, Any]]},
}
"""Per monitoring endpoint (``/varz``, ``/jsz``, ``/routez``), the JSON types of the keys jsops reads."""
