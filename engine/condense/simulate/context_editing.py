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
edit on every request. Applied request after request to a growing history, the edits follow it: what
they know of it (its turns, tool uses and results), the edited lists and their token sums are kept, so a
request costs what it added, not the session's length; a history that changed other than by growing,
or a result that arrived for a tool use already cleared, is edited again from scratch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from condense.simulate.prompt import Meter

CLEARED_RESULT = "[Tool result cleared]"  # Anthropic does not publish its placeholder; a short one

Message = dict[str, Any]
Copier = Callable[[Message, str, Callable[[Message], Message]], Message]


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
    id: Any  # as the call names it: its result is the newest tool result naming the same
    name: str


def _has_thinking(message: Message) -> bool:
    return any(isinstance(b, dict) and b.get("type") == "thinking" for b in message.get("content") or [])


class _History:
    """What the edits read of the history: where its user messages, thinking turns, tool uses and
    results are, gathered as it grows."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.users: list[int] = []
        self.thinking: list[int] = []  # assistant messages with thinking
        self.uses: list[_ToolUse] = []
        self.results: dict[Any, int] = {}  # a call's id: the position of the newest result naming it
        self._first_use: dict[Any, int] = {}  # a call's id: the first use naming it, in `uses`

    def grow(self, messages: Sequence[Message], cleared: int) -> bool:
        """Takes in the messages past those it holds; False when a result names one of the first
        `cleared` uses (already cleared without it)."""
        for position in range(len(self.messages), len(messages)):
            message = messages[position]
            role = message.get("role")
            if role == "user":
                self.users.append(position)
            elif role == "assistant":
                self._take_assistant(message, position)
            elif role == "toolResult":
                call_id = message.get("toolCallId")
                if self._first_use.get(call_id, cleared) < cleared:
                    return False
                self.results[call_id] = position
        self.messages += messages[len(self.messages):]
        return True

    def _take_assistant(self, message: Message, position: int) -> None:
        if _has_thinking(message):
            self.thinking.append(position)
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                self._first_use.setdefault(block.get("id"), len(self.uses))
                self.uses.append(_ToolUse(position, block.get("id"), str(block.get("name"))))


class _Tallied:
    """A list of messages and the running sum of their tokens, kept while it grows and some of its
    messages are replaced: the sum is redone from the first replaced position only, adding in the order
    `Meter.tokens` adds (so the float is the same)."""

    def __init__(self) -> None:
        self.items: list[Message] = []
        self._sums = [0.0]  # tokens of items[:n], for n up to `_summed`
        self._summed = 0

    def put(self, position: int, message: Message) -> None:
        self.items[position] = message
        self._summed = min(self._summed, position)

    def tokens(self, meter: Meter) -> float:
        """What `meter.tokens(self.items)` gives."""
        del self._sums[self._summed + 1:]
        self._sums += list(accumulate((meter.segment(m).tokens for m in self.items[self._summed:]),
                                      initial=self._sums[-1]))[1:]
        self._summed = len(self.items)
        return meter.system.tokens + self._sums[-1]


class _Clearing:
    """The history with its thinking cleared and the oldest `end` tool uses cleared as the rule says;
    `end` only moves forward."""

    def __init__(self, rule: ClearToolUses, copy: Copier) -> None:
        self.rule = rule
        self.copy = copy
        self.edited = _Tallied()
        self.end = 0
        self.cleared = 0  # the uses among the first `end` that the rule may clear
        self._inputs: dict[int, set[str]] = {}  # call position: the ids whose arguments are cleared

    def follow(self, thinned: list[Message], changed: list[int]) -> None:
        """Takes in what the thinking edit added and `changed` since the last request."""
        self.edited.items += thinned[len(self.edited.items):]
        for position in changed:
            self.edited.put(position, self._call(thinned, position) if position in self._inputs else thinned[position])

    def reach(self, end: int, history: _History, thinned: list[Message]) -> None:
        calls: set[int] = set()
        for use in history.uses[self.end:end]:
            if use.name in self.rule.exclude_tools:
                continue
            self.cleared += 1
            result = history.results.get(use.id)
            if result is not None:
                self.edited.put(result, self.copy(thinned[result], "result", _cleared_result))
            if self.rule.clear_tool_inputs:
                self._inputs.setdefault(use.call, set()).add(str(use.id))
                calls.add(use.call)
        for position in calls:
            self.edited.put(position, self._call(thinned, position))
        self.end = max(self.end, end)

    def _call(self, thinned: list[Message], position: int) -> Message:
        ids = self._inputs[position]
        return self.copy(thinned[position], "inputs:" + ",".join(sorted(ids)), lambda m: _without_inputs(m, ids))

    def applies(self, thinned_tokens: float, meter: Meter) -> bool:
        """Whether the edit is made: it clears some use and frees at least `clear_at_least`."""
        return self.cleared > 0 and thinned_tokens - self.edited.tokens(meter) >= self.rule.clear_at_least


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
        self._start_over()

    def _start_over(self) -> None:
        self._history = _History()
        self._thinned = _Tallied()  # the history with the thinking edit made
        self._thinned_count = 0  # of `_history.thinking`, those cleared
        self._all_but_newest = _Clearing(self.clear, self._copy)
        self._at_cut = _Clearing(self.clear, self._copy)

    def _copy(self, message: Message, key: str, make: Callable[[Message], Message]) -> Message:
        pinned = self._copies.get((id(message), key))
        if pinned is None:
            pinned = (message, make(message))
            self._copies[(id(message), key)] = pinned
        return pinned[1]

    def apply(self, messages: list[Message]) -> list[Message]:
        """The request as the model reads it; the same list when no edit applies."""
        self._follow(messages)
        changed = self._clear_thinking()
        thinned = list(self._thinned.items) if self._thinned_count else messages
        uses = len(self._history.uses)
        ends = ((self._all_but_newest, max(0, uses - self.clear.keep)), (self._at_cut, min(self._cut, uses)))
        for clearing, end in ends:
            clearing.follow(self._thinned.items, changed)
            clearing.reach(end, self._history, self._thinned.items)
        return self._sticky_edit(thinned) if self.sticky else self._edit(thinned)

    def _follow(self, messages: list[Message]) -> None:
        history = self._history
        grown = len(messages) >= len(history.messages) and messages[:len(history.messages)] == history.messages
        cleared = max(self._all_but_newest.end, self._at_cut.end)
        if not grown or not history.grow(messages, cleared):
            self._start_over()
            self._history.grow(messages, 0)
        self._thinned.items += messages[len(self._thinned.items):]

    def _clear_thinking(self) -> list[int]:
        """Clears the thinking of turns that fell out of the newest `thinking_keep`; the positions changed."""
        users, thinking = self._history.users, self._history.thinking
        if len(users) < self.thinking_keep:
            return []
        kept_from, changed = users[-self.thinking_keep], []
        while self._thinned_count < len(thinking) and thinking[self._thinned_count] < kept_from:
            position = thinking[self._thinned_count]
            self._thinned.put(position, self._copy(self._history.messages[position], "thinking", _without_thinking))
            changed.append(position)
            self._thinned_count += 1
        return changed

    def _edit(self, thinned: list[Message]) -> list[Message]:
        """Per request: all but the newest `keep` uses cleared while the request is over the trigger."""
        tokens = self._thinned.tokens(self.meter)
        edit = self._all_but_newest
        return list(edit.edited.items) if tokens > self.clear.trigger and edit.applies(tokens, self.meter) \
            else thinned

    def _sticky_edit(self, thinned: list[Message]) -> list[Message]:
        """Sticky: the uses up to the cut stay cleared until that request is over the trigger, when the
        cut moves to all but the newest `keep`."""
        tokens = self._thinned.tokens(self.meter)
        at_cut = self._cut > 0 and self._at_cut.applies(tokens, self.meter)
        if (self._at_cut.edited.tokens(self.meter) if at_cut else tokens) <= self.clear.trigger:
            return list(self._at_cut.edited.items) if at_cut else thinned
        if self._all_but_newest.applies(tokens, self.meter):
            self._cut = max(0, len(self._history.uses) - self.clear.keep)
            return list(self._all_but_newest.edited.items)
        return list(self._at_cut.edited.items) if at_cut else thinned


def _without_thinking(message: Message) -> Message:
    return {**message, "content": [b for b in message["content"]
                                   if not (isinstance(b, dict) and b.get("type") == "thinking")]}


def _cleared_result(message: Message) -> Message:
    return {**message, "content": [{"type": "text", "text": CLEARED_RESULT}]}


def _without_inputs(message: Message, ids: set[str]) -> Message:
    return {**message, "content": [{**b, "arguments": {}} if isinstance(b, dict) and b.get("type") == "toolCall"
                                   and b.get("id") in ids else b for b in message["content"]]}
