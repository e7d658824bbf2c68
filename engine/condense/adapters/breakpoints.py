"""Where an Anthropic request marks its prompt cache, when the AnthropicCondenser places the marks.

Anthropic caches a request's prefix up to a block marked `cache_control`, and a later request reads
it back when its own prefix up to a marked block (or a block up to about 20 before one) is the same.
Two marks serve a tool loop under condense. The last block of the request: the next request extends
this one (condense keeps the history's prefix byte-identical between flushes), so it reads all of it
back. And the last block that the previous request also sent unchanged: after a flush rewrote the
tail of the history (stubs for the outputs it summarised), the part before the rewrite is still in
the cache from the requests before, and this mark lets the request read it instead of writing the
whole prompt again. Anthropic allows four marks a request: two are left for the system prompt and the
tools, which the agent sends itself.
"""

from __future__ import annotations

from typing import Any

MARK = {"type": "ephemeral"}
MARKABLE = ("text", "image", "tool_use", "tool_result")  # thinking blocks cannot carry a mark

Position = tuple[int, int]  # (message, block) in a request


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _flat(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Every block with its message's role: roles alternate, so this sequence is the request."""
    return [(message["role"], block) for message in messages for block in _blocks(message)]


def _positions(messages: list[dict[str, Any]]) -> list[Position]:
    return [(i, j) for i, message in enumerate(messages) for j in range(len(_blocks(message)))]


def _markable(block: dict[str, Any]) -> bool:
    return block.get("type") in MARKABLE and not (block.get("type") == "text" and not block.get("text"))


class CacheBreakpoints:
    """Marks each request of one conversation; remembers the last one to find what stayed unchanged."""

    def __init__(self) -> None:
        self._previous: list[tuple[str, dict[str, Any]]] = []

    def place(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`messages` with the two marks (one when they fall on the same block); the messages and
        blocks it marks are copies, and a mark the agent placed itself is kept as it is."""
        flat = _flat(messages)
        unchanged = next((n for n, (now, before) in enumerate(zip(flat, self._previous, strict=False))
                          if now != before), min(len(flat), len(self._previous)))
        self._previous = flat
        positions = _positions(messages)
        marks = {self._last_markable(flat, positions, len(flat)), self._last_markable(flat, positions, unchanged)}
        out = list(messages)
        for position in sorted(p for p in marks if p is not None):
            out[position[0]] = _marked(out[position[0]], position[1])
        return out

    @staticmethod
    def _last_markable(flat: list[tuple[str, dict[str, Any]]], positions: list[Position],
                       end: int) -> Position | None:
        """The position of the last block before `end` that may carry a mark."""
        return next((positions[n] for n in range(end - 1, -1, -1) if _markable(flat[n][1])), None)


def _marked(message: dict[str, Any], index: int) -> dict[str, Any]:
    blocks = _blocks(message)
    if "cache_control" not in blocks[index]:
        blocks[index] = {**blocks[index], "cache_control": dict(MARK)}
    return {**message, "content": blocks}
