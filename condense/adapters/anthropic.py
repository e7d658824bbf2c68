"""Anthropic Messages <-> Pi messages.

Anthropic puts every tool result of a turn, and any text after them, into one user message; Pi keeps one
message per tool result. Reading splits such a message in order (results and runs of other blocks each
become their own Pi message); writing joins every run of user-side Pi messages (tool results, user
messages, condense's summaries) into one user message again, which also keeps the roles alternating
as the API requires. Errors (`is_error`), images and signed or redacted thinking map one to one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from condense.adapters.common import (
    Clock,
    MessageError,
    llm_messages,
    pi_assistant,
    pi_image,
    text_blocks,
    tool_names,
    zero_clock,
)

API = "anthropic-messages"

AnthropicMessage = dict[str, Any]


# ----- Anthropic -> Pi -----------------------------------------------------------------------------


def from_anthropic(messages: list[AnthropicMessage], *, known_tools: Mapping[str, str] | None = None,
                   clock: Clock = zero_clock, model: str = "agent") -> list[dict[str, Any]]:
    """Pi messages for `messages`. `known_tools` names the tools of calls made in earlier messages;
    `clock` stamps each message. Raises MessageError for blocks Pi cannot hold (documents, images by URL,
    server tools)."""
    names = dict(known_tools or {})
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "assistant":
            converted = pi_assistant(_assistant_blocks(message.get("content")), API, model, clock())
            names.update(tool_names([converted]))
            out.append(converted)
        elif role == "user":
            out += _user_to_pi(message.get("content"), names, clock)
        else:
            raise MessageError(f"condense: message {index} has role {role!r}; expected user or assistant "
                               "(pass the system prompt to the API yourself)")
    return out


def _image_to_pi(block: dict[str, Any]) -> dict[str, Any]:
    source = block.get("source") or {}
    if source.get("type") != "base64":
        raise MessageError(f"condense: an image with a {source.get('type')!r} source has no Pi equivalent; "
                           "pass it as base64 data")
    return pi_image(source["media_type"], source["data"])


def _content_block_to_pi(block: dict[str, Any]) -> dict[str, Any]:
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block["text"]}
    if kind == "image":
        return _image_to_pi(block)
    raise MessageError(f"condense: a {kind!r} block has no Pi equivalent; send text, images or tool results")


def _result_to_pi(block: dict[str, Any], names: Mapping[str, str], timestamp: int) -> dict[str, Any]:
    content = block.get("content")
    blocks = text_blocks([content]) if isinstance(content, str) else [_content_block_to_pi(b) for b in content or []]
    call_id = block["tool_use_id"]
    return {"role": "toolResult", "toolCallId": call_id, "toolName": names.get(call_id, ""), "content": blocks,
            "isError": bool(block.get("is_error")), "timestamp": timestamp}


def _user_to_pi(content: Any, names: Mapping[str, str], clock: Clock) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"role": "user", "content": content, "timestamp": clock()}]
    out: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []
    for block in content or []:
        if block.get("type") != "tool_result":
            run.append(_content_block_to_pi(block))
            continue
        if run:
            out.append({"role": "user", "content": run, "timestamp": clock()})
            run = []
        out.append(_result_to_pi(block, names, clock()))
    if run or not out:
        out.append({"role": "user", "content": run, "timestamp": clock()})
    return out


def _assistant_blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return text_blocks([content])
    blocks: list[dict[str, Any]] = []
    for block in content or []:
        kind = block.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": block["text"]})
        elif kind == "thinking":
            blocks.append({"type": "thinking", "thinking": block.get("thinking", ""),
                           "thinkingSignature": block.get("signature", "")})
        elif kind == "redacted_thinking":
            blocks.append({"type": "thinking", "thinking": "", "thinkingSignature": block.get("data", ""),
                           "redacted": True})
        elif kind == "tool_use":
            blocks.append({"type": "toolCall", "id": block["id"], "name": block["name"],
                           "arguments": block.get("input") or {}})
        else:
            raise MessageError(f"condense: an assistant {kind!r} block has no Pi equivalent")
    return blocks


# ----- Pi -> Anthropic -----------------------------------------------------------------------------


def to_anthropic(messages: list[dict[str, Any]]) -> list[AnthropicMessage]:
    """The Anthropic messages a model reads for Pi `messages` (condense's summaries become user text)."""
    out: list[AnthropicMessage] = []
    for message in llm_messages(messages):
        if message["role"] == "assistant":
            blocks = _assistant_from_pi(message)
            if blocks:
                out.append({"role": "assistant", "content": blocks})
            continue
        content = _user_side_from_pi(message)
        if out and out[-1]["role"] == "user":
            out[-1]["content"] = [*_as_blocks(out[-1]["content"]), *_as_blocks(content)]
        else:
            out.append({"role": "user", "content": content})
    return out


def _image_from_pi(block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}}


def _content_from_pi(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": b["text"]} if b["type"] == "text" else _image_from_pi(b)
            for b in blocks if b.get("type") in ("text", "image")]


def _user_side_from_pi(message: dict[str, Any]) -> str | list[dict[str, Any]]:
    """A tool result or user message as Anthropic user content (text stays a plain string)."""
    if message["role"] == "toolResult":
        return [_result_from_pi(message)]
    content = message["content"]
    return content if isinstance(content, str) else _content_from_pi(content)


def _as_blocks(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _result_from_pi(message: dict[str, Any]) -> dict[str, Any]:
    blocks = message.get("content") or []
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message["toolCallId"]}
    if len(blocks) == 1 and blocks[0].get("type") == "text":
        block["content"] = blocks[0]["text"]
    elif blocks:
        block["content"] = _content_from_pi(blocks)
    if message.get("isError"):
        block["is_error"] = True
    return block


def _assistant_from_pi(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Unsigned thinking is dropped: Anthropic refuses thinking it did not sign."""
    out: list[dict[str, Any]] = []
    for block in message.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            out.append({"type": "text", "text": block["text"]})
        elif kind == "thinking" and block.get("thinkingSignature"):
            out.append({"type": "redacted_thinking", "data": block["thinkingSignature"]} if block.get("redacted")
                       else {"type": "thinking", "thinking": block.get("thinking", ""),
                             "signature": block["thinkingSignature"]})
        elif kind == "toolCall":
            out.append({"type": "tool_use", "id": block["id"], "name": block["name"], "input": block["arguments"]})
    return out
