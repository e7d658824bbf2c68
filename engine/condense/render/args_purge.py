"""Phase 1b (opt-in, `purge_summarized_args`): shrink the arguments of calls whose output is stubbed.

Tool-call arguments are about a third of what the model reads in the recorded sessions: the body of
every `write` and the `oldText`/`newText` of every `edit` stay in the assistant turn long after the
work is summarised. Once phase 1 stubbed a call's result, every long string in that call's arguments
becomes a size marker, the way the error purge does it (keys, types and array lengths stay, so the call
still looks like itself). Nothing is lost: `context_tree_query` returns a call's arguments with its
output. The rewrite happens exactly where phase 1 already rewrote the context (the same flush makes the
stub and the marker), so it costs the prompt cache nothing more, and it depends only on the messages,
so every render gives the same bytes. A full render purges every turn (`purged_calls`); an incremental
one only the turns whose results phase 1 decided differently (`purged_turn`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from condense.render.purge import shrink_long_strings


def purged_marker(size: int) -> str:
    return f'<purged-args size="{size}"/>'


def _stubbed_calls(original: list[Any], rendered: list[Any]) -> dict[int, set[str]]:
    """Position of each assistant message -> ids of its calls whose result phase 1 replaced (a result
    is paired with the assistant message of its own turn, as in the error purge)."""
    stubbed: dict[int, set[str]] = {}
    position = -1
    for index, (before, after) in enumerate(zip(original, rendered, strict=True)):
        role = after.get("role")
        if role == "assistant":
            position = index
        elif role == "toolResult" and after is not before and position >= 0:
            stubbed.setdefault(position, set()).add(str(after.get("toolCallId")))
    return stubbed


def _purge_calls(message: dict[str, Any], ids: set[str]) -> dict[str, Any]:
    """The message with those calls' long argument strings shrunk; the same object if none shrank."""
    content = message.get("content") or []
    new_content = list(content)
    for slot, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") == "toolCall" and str(block.get("id")) in ids:
            shrunk = shrink_long_strings(block.get("arguments"), purged_marker)
            if shrunk is not block.get("arguments"):
                new_content[slot] = {**block, "arguments": shrunk}
    changed = any(new is not old for new, old in zip(new_content, content, strict=True))
    return {**message, "content": new_content} if changed else message


class ArgsPurgeMemo:
    """Each assistant message's purged copy, made once: the same few hundred messages come back on
    every render, and the copy must be the same object for the renders after it (cheap no-op renders)."""

    def __init__(self) -> None:
        self._copies: dict[tuple[int, frozenset[str]], tuple[dict[str, Any], dict[str, Any]]] = {}

    def purged(self, message: dict[str, Any], ids: set[str]) -> dict[str, Any]:
        key = (id(message), frozenset(ids))
        pinned = self._copies.get(key)
        if pinned is None or pinned[0] is not message:
            pinned = (message, _purge_calls(message, ids))
            self._copies[key] = pinned
        return pinned[1]


def purged_calls(original: list[Any], rendered: list[Any], memo: ArgsPurgeMemo) -> dict[int, Any]:
    """The assistant messages of `rendered` (phase 1's output for `original`) whose stubbed calls' long
    argument strings shrink, shrunk, by position."""
    if rendered is original:
        return {}
    purged = {position: memo.purged(rendered[position], ids)
              for position, ids in _stubbed_calls(original, rendered).items()}
    return {position: message for position, message in purged.items() if message is not rendered[position]}


def purged_turn(original: list[Any], rendered_at: Callable[[int], Any], start: int, end: int,
                memo: ArgsPurgeMemo) -> Any:
    """The assistant message at `start` as phase 1b renders it, its turn ending at `end`, given phase 1's
    output (`rendered_at`, which never replaces an assistant message): the calls whose result phase 1
    replaced with their long argument strings shrunk."""
    ids = {str(after.get("toolCallId")) for position in range(start + 1, end)
           if (after := rendered_at(position)).get("role") == "toolResult" and after is not original[position]}
    return memo.purged(original[start], ids) if ids else original[start]
