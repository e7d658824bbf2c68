"""Make a history acceptable to the model about to read it (Pi's `transformMessages`).

A session can mix models and contain turns that never finished. Two passes repair that:

1. Per assistant message, thinking is kept verbatim only for the model that wrote it (its signature
   is meaningless, even harmful, elsewhere); another model gets the thinking as plain text, and
   opaque redacted thinking is dropped. Provider-specific signatures on text and tool calls go too.
2. Ordering: every tool call must be answered before the conversation moves on (a synthetic error
   result), errored or aborted assistant turns are not replayed, and results without a pending call
   are dropped: condense.tool_pairing, whose rule the library's facades apply too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from condense.messages import AssistantMessage, Message
from condense.tool_pairing import pair_tool_calls
from pi_tui.ai.types import ModelSpec


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
    paired = pair_tool_calls(first_pass)
    return paired if changed or paired is not first_pass else messages
