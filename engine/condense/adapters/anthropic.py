"""Anthropic Messages <-> Pi messages.

Anthropic puts every tool result of a turn, and any text after them, into one user message; Pi keeps one
message per tool result. Reading splits such a message in order (results and runs of other blocks each
become their own Pi message); writing joins every run of user-side Pi messages (tool results, user
messages, condense's summaries) into one user message again, which also keeps the roles alternating
as the API requires. Errors (`is_error`), images and signed or redacted thinking map one to one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from condense.adapters.checks import at, flag, identifier, items, json_object, kind, mapping, refuse, shown, text
from condense.adapters.common import (
    Clock,
    llm_messages,
    pi_assistant,
    pi_image,
    text_blocks,
    tool_names,
    zero_clock,
)
from condense.adapters.plain import MessageLike, plain
from condense.errors import MessageError

API = "anthropic-messages"
PI_CACHE_CONTROL = "cacheControl"  # where a Pi block (or tool result) keeps an Anthropic cache breakpoint

AnthropicMessage = dict[str, Any]


# ----- Anthropic -> Pi -----------------------------------------------------------------------------


def from_anthropic(messages: Iterable[MessageLike], *, known_tools: Mapping[str, str] | None = None,
                   clock: Clock = zero_clock, model: str = "agent") -> list[dict[str, Any]]:
    """Pi messages for `messages` (dicts, TypedDicts or the anthropic SDK's `Message` and blocks).
    `known_tools` names the tools of calls made in earlier messages; `clock` stamps each message. A
    block's `cache_control` is kept for the way back. Raises MessageError, one line naming the message
    and the field, for a malformed message and for blocks Pi cannot hold (documents, images by URL,
    server tools)."""
    names = dict(known_tools or {})
    out: list[dict[str, Any]] = []
    for index, raw in enumerate(messages):
        where = f"message {index}"
        message = mapping(plain(raw), where)
        role = message.get("role")
        if role == "assistant":
            blocks = _assistant_blocks(message.get("content"), at(where, "content"))
            converted = pi_assistant(blocks, API, model, clock())
            names.update(tool_names([converted]))
            out.append(converted)
        elif role == "user":
            out += _user_to_pi(message.get("content"), at(where, "content"), names, clock)
        else:
            raise MessageError(f"condense: {where} has role {shown(role)}; expected user or assistant "
                               "(pass the system prompt to the API yourself)")
    return out


def _cache_to_pi(block: dict[str, Any], where: str, converted: dict[str, Any]) -> dict[str, Any]:
    """`converted` with the block's cache breakpoint, if it has one."""
    marker = block.get("cache_control")
    if marker is None:
        return converted
    return {**converted, PI_CACHE_CONTROL: json_object(marker, at(where, "cache_control"))}


def _image_to_pi(block: dict[str, Any], where: str) -> dict[str, Any]:
    spot = at(where, "source")
    source = mapping(block.get("source"), spot)
    if source.get("type") != "base64":
        raise MessageError(f"condense: {spot}: an image with a {shown(source.get('type'))} source has no Pi "
                           "equivalent; pass it as base64 data")
    return pi_image(text(source.get("media_type"), at(spot, "media_type")), text(source.get("data"), at(spot, "data")))


def _content_block_to_pi(block: dict[str, Any], where: str) -> dict[str, Any]:
    block_type = kind(block, where)
    if block_type == "text":
        converted = {"type": "text", "text": text(block.get("text"), at(where, "text"))}
    elif block_type == "image":
        converted = _image_to_pi(block, where)
    else:
        raise MessageError(f"condense: {where}: a {block_type!r} block has no Pi equivalent; send text, images or "
                           "tool results")
    return _cache_to_pi(block, where, converted)


def _result_to_pi(block: dict[str, Any], where: str, names: Mapping[str, str], timestamp: int) -> dict[str, Any]:
    content = block.get("content")
    spot = at(where, "content")
    if isinstance(content, str):
        blocks = text_blocks([content])
    else:
        blocks = [_content_block_to_pi(mapping(b, at(spot, i)), at(spot, i))
                  for i, b in enumerate(items(content, spot, optional=True))]
    call_id = identifier(block.get("tool_use_id"), at(where, "tool_use_id"))
    result = {"role": "toolResult", "toolCallId": call_id, "toolName": names.get(call_id, ""), "content": blocks,
              "isError": flag(block.get("is_error"), at(where, "is_error")), "timestamp": timestamp}
    return _cache_to_pi(block, where, result)


def _user_to_pi(content: Any, where: str, names: Mapping[str, str], clock: Clock) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"role": "user", "content": content, "timestamp": clock()}]
    if content is not None and not isinstance(content, list):
        refuse(where, "a string or a list of blocks", content)
    out: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []
    for index, value in enumerate(content or []):
        spot = at(where, index)
        block = mapping(value, spot)
        if kind(block, spot) != "tool_result":
            run.append(_content_block_to_pi(block, spot))
            continue
        if run:
            out.append({"role": "user", "content": run, "timestamp": clock()})
            run = []
        out.append(_result_to_pi(block, spot, names, clock()))
    if run or not out:
        out.append({"role": "user", "content": run, "timestamp": clock()})
    return out


def _assistant_block(block: dict[str, Any], where: str) -> dict[str, Any]:
    block_type = kind(block, where)
    if block_type == "text":
        return {"type": "text", "text": text(block.get("text"), at(where, "text"))}
    if block_type == "thinking":
        return {"type": "thinking", "thinking": text(block.get("thinking", ""), at(where, "thinking")),
                "thinkingSignature": text(block.get("signature", ""), at(where, "signature"))}
    if block_type == "redacted_thinking":
        return {"type": "thinking", "thinking": "", "thinkingSignature": text(block.get("data", ""), at(where, "data")),
                "redacted": True}
    if block_type == "tool_use":
        arguments = block.get("input")
        return {"type": "toolCall", "id": identifier(block.get("id"), at(where, "id")),
                "name": identifier(block.get("name"), at(where, "name")),
                "arguments": {} if arguments is None else json_object(arguments, at(where, "input"))}
    raise MessageError(f"condense: {where}: an assistant {block_type!r} block has no Pi equivalent")


def _assistant_blocks(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return text_blocks([content])
    if content is not None and not isinstance(content, list):
        refuse(where, "a string or a list of blocks", content)
    blocks = []
    for index, value in enumerate(content or []):
        spot = at(where, index)
        block = mapping(value, spot)
        blocks.append(_cache_to_pi(block, spot, _assistant_block(block, spot)))
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


def _cache_from_pi(source: Mapping[str, Any], block: dict[str, Any]) -> dict[str, Any]:
    """`block` with the cache breakpoint its Pi `source` kept, if any."""
    marker = source.get(PI_CACHE_CONTROL)
    return block if marker is None else {**block, "cache_control": marker}


def _image_from_pi(block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}}


def _content_from_pi(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_cache_from_pi(b, {"type": "text", "text": b["text"]} if b["type"] == "text" else _image_from_pi(b))
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
    return _cache_from_pi(message, block)


def _assistant_from_pi(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Unsigned thinking is dropped: Anthropic refuses thinking it did not sign."""
    out: list[dict[str, Any]] = []
    for block in message.get("content") or []:
        block_type = block.get("type")
        if block_type == "text":
            converted = {"type": "text", "text": block["text"]}
        elif block_type == "thinking" and block.get("thinkingSignature"):
            converted = ({"type": "redacted_thinking", "data": block["thinkingSignature"]} if block.get("redacted")
                         else {"type": "thinking", "thinking": block.get("thinking", ""),
                               "signature": block["thinkingSignature"]})
        elif block_type == "toolCall":
            converted = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": block["arguments"]}
        else:
            continue
        out.append(_cache_from_pi(block, converted))
    return out
