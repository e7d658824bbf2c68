"""Occurrence keys: which tool output a record is about.

Providers reuse tool-call ids (some restart `bash_1, bash_2, ...` every session or even every run), so
the id alone cannot name one output. The tool result's own timestamp, stamped once when the result
was made and read back identically by every later capture, render and reload, completes it:
`id@resultTimestamp`. Records written before the timestamp existed keep the bare id as their key.

A clock says the same millisecond twice (a coarse or stepped clock, two calls under one reused id in
one reply), so a result that repeats an earlier result's id and timestamp gets its number in the
conversation too: `id@resultTimestamp#2`. The first keeps the key it always had, so the index records
of existing sessions still match, and the number is counted over the messages in order, so the same
branch numbers the same way at every render and reload. Condense reads such a result through a copy
carrying its number (`numbered`); the copy never leaves the engine.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar, cast

from condense.prefix import Following

OCCURRENCE = "occurrence"  # the number a repeated result's copy carries (2 for the first repeat)
_SUFFIX = re.compile(r"@([0-9]+)(?:#([0-9]+))?")

M = TypeVar("M", bound=Mapping[str, Any])
Copies = dict[tuple[int, int], tuple[Mapping[str, Any], dict[str, Any]]]
"""(id of a result, its number) -> (that result, its numbered copy): one copy per repeat, kept so a
conversation rendered again hands the engine the very same objects."""


class ParsedKey(NamedTuple):
    tool_call_id: str
    result_timestamp: int | None
    occurrence: int = 1


def occ_key(tool_call_id: str, result_timestamp: int | None, occurrence: int = 1) -> str:
    if result_timestamp is None:
        return tool_call_id
    return f"{tool_call_id}@{result_timestamp}" + (f"#{occurrence}" if occurrence > 1 else "")


def parse_occ_key(key: str) -> ParsedKey:
    """Split on the last `@` when what follows is all digits (then `#` and a number from 2 for a repeat);
    ids may contain `@` themselves."""
    at = key.rfind("@")
    match = _SUFFIX.fullmatch(key, at) if at > 0 else None
    if match is None or (match.group(2) is not None and int(match.group(2)) < 2):
        return ParsedKey(key, None)
    return ParsedKey(key[:at], int(match.group(1)), int(match.group(2) or 1))


def bare_id(key: str) -> str:
    return parse_occ_key(key).tool_call_id


def result_timestamp_of(value: Any) -> int | None:
    """A message's `timestamp` when it is a number (bools and strings are not), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if math.isfinite(value) else None  # NaN and infinities are not usable key parts


def occurrence_of(data: Mapping[str, Any], field: str = OCCURRENCE) -> int:
    """The number in `field` (a repeat's copy, a persisted record), 1 when there is none."""
    value = data.get(field)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 1 else 1


def message_key(message: Mapping[str, Any]) -> str:
    """The occurrence key of a toolResult message (of its numbered copy, for a repeat)."""
    return occ_key(str(message.get("toolCallId", "")), result_timestamp_of(message.get("timestamp")),
                   occurrence_of(message))


class Occurrences:
    """Counts a conversation's results by id and timestamp, in order, fed in as many pieces as it grows."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, int], int] = {}

    def count(self, result: Mapping[str, Any]) -> int:
        """The number of this result among those with its id and timestamp (1 for the first)."""
        stamp = result_timestamp_of(result.get("timestamp"))
        if stamp is None:
            return 1
        pair = (str(result.get("toolCallId", "")), stamp)
        number = self._counts[pair] = self._counts.get(pair, 0) + 1
        return number

    def number(self, messages: list[M], copies: Copies | None = None) -> list[M]:
        """The messages with each repeated result replaced by its numbered copy (from `copies`, where it
        is kept); the very same list object when no result repeats."""
        out: list[M] | None = None
        for position, message in enumerate(messages):
            if message.get("role") != "toolResult":
                continue
            number = self.count(message)
            if number == occurrence_of(message):  # a first, or a copy numbered already
                continue
            if out is None:
                out = list(messages)
            out[position] = _copy(message, number, copies)
        return messages if out is None else out


def numbered(messages: list[M], copies: Copies | None = None) -> list[M]:
    """A whole conversation numbered at once (see `Occurrences.number`)."""
    return Occurrences().number(messages, copies)


class Numbering:
    """`numbered` for a conversation that grows between calls (a render per request): only the messages
    added since the last call are counted; any other change of the list starts over."""

    def __init__(self) -> None:
        self.copies: Copies = {}
        self._seen = Following()  # the messages of the last call
        self._reset()

    def _reset(self) -> None:
        self._out: list[Any] = []
        self._occurrences = Occurrences()
        self._repeats = False

    def of(self, messages: list[M]) -> list[M]:
        """`messages` numbered: the very same list while no result in it repeats, else this numbering's
        own list, which the next call changes in place (a caller keeps nothing of it)."""
        held = self._seen.follow(messages)
        if not held:
            self._reset()
        new = messages[held:]
        if new:
            out = self._occurrences.number(new, self.copies)
            self._repeats = self._repeats or out is not new
            self._out += out
        return cast(list[M], self._out) if self._repeats else messages


def _copy(message: M, number: int, copies: Copies | None) -> M:
    slot = (id(message), number)
    kept = copies.get(slot) if copies is not None else None
    if kept is not None and kept[0] is message:
        return _same_kind(message, kept[1])
    copy = {**message, OCCURRENCE: number}
    if copies is not None:
        copies[slot] = (message, copy)
    return _same_kind(message, copy)


def _same_kind(_message: M, copy: dict[str, Any]) -> M:
    """A copy of a message is a message of its kind (one more key, which the TypedDicts do not name)."""
    return cast(M, copy)


def originals(messages: list[M], copies: Copies) -> list[M]:
    """`messages` (a render) with every numbered copy turned back into the host's own message, and the
    number dropped from anything else carrying it (a stub): nothing of condense's leaves the engine."""
    if not copies:
        return messages
    sources = {id(copy): source for source, copy in copies.values()}
    out = [_original(message, sources) for message in messages]
    return messages if all(map(operator.is_, out, messages)) else out


def _original(message: M, sources: dict[int, Mapping[str, Any]]) -> M:
    if OCCURRENCE not in message:
        return message
    source = sources.get(id(message))
    if source is not None:
        return cast(M, source)  # the host's own message this copy was made of
    return _same_kind(message, {key: value for key, value in message.items() if key != OCCURRENCE})


@dataclass
class ResultEntries:
    """The id of the entry holding each tool result of a growing branch, by the result's occurrence key:
    a compact index record names its output by that id alone (the call id and timestamp are the
    entry's). Only the entries new since the last look are read (a flush costs its batch). Two compare
    by the entries they know (an index's state compares by it)."""

    by_key: dict[str, str] = field(default_factory=dict)
    _following: Following = field(default_factory=Following, compare=False, repr=False)
    _occurrences: Occurrences = field(default_factory=Occurrences, compare=False, repr=False)

    def of(self, entries: list[dict[str, Any]]) -> dict[str, str]:
        seen = self._following.follow(entries)
        if seen == 0:
            self._occurrences, self.by_key = Occurrences(), {}
        for entry in entries[seen:]:
            message = entry.get("message") if entry.get("type") == "message" else None
            if isinstance(message, dict) and message.get("role") == "toolResult" and isinstance(entry.get("id"), str):
                key = occ_key(str(message.get("toolCallId", "")), result_timestamp_of(message.get("timestamp")),
                              self._occurrences.count(message))
                self.by_key[key] = entry["id"]
        return self.by_key


def result_entries(entries: list[dict[str, Any]]) -> dict[str, str]:
    """The occurrence key of every tool result of a branch by the id of its entry."""
    return {entry: key for key, entry in ResultEntries().of(entries).items()}
