"""Pi messages -> the OpenAI chat format litellm takes for every provider.

litellm translates OpenAI-shaped messages for each provider, so this is the one wire shape we build.
Two things are not plain OpenAI: Anthropic's signed thinking goes back as `thinking_blocks` (Anthropic
refuses to continue tool use after thinking without it), and Anthropic prompt caching gets exactly two
breakpoints, the system prompt and the newest user-side message, so every request re-reads the cached
prefix and caches one more turn. Output is deterministic: same input, byte-identical request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from condense.adapters.openai import image_part, user_content
from condense.messages import AssistantMessage, Message, ToolResultMessage, UserMessage
from pi_tui.ai.tool_arguments import request_arguments
from pi_tui.ai.types import ModelSpec, ToolSpec

EPHEMERAL = {"type": "ephemeral"}
TOOL_IMAGES_TEXT = "Images returned by the tool call(s) above:"
TOOL_IMAGE_PLACEHOLDER = "(see the attached image)"

OpenAIMessage = dict[str, Any]


def uses_prompt_caching(model: ModelSpec) -> bool:
    return model.provider == "anthropic"


def to_openai_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in tools
    ]


def _user(message: UserMessage) -> OpenAIMessage | None:
    """None for blocks with nothing OpenAI can carry: providers refuse an empty user message."""
    content = user_content(message["content"])
    return {"role": "user", "content": content} if isinstance(content, str) or content else None


def _thinking_block(block: Mapping[str, Any]) -> dict[str, Any] | None:
    """Signed thinking in litellm's shape; unsigned thinking has nothing a provider could verify."""
    signature = block.get("thinkingSignature")
    if not signature:
        return None
    if block.get("redacted"):
        return {"type": "redacted_thinking", "data": signature}
    return {"type": "thinking", "thinking": block.get("thinking", ""), "signature": signature}


def _tool_call(block: Mapping[str, Any], model: ModelSpec) -> dict[str, Any]:
    function = {"name": block["name"], "arguments": request_arguments(block, model)}
    return {"id": block["id"], "type": "function", "function": function}


def _assistant(message: AssistantMessage, model: ModelSpec) -> OpenAIMessage | None:
    """Thinking must already be filtered for the target model (see transform.py)."""
    blocks: Sequence[Mapping[str, Any]] = message["content"]
    text = "".join(b["text"] for b in blocks if b.get("type") == "text" and b["text"].strip())
    calls = [_tool_call(b, model) for b in blocks if b.get("type") == "toolCall"]
    thinking = [t for b in blocks if b.get("type") == "thinking" and (t := _thinking_block(b))]
    if not text and not calls:
        return None
    out: OpenAIMessage = {"role": "assistant", "content": text or None}
    if calls:
        out["tool_calls"] = calls
    if thinking:
        out["thinking_blocks"] = thinking
    return out


def _tool_result(message: ToolResultMessage) -> tuple[OpenAIMessage, list[dict[str, Any]]]:
    """The `tool` message and the images it returned (a tool message can only carry text)."""
    blocks: Sequence[Mapping[str, Any]] = message["content"]
    text = "\n".join(b["text"] for b in blocks if b.get("type") == "text")
    images = [image_part(b) for b in blocks if b.get("type") == "image"]
    content = text or (TOOL_IMAGE_PLACEHOLDER if images else "")
    return {"role": "tool", "tool_call_id": message["toolCallId"], "content": content}, images


def _images_message(images: list[dict[str, Any]]) -> OpenAIMessage:
    return {"role": "user", "content": [{"type": "text", "text": TOOL_IMAGES_TEXT}, *images]}


def _system(system_prompt: str, cache: bool) -> OpenAIMessage:
    if cache:
        block = {"type": "text", "text": system_prompt, "cache_control": EPHEMERAL}
        return {"role": "system", "content": [block]}
    return {"role": "system", "content": system_prompt}


def _mark_cache_breakpoint(messages: list[OpenAIMessage]) -> None:
    """Put the breakpoint on the last block of the newest message Anthropic counts as the user's
    (a user message or a tool result): everything before it becomes the cached prefix."""
    for message in reversed(messages):
        if message["role"] not in ("user", "tool"):
            continue
        content = message["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        if parts:
            parts[-1] = {**parts[-1], "cache_control": EPHEMERAL}
            message["content"] = parts
        return


def to_openai_messages(system_prompt: str, messages: list[Message], model: ModelSpec) -> list[OpenAIMessage]:
    """The request's `messages`: system first, then the (already transformed) history."""
    out: list[OpenAIMessage] = [_system(system_prompt, uses_prompt_caching(model))] if system_prompt else []
    pending_images: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] != "toolResult" and pending_images:
            out.append(_images_message(pending_images))
            pending_images = []
        if message["role"] == "toolResult":
            tool_message, images = _tool_result(message)
            out.append(tool_message)
            pending_images += images
            continue
        converted = (_user(message) if message["role"] == "user"
                     else _assistant(message, model) if message["role"] == "assistant" else None)
        if converted is not None:
            out.append(converted)
    if pending_images:
        out.append(_images_message(pending_images))
    if uses_prompt_caching(model):
        _mark_cache_breakpoint(out)
    return out
