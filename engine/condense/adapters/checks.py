"""Reading an agent's messages field by field, so that a malformed one is refused in one line.

An agent's history comes from its own code, an SDK's objects or a file it saved, so any field may hold
anything. The adapters read every field through these functions: a wrong one raises MessageError
naming the message, the field's path and what was found (`condense: message 3: tool_calls[0].id:
expected a non-empty string, got None`), never a TypeError or KeyError from deep inside the engine.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, NoReturn, TypeGuard

from condense.errors import MessageError

SHOWN_CHARS = 40


def at(where: str, key: str | int) -> str:
    """The path of a field inside `where`: `message 3: content[0].text`."""
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if ":" in where else f"{where}: {key}"


def shown(value: object) -> str:
    """What was found, short enough for one line."""
    if isinstance(value, Mapping):
        return "an object" if value else "an empty object"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 3] + "..."


def refuse(where: str, expected: str, value: object) -> NoReturn:
    raise MessageError(f"condense: {where}: expected {expected}, got {shown(value)}")


def mapping(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        refuse(where, "an object", value)
    return value


def text(value: object, where: str) -> str:
    if not isinstance(value, str):
        refuse(where, "a string", value)
    return value


def identifier(value: object, where: str) -> str:
    """An id that pairs a call with its result: a result could never find an empty one."""
    if not isinstance(value, str) or not value:
        refuse(where, "a non-empty string", value)
    return value


def items(value: object, where: str, *, optional: bool = False) -> list[Any]:
    """A list; with `optional`, a missing one (None) reads as empty."""
    if value is None and optional:
        return []
    if not isinstance(value, list):
        refuse(where, "a list", value)
    return value


def flag(value: object, where: str) -> bool:
    """A yes/no field that may be left out."""
    if value is None:
        return False
    if not isinstance(value, bool):
        refuse(where, "true or false", value)
    return value


def finite_number(value: object) -> TypeGuard[int | float]:
    """A count a provider could have reported: no bool, NaN or infinity."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def kind(block: dict[str, Any], where: str) -> str:
    """A content block's `type`."""
    return text(block.get("type"), at(where, "type"))


def json_object(value: object, where: str) -> dict[str, Any]:
    """An object condense can write to its store as it was given (tool arguments, a cache breakpoint)."""
    found = mapping(value, where)
    try:
        json.dumps(found)
    except (TypeError, ValueError):
        refuse(where, "an object of JSON values", value)
    return found
