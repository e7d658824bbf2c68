"""The conversation as the transcript shows it: display items built from Pi messages.

This is the transcript's source of truth. Widgets are a bounded view over `Conversation.items`, so
older items can be dropped from the screen and rebuilt from here when the user scrolls back. A tool
result is not an item of its own: it belongs to the call it answers, so one card shows both.
Nothing here imports Textual.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from condense.messages import content_text, is_summary, summary_call_ids

ItemKind = Literal["user", "assistant", "summary", "custom", "bash", "compaction", "branch", "note", "result"]


@dataclass
class Call:
    """One tool call and, once it arrived, its result message."""

    id: str
    name: str
    args: dict[str, Any]
    result: Mapping[str, Any] | None = None

    @property
    def is_error(self) -> bool:
        return bool(self.result and self.result.get("isError"))

    @property
    def output(self) -> str:
        return content_text(self.result.get("content") or []) if self.result else ""


@dataclass
class Item:
    kind: ItemKind
    message: Mapping[str, Any]
    calls: dict[str, Call] = field(default_factory=dict)  # assistant items: call id -> call, in order
    level: str = "info"  # note items: info | warning | error


def user_text(message: Mapping[str, Any]) -> str:
    return content_text(message.get("content") or "")


def assistant_calls(message: Mapping[str, Any]) -> dict[str, Call]:
    calls: dict[str, Call] = {}
    for block in message.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "toolCall":
            call_id = str(block.get("id", ""))
            args = block.get("arguments")
            calls[call_id] = Call(call_id, str(block.get("name", "")), args if isinstance(args, dict) else {})
    return calls


def ending_line(message: Mapping[str, Any]) -> tuple[str, str] | None:
    """The line a reply that did not finish ends with, and its kind (aborted, error); None when it did."""
    if message.get("stopReason") == "aborted":
        return "Aborted", "aborted"
    if message.get("stopReason") == "error":
        return f"Error: {message.get('errorMessage') or 'the model failed'}", "error"
    return None


def _custom_item(message: Mapping[str, Any]) -> Item | None:
    if is_summary(message):
        return Item("summary", message)
    return Item("custom", message) if message.get("display") else None


class Conversation:
    """Display items in order, and where each tool call lives so its result can join it."""

    def __init__(self) -> None:
        self.items: list[Item] = []
        self._calls: dict[str, Call] = {}
        self._turns: dict[str, Item] = {}  # call id -> the assistant item holding the call

    @classmethod
    def from_messages(cls, messages: Iterable[Mapping[str, Any]]) -> Conversation:
        conversation = cls()
        for message in messages:
            conversation.add(message)
        return conversation

    def add(self, message: Mapping[str, Any]) -> Item | None:
        """Add a finished (or just started) message; returns the new item, or None when the message
        joined an existing one (a tool result) or is not shown (a hidden custom message)."""
        role = message.get("role")
        if role == "toolResult":
            call = self._calls.get(str(message.get("toolCallId", "")))
            if call is not None:
                call.result = message
                return None
            return self._append(Item("result", message))
        if role == "assistant":
            item = Item("assistant", message, assistant_calls(message))
            self._calls.update(item.calls)
            self._turns.update(dict.fromkeys(item.calls, item))
            return self._append(item)
        if role == "custom":
            custom = _custom_item(message)
            if custom is not None and custom.kind == "summary":
                return self._beside_its_turns(custom)
            return self._append(custom) if custom else None
        kinds: dict[Any, ItemKind] = {"user": "user", "bashExecution": "bash",
                                      "compactionSummary": "compaction", "branchSummary": "branch"}
        kind = kinds.get(role)
        return self._append(Item(kind, message)) if kind else None

    def note(self, text: str, level: str = "info") -> Item:
        """A line from the app itself (command output): shown, never part of the session."""
        return self._append(Item("note", {"role": "note", "text": text}, level=level))

    def _beside_its_turns(self, summary: Item) -> Item:
        """A summary goes right after the last turn whose calls it covers (after any summary already
        there), where a flush writes it at the end: the transcript shows each beside its work. One whose
        calls are not shown goes at the end."""
        turns = {id(turn) for call_id in summary_call_ids(summary.message)
                 if (turn := self._turns.get(call_id)) is not None}
        position = next((i + 1 for i in range(len(self.items) - 1, -1, -1) if id(self.items[i]) in turns), None)
        if position is None:
            return self._append(summary)
        while position < len(self.items) and self.items[position].kind == "summary":
            position += 1
        self.items.insert(position, summary)
        return summary

    def update_assistant(self, item: Item, message: Mapping[str, Any]) -> list[Call]:
        """A newer snapshot of a streaming assistant message; returns calls seen for the first time."""
        item.message = message
        fresh: list[Call] = []
        for call_id, call in assistant_calls(message).items():
            known = item.calls.get(call_id)
            if known is None:
                item.calls[call_id] = call
                self._calls[call_id] = call
                self._turns[call_id] = item
                fresh.append(call)
            elif call.args:
                known.args = call.args
        return fresh

    def call(self, call_id: str) -> Call | None:
        return self._calls.get(call_id)

    def _append(self, item: Item) -> Item:
        self.items.append(item)
        return item
