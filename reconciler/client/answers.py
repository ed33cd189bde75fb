"""The shapes of JetStream API answers: a server (or anything answering on ``$JS.API``) that sends a
string where a number belongs gets a clear error naming the field, never a crash further on.

Config fields are checked against the linter's config records (``linter.model.config``: the one
home of each field's type); the envelopes (pages, StreamInfo/ConsumerInfo state, INFO) are
declared here as mappings of key to type. Only JSON types are checked (a string, an integer, a
list...), not values: a new server may send a retention policy this jsops does not know yet, and
keys jsops does not know are passed over.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any, Literal, Union

__all__ = ["answer_problem", "info_shape", "list_page", "ACCOUNT_INFO", "ERROR_SHAPE"]


_JSON_NAMES = {str: "a string", int: "an integer", bool: "a boolean", float: "a number", list: "a list",
               dict: "an object", type(None): "null"}


def _kind(value: Any) -> str:
    return _JSON_NAMES.get(type(value), type(value).__name__)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


def _problem(value: Any, hint: Any, where: str) -> tuple[str, str] | None:
    """(field path, what was expected) of the first part of ``value`` that ``hint`` does not allow."""
    if hint is Any:
        return None
    if isinstance(hint, dict):  # an envelope: key -> type
        if not isinstance(value, dict):
            return where, "an object"
        for key, sub in hint.items():
            if key in value:
                found = _problem(value[key], sub, f"{where}.{key}" if where else key)
                if found:
                    return found
        return None
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return _problem(value, typing.get_args(hint)[0], where)
    if origin in (Union, types.UnionType):
        args = typing.get_args(hint)
        if value is None and type(None) in args:
            return None
        problems = [_problem(value, a, where) for a in args if a is not type(None)]
        return None if any(p is None for p in problems) else problems[0]
    if value is None:
        return None  # an absent value (omitted or null) is the server's default
    if origin is Literal:
        return None if isinstance(value, type(typing.get_args(hint)[0])) else (where, "a string")
    if origin is list:
        if not isinstance(value, list):
            return where, "a list"
        (item,) = typing.get_args(hint) or (Any,)
        for i, v in enumerate(value):
            found = _problem(v, item, f"{where}[{i}]")
            if found:
                return found
        return None
    if origin is dict:
        if not isinstance(value, dict):
            return where, "an object"
        args = typing.get_args(hint)
        for k, v in value.items():
            found = _problem(v, args[1] if args else Any, f"{where}.{k}")
            if found:
                return found
        return None
    if hint is bool:
        return None if isinstance(value, bool) else (where, "a boolean")
    if hint is int:
        return None if isinstance(value, int) and not isinstance(value, bool) else (where, "an integer")
    if hint is float:
        return None if isinstance(value, (int, float)) and not isinstance(value, bool) else (where, "a number")
    if hint is str or getattr(hint, "__name__", "") == "datetime":
        return None if isinstance(value, str) else (where, "a string")
    if _is_record(hint):  # a config record: its fields' types
        return _problem(value, {k: v for k, v in _hints(hint).items() if not k.startswith("_")}, where)
    return None


def _is_record(hint: Any) -> bool:
    from linter.model.records import is_record_class

    return isinstance(hint, type) and is_record_class(hint)


def answer_problem(value: Any, shape: Any, what: str) -> str | None:
    """What is wrong with ``value`` for ``shape`` (one line naming the field), or None."""
    found = _problem(value, shape, "")
    if not found:
        return None
    field, expected = found
    at = value
    for part in _walk(field):
        at = at[part] if isinstance(at, dict) and part in at or isinstance(at, list) and isinstance(part, int) else None
    return f"the server's answer to {what} is malformed: {field or 'the answer'} is {_kind(at)}, expected {expected}"


def _walk(field: str) -> list[Any]:
    parts: list[Any] = []
    for piece in field.replace("[", ".[").split("."):
        if not piece:
            continue
        parts.append(int(piece[1:-1]) if piece.startswith("[") else piece)
    return parts


def _config(kind: str) -> Any:
    from linter.model import config as records

    return getattr(records, kind)


_SEQ = {"stream_seq": int, "consumer_seq": int}
STREAM_INFO: dict[str, Any] = {
    "config": dict,  # the record's fields: info_shape
    "state": {"messages": int, "bytes": int, "first_seq": int, "last_seq": int, "consumer_count": int,
              "num_subjects": int, "num_deleted": int, "first_ts": str, "last_ts": str},
}
CONSUMER_INFO: dict[str, Any] = {
    "stream_name": str, "name": str, "config": dict, "delivered": _SEQ, "ack_floor": _SEQ,
    "num_pending": int, "num_ack_pending": int, "num_redelivered": int, "num_waiting": int,
}
_LIMITS = dict[str, int | bool]
ACCOUNT_INFO: dict[str, Any] = {"limits": _LIMITS, "tiers": dict[str, dict[str, Any]]}
ERROR_SHAPE: dict[str, Any] = {"error": {"description": str, "err_code": int, "code": int}}


def list_page(key: str) -> dict[str, Any]:
    """The shape of one ``STREAM.LIST``/``CONSUMER.LIST`` page whose items are under ``key``."""
    return {key: list[dict[str, Any]], "total": int, "offset": int, "limit": int, "missing": list[str]}


def info_shape(kind: str) -> dict[str, Any]:
    """StreamInfo (``kind`` "StreamConfig") or ConsumerInfo ("ConsumerConfig") with its config's fields."""
    base = STREAM_INFO if kind == "StreamConfig" else CONSUMER_INFO
    return {**base, "config": _config(kind)}

