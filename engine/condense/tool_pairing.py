"""Every tool call answered before the conversation moves on: the rule of Pi's `transformMessages`
that pairs calls and results, shared by pi-tui's provider transform (pi_tui/ai/transform.py) and the
library's facades (condense.facade).

Every provider refuses a request holding a tool call without its result, or a result without its call,
and one such pair in a stored history refuses every later request: a crash between a call and its
result (pi-tui killed, a library agent dying mid-tool) leaves exactly that. So calls left unanswered
when the next message that is not a tool result arrives get a synthetic error result; assistant turns
that errored or were aborted are not replayed at all; and (beyond Pi) a tool result whose call is not
pending (its turn was skipped or pruned, or it is a duplicate) is dropped.

Before the conversion to LLM messages a history also holds custom messages (condense's summaries) and
shell runs; each becomes a user message there, so it closes the open turn as a user message does.
Rendering must be byte-stable for prompt caching, so a synthetic result takes the timestamp of the
message that triggered it instead of the current time.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from condense.messages import AgentMessage, Message, ToolCall, ToolResultMessage, tool_calls

NO_RESULT_TEXT = "No result provided"
SKIPPED_STOP_REASONS = {"error", "aborted"}

M = TypeVar("M", Message, AgentMessage)


def _synthetic_result(call: ToolCall, timestamp: int) -> ToolResultMessage:
    return {
        "role": "toolResult",
        "toolCallId": call["id"],
        "toolName": call["name"],
        "content": [{"type": "text", "text": NO_RESULT_TEXT}],
        "isError": True,
        "timestamp": timestamp,
    }


class _Pairing(Generic[M]):
    """The calls of the last replayed assistant turn that still await a result."""

    def __init__(self) -> None:
        self.pending: dict[str, ToolCall] = {}
        self.out: list[M] = []
        self.changed = False

    def close_turn(self, timestamp: int) -> None:
        for call in self.pending.values():
            self.out.append(_synthetic_result(call, timestamp))
            self.changed = True
        self.pending = {}

    def add(self, message: M) -> None:
        if message["role"] == "toolResult":
            if self.pending.pop(message["toolCallId"], None) is None:
                self.changed = True
                return
            self.out.append(message)
            return
        self.close_turn(message["timestamp"])
        if message["role"] == "assistant":
            if message.get("stopReason") in SKIPPED_STOP_REASONS:
                self.changed = True
                return
            self.pending = {call["id"]: call for call in tool_calls(message)}
        self.out.append(message)


def pair_tool_calls(messages: list[M]) -> list[M]:
    """`messages` with every call answered before the conversation moves on and every result next to
    its call. Inputs are never mutated, and an already valid list comes back as the very same object."""
    pairing: _Pairing[M] = _Pairing()
    for message in messages:
        pairing.add(message)
    return pairing.out if pairing.changed else messages
