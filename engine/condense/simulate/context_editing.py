"""Anthropic's server-side context editing, applied to the request the provider receives.

The client sends its full history every time; the server edits each request on its own, before the
model reads it (it keeps no state between requests). Two edits, applied in this order:

- `clear_thinking_20251015`: thinking blocks are kept only in the newest `keep` thinking turns (a turn
  is everything the assistant did since the last user message; default 1).
- `clear_tool_uses_20250919`: once the request is over `trigger` input tokens (default 100,000), every
  tool use but the newest `keep` (default 3) has its result replaced by a placeholder, oldest first;
  with `clear_tool_inputs` the call's arguments go too; tools in `exclude_tools` are never cleared.
  `clear_at_least`: when the clearing would free fewer tokens than this, the edit is not applied.

Two readings of when the clearing point moves, both simulated:

- per request (`sticky=False`, the rows without a suffix): each request is edited afresh from its own
  content, as a stateless API would; once the trigger is passed the clearing point moves forward with
  every new tool use, and under Anthropic's cache rule each such request re-writes the prompt from the
  newly cleared result on.
- sticky (`sticky=True`, the `-sticky` rows): the documentation says later requests reuse the cached
  prefix of the edited prompt, which needs a cut that stays where it is; here the cleared tool uses stay
  exactly those until the edited prompt crosses the trigger again, when all but the newest `keep` are
  cleared once more.

Cleared copies are made once per message and pinned, so the meter sees the same object for the same
edit on every request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from condense.simulate.prompt import Meter

CLEARED_RESULT = "[Tool result cleared]"  # Anthropic does not publish its placeholder; a short one

Message = dict[str, Any]


@dataclass(frozen=True)
class ClearToolUses:
    trigger: int = 100_000
    keep: int = 3
    clear_at_least: int = 0
    clear_tool_inputs: bool = False
    exclude_tools: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class _ToolUse:
    call: int  # position of the assistant message
    call_id: str
    name: str
    result: int | None  # position of its result, if any


def _tool_uses(messages: Sequence[Message]) -> list[_ToolUse]:
    results = {m.get("toolCallId"): i for i, m in enumerate(messages) if m.get("role") == "toolResult"}
    return [_ToolUse(i, str(block.get("id")), str(block.get("name")), results.get(block.get("id")))
            for i, m in enumerate(messages) if m.get("role") == "assistant"
            for block in m.get("content") or [] if isinstance(block, dict) and block.get("type") == "toolCall"]


def _has_thinking(message: Message) -> bool:
    return any(isinstance(b, dict) and b.get("type") == "thinking" for b in message.get("content") or [])


class ContextEditing:
    def __init__(self, meter: Meter, clear: ClearToolUses, thinking_keep: int = 1, sticky: bool = False) -> None:
        """`thinking_keep` >= 1: the newest thinking turns whose thinking stays; `sticky`: the second
        reading above (a cut kept until the edited prompt crosses the trigger again)."""
        self.meter = meter
        self.clear = clear
        self.thinking_keep = thinking_keep
        self.sticky = sticky
        self._cut = 0  # sticky: how many of the oldest clearable tool uses stay cleared
        self._copies: dict[tuple[int, str], tuple[Message, Message]] = {}  # pins the original

    def _copy(self, message: Message, key: str, make: Any) -> Message:
        pinned = self._copies.get((id(message), key))
        if pinned is None:
            pinned = (message, make(message))
            self._copies[(id(message), key)] = pinned
        return pinned[1]

    def apply(self, messages: list[Message]) -> list[Message]:
        """The request as the model reads it; the same list when no edit applies."""
        return self.clear_tool_uses(self.clear_thinking(messages))

    def clear_thinking(self, messages: list[Message]) -> list[Message]:
        starts = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        if len(starts) < self.thinking_keep:
            return messages
        kept_from = starts[-self.thinking_keep]
        older = [i for i in range(kept_from) if messages[i].get("role") == "assistant" and _has_thinking(messages[i])]
        if not older:
            return messages
        out = list(messages)
        for i in older:
            out[i] = self._copy(messages[i], "thinking", _without_thinking)
        return out

    def clear_tool_uses(self, messages: list[Message]) -> list[Message]:
        if not self.sticky:
            return self._cleared(messages, None) if self.meter.tokens(messages) > self.clear.trigger else messages
        kept = self._cleared(messages, self._cut) if self._cut else messages
        if self.meter.tokens(kept) <= self.clear.trigger:
            return kept
        uses = len(_tool_uses(messages))
        moved = self._cleared(messages, None)
        if moved is not messages and moved is not kept:
            self._cut = max(0, uses - self.clear.keep)
            return moved
        return kept

    def _cleared(self, messages: list[Message], cut: int | None) -> list[Message]:
        """`messages` with the oldest `cut` tool uses cleared (None: all but the newest `keep`); the same
        list when there is nothing to clear or it would free less than `clear_at_least`."""
        rule = self.clear
        uses = _tool_uses(messages)
        end = max(0, len(uses) - rule.keep) if cut is None else min(cut, len(uses))
        cleared = [u for u in uses[:end] if u.name not in rule.exclude_tools]
        if not cleared:
            return messages
        out = list(messages)
        for use in cleared:
            if use.result is not None:
                out[use.result] = self._copy(messages[use.result], "result", _cleared_result)
        if rule.clear_tool_inputs:
            by_call: dict[int, set[str]] = {}
            for use in cleared:
                by_call.setdefault(use.call, set()).add(use.call_id)
            for position, ids in by_call.items():
                key = "inputs:" + ",".join(sorted(ids))
                out[position] = self._copy(messages[position], key, lambda m, ids=ids: _without_inputs(m, ids))
        freed = self.meter.tokens(messages) - self.meter.tokens(out)
        return out if freed >= rule.clear_at_least else messages


def _without_thinking(message: Message) -> Message:
    return {**message, "content": [b for b in message["content"]
                                   if not (isinstance(b, dict) and b.get("type") == "thinking")]}


def _cleared_result(message: Message) -> Message:
    return {**message, "content": [{"type": "text", "text": CLEARED_RESULT}]}


def _without_inputs(message: Message, ids: set[str]) -> Message:
    return {**message, "content": [{**b, "arguments": {}} if isinstance(b, dict) and b.get("type") == "toolCall"
                                   and b.get("id") in ids else b for b in message["content"]]}
