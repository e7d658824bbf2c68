"""Phase 2: shrink the arguments of tool calls that failed a while ago.

A failed `write` or `edit` keeps its whole file body in the assistant turn forever, although nothing
will ever act on it; the small error result is what the model needs. Once the error has cooled down
(the model had its turns to retry), every long string inside the call's arguments becomes a size
marker. Keys, value types and array lengths stay: providers replay old calls and some validate their
shape (a grammar tool whose input property must stay a string), so the call must still look like
itself. The result message is never touched.

A call is paired with the result that follows it in its own turn (up to the next assistant message),
not by id across the conversation: providers reuse ids, and an error of one turn must not purge a
later, successful call that happens to share its id, nor the reverse.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import Any

from condense.measure import json_chars

LONG_STRING_CHARS = 200  # strings up to this long (paths, short commands) stay readable


def _marker(size: int) -> str:
    return f'<purged-errored-args size="{size}"/>'


def shrink_long_strings(value: Any, marker: Callable[[int], str] = _marker) -> Any:
    """`value` with every string longer than LONG_STRING_CHARS replaced by its marker, copying only the
    containers on the way to a change: an unchanged value comes back as the very same object."""
    if isinstance(value, str):
        return marker(len(value)) if len(value) > LONG_STRING_CHARS else value
    if isinstance(value, dict):
        changed = {key: new for key, item in value.items()
                   if (new := shrink_long_strings(item, marker)) is not item}
        return {**value, **changed} if changed else value
    if isinstance(value, list):
        items = [shrink_long_strings(item, marker) for item in value]
        return items if any(new is not old for new, old in zip(items, value, strict=True)) else value
    return value


class ErroredCalls:
    """Position of each assistant message followed, within its own turn, by failed results -> (its
    assistant count, 1-based; the ids of those results). Ids that none of its calls carry match nothing.

    Fed in order, possibly in several pieces (a growing conversation), with the same result as one pass."""

    def __init__(self) -> None:
        self.errored: dict[int, tuple[int, set[str]]] = {}
        self.order: list[int] = []  # the positions of `errored`, oldest first (their turns never decrease)
        self.turns = 0
        self._assistants: list[int] = []  # positions of the assistant messages fed

    def feed(self, messages: Sequence[Any], offset: int = 0) -> set[int]:
        """Take in the next messages; returns the positions whose failed ids they added to."""
        grown = set()
        for index, message in enumerate(messages, start=offset):
            role = message.get("role")
            if role == "assistant":
                self.turns += 1
                self._assistants.append(index)
            elif role == "toolResult" and self._assistants and message.get("isError") is True:
                position = self._assistants[-1]
                if position not in self.errored:
                    self.errored[position] = (self.turns, set())
                    self.order.append(position)
                self.errored[position][1].add(str(message.get("toolCallId")))
                grown.add(position)
        return grown

    def turn(self, position: int, size: int) -> tuple[int, int, int] | None:
        """The turn the result at `position` is in (of `size` messages fed): its assistant count, its
        assistant message's position and where it ends; None before the first assistant message."""
        turn = bisect.bisect_right(self._assistants, position)
        if not turn:
            return None
        return turn, self._assistants[turn - 1], self._assistants[turn] if turn < len(self._assistants) else size

    def redecide(self, messages: Sequence[Any], position: int) -> int | None:
        """The result at `position` of `messages` (those fed, as they are now) changed: take its turn's
        failed ids again. Returns the turn's assistant position when they changed, else None."""
        found = self.turn(position, len(messages))
        if found is None:
            return None
        turn, start, end = found
        ids = {str(m.get("toolCallId")) for m in messages[start + 1:end]
               if m.get("role") == "toolResult" and m.get("isError") is True}
        if ids == (self.errored[start][1] if start in self.errored else set()):
            return None
        if start not in self.errored:
            bisect.insort(self.order, start)
        self.errored[start] = (turn, ids)
        if not ids:
            del self.errored[start]
            self.order.remove(start)
        return start

    def cooled(self, after: int, upto: int) -> list[int]:
        """Positions whose assistant count is above `after` and at most `upto`, oldest first."""
        turn_of = self._turn_of
        return self.order[bisect.bisect_right(self.order, after, key=turn_of):
                          bisect.bisect_right(self.order, upto, key=turn_of)]

    def _turn_of(self, position: int) -> int:
        return self.errored[position][0]


def purge_message(message: dict[str, Any], ids: set[str], min_arg_chars: int) -> dict[str, Any]:
    """The assistant message with the failed calls' arguments shrunk; the same object if none shrank."""
    content = message.get("content") or []
    new_content = list(content)
    for slot, block in enumerate(content):
        if not (isinstance(block, dict) and block.get("type") == "toolCall" and str(block.get("id")) in ids):
            continue
        for key in ("arguments", "rawArguments"):  # the model's text, when it was no JSON object
            value = new_content[slot].get(key)
            if value is None or json_chars(value) < min_arg_chars:
                continue
            shrunk = shrink_long_strings(value)
            if shrunk is not value:
                new_content[slot] = {**new_content[slot], key: shrunk}
    if all(new is old for new, old in zip(new_content, content, strict=True)):
        return message
    return {**message, "content": new_content}


def purge_cooled(messages: list[Any], calls: ErroredCalls, cooldown_turns: int, min_arg_chars: int) -> list[Any]:
    """Shrink the long argument strings of the failed calls in `calls` (fed with exactly `messages`) that
    cooled down: `cooldown_turns` assistant messages after their own, arguments of `min_arg_chars` or more.
    The very same list when nothing qualifies; a second pass changes nothing (markers are short)."""
    out: list[Any] | None = None
    for position in calls.cooled(0, calls.turns - cooldown_turns):
        purged = purge_message(messages[position], calls.errored[position][1], min_arg_chars)
        if purged is not messages[position]:
            if out is None:
                out = list(messages)
            out[position] = purged
    return messages if out is None else out
