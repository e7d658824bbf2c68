"""Occurrence keys: which tool output a record is about.

Providers reuse tool-call ids (some restart `bash_1, bash_2, ...` every session or even every run), so
the id alone cannot name one output. The tool result's own timestamp, stamped once when the result
was made and read back identically by every later capture, render and reload, completes it:
`id@resultTimestamp`. Records written before the timestamp existed keep the bare id as their key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple


class ParsedKey(NamedTuple):
    tool_call_id: str
    result_timestamp: int | None


def occ_key(tool_call_id: str, result_timestamp: int | None) -> str:
    return tool_call_id if result_timestamp is None else f"{tool_call_id}@{result_timestamp}"


def parse_occ_key(key: str) -> ParsedKey:
    """Split on the last `@` when what follows is all digits; ids may contain `@` themselves."""
    at = key.rfind("@")
    if at > 0 and key[at + 1 :].isdigit() and key[at + 1 :].isascii():
        return ParsedKey(key[:at], int(key[at + 1 :]))
    return ParsedKey(key, None)


def bare_id(key: str) -> str:
    return parse_occ_key(key).tool_call_id


def result_timestamp_of(value: Any) -> int | None:
    """A message's `timestamp` when it is a number (bools and strings are not), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if math.isfinite(value) else None  # NaN and infinities are not usable key parts


def message_key(message: Mapping[str, Any]) -> str:
    """The occurrence key of a toolResult message."""
    return occ_key(str(message.get("toolCallId", "")), result_timestamp_of(message.get("timestamp")))
