"""Make a history acceptable to the model about to read it (Pi's `transformMessages`).

A session can mix models and contain turns that never finished. Two passes repair that:

1. Per assistant message, thinking is kept verbatim only for the model that wrote it (its signature
   is meaningless, even harmful, elsewhere); another model gets the thinking as plain text, and
   opaque redacted thinking is dropped. Provider-specific signatures on text and tool calls go too.
2. Ordering: every tool call must be answered before the conversation moves on, so calls left
   unanswered when the next user or assistant message arrives get a synthetic error result.
   Assistant turns that errored or were aborted are not replayed at all. Beyond Pi, tool results
   whose call is not pending (their assistant turn was skipped or pruned, or they are duplicates)
   are dropped, because every provider rejects a result without its call.

Rendering must be byte-stable for prompt caching, so a synthetic result takes the timestamp of the
message that triggered it instead of the current time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from condense.messages import AssistantMessage, Message, ToolCall, ToolResultMessage, tool_calls
from pi_tui.ai.types import ModelSpec

NO_RESULT_TEXT = "No result provided"
SKIPPED_STOP_REASONS = {"error", "aborted"}


def model_api(model: ModelSpec) -> str:
    """The API family a model's replies are stamped with; Anthropic always speaks its own."""
    return "anthropic-messages" if model.provider == "anthropic" else model.api


def is_same_model(message: AssistantMessage, model: ModelSpec) -> bool:
    return (
        message.get("provider") == model.provider
        and message.get("api") == model_api(model)
        and message.get("model") == model.id
    )


def _transform_block(block: Mapping[str, Any], same_model: bool) -> Mapping[str, Any] | None:
    """The block as `model` should see it, None to drop it; the same object when nothing changes."""
    kind = block.get("type")
    if kind == "thinking":
        if block.get("redacted"):
            return block if same_model else None
        if same_model and block.get("thinkingSignature"):
            return block
        if not (block.get("thinking") or "").strip():
            return None
        return block if same_model else {"type": "text", "text": block["thinking"]}
    if same_model:
        return block
    if kind == "text" and "textSignature" in block:
        return {"type": "text", "text": block["text"]}
    if kind == "toolCall" and "thoughtSignature" in block:
        return {k: v for k, v in block.items() if k != "thoughtSignature"}
    return block


def _transform_assistant(message: AssistantMessage, model: ModelSpec) -> AssistantMessage:
    same_model = is_same_model(message, model)
    content: list[Any] = []
    changed = False
    for block in message["content"]:
        new_block = _transform_block(block, same_model)
        changed = changed or new_block is not block
        if new_block is not None:
            content.append(new_block)
    return {**message, "content": content} if changed else message


def _synthetic_result(call: ToolCall, timestamp: int) -> ToolResultMessage:
    return {
        "role": "toolResult",
        "toolCallId": call["id"],
        "toolName": call["name"],
        "content": [{"type": "text", "text": NO_RESULT_TEXT}],
        "isError": True,
        "timestamp": timestamp,
    }


class _Pairing:
    """Pass 2's state: the calls of the last replayed assistant turn that still await a result."""

    def __init__(self) -> None:
        self.pending: dict[str, ToolCall] = {}
        self.out: list[Message] = []
        self.changed = False

    def close_turn(self, timestamp: int) -> None:
        for call in self.pending.values():
            self.out.append(_synthetic_result(call, timestamp))
            self.changed = True
        self.pending = {}

    def add(self, message: Message) -> None:
        if message["role"] == "toolResult":
            if self.pending.pop(message["toolCallId"], None) is None:
                self.changed = True
                return
            self.out.append(message)
            return
        if message["role"] in ("user", "assistant"):
            self.close_turn(message["timestamp"])
        if message["role"] == "assistant":
            if message.get("stopReason") in SKIPPED_STOP_REASONS:
                self.changed = True
                return
            self.pending = {call["id"]: call for call in tool_calls(message)}
        self.out.append(message)


def transform_messages(messages: list[Message], model: ModelSpec) -> list[Message]:
    """The history `model` can be sent. Inputs are never mutated; changed messages are copies, and an
    already valid list comes back as the very same object."""
    first_pass: list[Message] = []
    changed = False
    for message in messages:
        if message["role"] == "assistant":
            new_message = _transform_assistant(message, model)
            changed = changed or new_message is not message
            first_pass.append(new_message)
        else:
            first_pass.append(message)
    pairing = _Pairing()
    for message in first_pass:
        pairing.add(message)
    return pairing.out if changed or pairing.changed else messages
