"""OpenAI chat-completions messages <-> Pi messages.

This is the shape litellm and most Python agents keep their history in. The two directions are
inverses for what both shapes can say (text, tool calls and their arguments, tool results, images,
signed thinking in litellm's `thinking_blocks`), so an agent's messages that were not pruned come back
as it sent them. A tool message cannot carry images, so images a Pi tool result holds travel in one user
message right after the tool messages, each group introduced by a line naming its call: reading that
message back puts every image into its own result again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from condense.adapters.checks import at, flag, identifier, items, json_object, kind, mapping, refuse, shown, text
from condense.adapters.common import (
    Clock,
    data_url,
    image_from_data_url,
    llm_messages,
    pi_assistant,
    text_blocks,
    tool_names,
    zero_clock,
)
from condense.adapters.plain import MessageLike, plain
from condense.errors import MessageError

API = "openai-completions"
IMAGE_PLACEHOLDER = "(see the attached image)"
IMAGES_INTRO = "Images returned by tool call {id}:"
_IMAGES_INTRO = re.compile(r"Images returned by tool call (?P<id>\S+):")

OpenAIMessage = dict[str, Any]


# ----- OpenAI -> Pi --------------------------------------------------------------------------------


def from_openai(messages: Iterable[MessageLike], *, known_tools: Mapping[str, str] | None = None,
                clock: Clock = zero_clock, model: str = "agent") -> list[dict[str, Any]]:
    """Pi messages for `messages` (dicts, TypedDicts or the openai SDK's objects). `known_tools` names the
    tools of calls made in earlier messages (a tool message carries only its call's id); `clock` stamps
    each message. Raises MessageError, one line naming the message and the field, for a malformed message
    and for what Pi cannot hold (a system message, an image by URL, audio or file parts)."""
    names = dict(known_tools or {})
    out: list[dict[str, Any]] = []
    for index, raw in enumerate(messages):
        where = f"message {index}"
        message = mapping(plain(raw), where)
        role = message.get("role")
        if role == "assistant":
            converted = _assistant_to_pi(message, where, clock(), model)
            names.update(tool_names([converted]))
        elif role == "tool":
            converted = _tool_to_pi(message, where, names, clock())
        elif role == "user":
            content = _user_content_to_pi(message.get("content"), at(where, "content"))
            if _fold_images(content, out):
                continue
            converted = {"role": "user", "content": content, "timestamp": clock()}
        elif role in ("system", "developer"):
            raise MessageError(f"condense: {where} is a {role} message; keep the system prompt out of "
                               "the history and put it first in each request yourself")
        else:
            raise MessageError(f"condense: {where} has role {shown(role)}; expected user, assistant or tool")
        out.append(converted)
    return out


def _user_content_to_pi(content: Any, where: str) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        refuse(where, "a string or a list of parts", content)
    return [_part_to_pi(part, at(where, i)) for i, part in enumerate(content)]


def _part_to_pi(value: Any, where: str) -> dict[str, Any]:
    part = mapping(value, where)
    part_type = kind(part, where)
    if part_type == "text":
        return {"type": "text", "text": text(part.get("text"), at(where, "text"))}
    if part_type == "image_url":
        return _image_to_pi(part.get("image_url"), at(where, "image_url"))
    raise MessageError(f"condense: {where}: a {part_type!r} content part has no Pi equivalent; send text or images")


def _image_to_pi(value: Any, where: str) -> dict[str, Any]:
    """An image (a data: URL) with the `detail` the agent asked for, kept for the way back."""
    if isinstance(value, str):
        return image_from_data_url(value, where)
    image = mapping(value, where)
    block = image_from_data_url(text(image.get("url"), at(where, "url")), at(where, "url"))
    if image.get("detail") is not None:
        block["detail"] = text(image["detail"], at(where, "detail"))
    return block


def _texts(content: Any, where: str) -> list[str]:
    """The text parts of assistant or tool content (a string, None, or a list of parts)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        refuse(where, "a string, a list of text parts or null", content)
    out = []
    for index, value in enumerate(content):
        spot = at(where, index)
        part = mapping(value, spot)
        part_type = kind(part, spot)
        if part_type not in ("text", "refusal"):
            raise MessageError(f"condense: {spot}: a {part_type!r} part has no Pi equivalent here; send text")
        out.append(text(part.get(part_type), at(spot, part_type)))
    return out


def _arguments_to_pi(raw: Any) -> dict[str, Any]:
    """Pi holds arguments parsed; text that is not a JSON object is kept whole so it can go back as sent."""
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        parsed = None
    return parsed if isinstance(parsed, dict) else {}


def _call_to_pi(value: Any, where: str) -> dict[str, Any]:
    call = mapping(value, where)
    call_type = call.get("type", "function")
    if call_type != "function":
        raise MessageError(f"condense: {where}: a {shown(call_type)} tool call has no Pi equivalent; use "
                           "function tools")
    function = mapping(call.get("function"), at(where, "function"))
    raw = function.get("arguments", "{}")
    arguments = _arguments_to_pi(raw if isinstance(raw, str) else json_object(raw, at(at(where, "function"),
                                                                                      "arguments")))
    block = {"type": "toolCall", "id": identifier(call.get("id"), at(where, "id")),
             "name": identifier(function.get("name"), at(at(where, "function"), "name")), "arguments": arguments}
    if isinstance(raw, str) and raw != _dump_arguments(arguments):
        block["rawArguments"] = raw
    return block


def _thinking_to_pi(value: Any, where: str) -> dict[str, Any]:
    block = mapping(value, where)
    block_type = kind(block, where)
    if block_type == "redacted_thinking":
        return {"type": "thinking", "thinking": "", "thinkingSignature": text(block.get("data", ""), at(where, "data")),
                "redacted": True}
    if block_type != "thinking":
        refuse(at(where, "type"), "'thinking' or 'redacted_thinking'", block_type)
    return {"type": "thinking", "thinking": text(block.get("thinking", ""), at(where, "thinking")),
            "thinkingSignature": text(block.get("signature", ""), at(where, "signature"))}


def _assistant_to_pi(message: OpenAIMessage, where: str, timestamp: int, model: str) -> dict[str, Any]:
    thinking = at(where, "thinking_blocks")
    calls = at(where, "tool_calls")
    content = [_thinking_to_pi(b, at(thinking, i))
               for i, b in enumerate(items(message.get("thinking_blocks"), thinking, optional=True))]
    content += text_blocks(_texts(message.get("content"), at(where, "content")))
    content += [_call_to_pi(call, at(calls, i)) for i, call in enumerate(items(message.get("tool_calls"), calls,
                                                                                optional=True))]
    return pi_assistant(content, API, model, timestamp)


def _tool_to_pi(message: OpenAIMessage, where: str, names: Mapping[str, str], timestamp: int) -> dict[str, Any]:
    call_id = identifier(message.get("tool_call_id"), at(where, "tool_call_id"))
    name = names.get(call_id) or text(message.get("name", ""), at(where, "name"))
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": text_blocks(_texts(message.get("content"), at(where, "content"))),
            "isError": flag(message.get("is_error"), at(where, "is_error")), "timestamp": timestamp}


def _fold_images(content: str | list[dict[str, Any]], out: list[dict[str, Any]]) -> bool:
    """Put the images of a tool-images message (see the module doc) back into the results it names.
    False, and nothing changed, for any other user message."""
    if not isinstance(content, list) or not content:
        return False
    results = {}
    for previous in reversed(out):
        if previous.get("role") != "toolResult":
            break
        results[previous["toolCallId"]] = previous
    groups: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for block in content:
        intro = _IMAGES_INTRO.fullmatch(block["text"]) if block["type"] == "text" else None
        if intro is not None and intro["id"] in results:
            groups.append((results[intro["id"]], []))
        elif block["type"] == "image" and groups:
            groups[-1][1].append(block)
        else:
            return False
    for result, images in groups:
        texts = result["content"]
        if texts == text_blocks([IMAGE_PLACEHOLDER]) and images:
            texts = []
        result["content"] = [*texts, *images]
    return True


# ----- Pi -> OpenAI --------------------------------------------------------------------------------


def to_openai(messages: list[dict[str, Any]]) -> list[OpenAIMessage]:
    """The OpenAI messages a model reads for Pi `messages` (condense's summaries become user messages)."""
    out: list[OpenAIMessage] = []
    images: list[dict[str, Any]] = []
    for message in llm_messages(messages):
        role = message["role"]
        if role != "toolResult" and images:
            out.append({"role": "user", "content": images})
            images = []
        if role == "toolResult":
            tool_message, result_images = _tool_from_pi(message)
            out.append(tool_message)
            images += result_images
        elif role == "assistant":
            assistant = _assistant_from_pi(message)
            if assistant is not None:
                out.append(assistant)
        else:
            out.append({"role": "user", "content": user_content(message["content"])})
    if images:
        out.append({"role": "user", "content": images})
    return out


def image_part(block: Mapping[str, Any]) -> dict[str, Any]:
    """A Pi image block as OpenAI's `image_url` part (a data: URL, and the `detail` an agent gave it),
    here and in pi-tui's requests."""
    detail = block.get("detail")
    image = {"url": data_url(block)} if detail is None else {"url": data_url(block), "detail": detail}
    return {"type": "image_url", "image_url": image}


def user_content(content: str | Sequence[Mapping[str, Any]]) -> str | list[dict[str, Any]]:
    """A Pi user message's content as OpenAI's: text stays text, images become `image_url` parts; the
    blocks OpenAI has no part for are left out."""
    if isinstance(content, str):
        return content
    return [{"type": "text", "text": b["text"]} if b["type"] == "text" else image_part(b)
            for b in content if b.get("type") in ("text", "image")]


def _text_content(texts: list[str]) -> str | list[dict[str, Any]] | None:
    """One text is a string, several stay separate parts, none is None (OpenAI's own convention)."""
    if not texts:
        return None
    return texts[0] if len(texts) == 1 else [{"type": "text", "text": t} for t in texts]


def _dump_arguments(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False)


def arguments_text(block: Mapping[str, Any]) -> str:
    """A call's arguments as OpenAI carries them: the text as the model wrote it, unless the engine has
    since rewritten the arguments (error purge)."""
    arguments = block.get("arguments") or {}
    raw = block.get("rawArguments")
    return raw if isinstance(raw, str) and _arguments_to_pi(raw) == arguments else _dump_arguments(arguments)


def _call_from_pi(block: dict[str, Any]) -> dict[str, Any]:
    function = {"name": block["name"], "arguments": arguments_text(block)}
    return {"id": block["id"], "type": "function", "function": function}


def _thinking_from_pi(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("redacted"):
        return {"type": "redacted_thinking", "data": block["thinkingSignature"]}
    return {"type": "thinking", "thinking": block.get("thinking", ""), "signature": block["thinkingSignature"]}


def _assistant_from_pi(message: dict[str, Any]) -> OpenAIMessage | None:
    """None for a reply with nothing OpenAI can carry (only unsigned thinking): providers refuse it."""
    blocks = message.get("content") or []
    texts = [b["text"] for b in blocks if b.get("type") == "text"]
    calls = [_call_from_pi(b) for b in blocks if b.get("type") == "toolCall"]
    thinking = [_thinking_from_pi(b) for b in blocks if b.get("type") == "thinking" and b.get("thinkingSignature")]
    if not texts and not calls:
        return None
    out: OpenAIMessage = {"role": "assistant", "content": _text_content(texts)}
    if calls:
        out["tool_calls"] = calls
    if thinking:
        out["thinking_blocks"] = thinking
    return out


def _tool_from_pi(message: dict[str, Any]) -> tuple[OpenAIMessage, list[dict[str, Any]]]:
    """The tool message, and the parts that show its images after the tool messages."""
    blocks = message.get("content") or []
    texts = [b["text"] for b in blocks if b.get("type") == "text"]
    images = [image_part(b) for b in blocks if b.get("type") == "image"]
    content = _text_content(texts) if texts else (IMAGE_PLACEHOLDER if images else "")
    tool: OpenAIMessage = {"role": "tool", "tool_call_id": message["toolCallId"], "content": content}
    intro = [{"type": "text", "text": IMAGES_INTRO.format(id=message["toolCallId"])}] if images else []
    return tool, [*intro, *images]
