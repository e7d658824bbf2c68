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
        self.turns = 0
        self._position = -1

    def feed(self, messages: Sequence[Any], offset: int = 0) -> None:
        for index, message in enumerate(messages, start=offset):
            role = message.get("role")
            if role == "assistant":
                self.turns += 1
                self._position = index
            elif role == "toolResult" and self._position >= 0 and message.get("isError") is True:
                self.errored.setdefault(self._position, (self.turns, set()))[1].add(str(message.get("toolCallId")))


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
    for position, (turn, ids) in calls.errored.items():
        if calls.turns - turn < cooldown_turns:
            continue
        purged = purge_message(messages[position], ids, min_arg_chars)
        if purged is not messages[position]:
            if out is None:
                out = list(messages)
            out[position] = purged
    return messages if out is None else out
