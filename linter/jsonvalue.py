"""A value of nats-server's JSON API: what a config field holds in a request or an answer
(``None``: absent or ``null``). The type of values read from the server's JSON shape before they
are known to be one field's type."""

from __future__ import annotations

from typing import TypeAlias

__all__ = ["JsonScalar", "JsonValue", "JsonObject"]

JsonScalar: TypeAlias = str | int | float | bool | None
JsonValue: TypeAlias = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]
JsonObject: TypeAlias = dict[str, JsonValue]
