"""Pi messages handed over by an agent that keeps Pi's own shape, checked before the engine reads them.

The engine trusts the messages it holds: it reads a toolCall's `id` as a string and a usage's counts as
numbers. The other adapters build Pi messages themselves; an agent that already keeps Pi messages
builds its own, so each one is checked here and refused in one line (MessageError) where a field the
engine reads is missing or of another kind, and where it cannot be written to the store as JSON.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from condense.adapters.checks import (
    at,
    finite_number,
    flag,
    identifier,
    items,
    json_object,
    kind,
    mapping,
    refuse,
    shown,
    text,
)
from condense.adapters.plain import MessageLike, plain
from condense.errors import MessageError

USER_BLOCKS = ("text", "image")
ASSISTANT_BLOCKS = ("text", "thinking", "toolCall")
TEXT_FIELDS = {"bashExecution": ("command", "output"), "branchSummary": ("summary",),
               "compactionSummary": ("summary",), "custom": ("customType",)}
OPTIONAL_TEXT = ("stopReason", "api", "provider", "model", "errorMessage")  # an assistant's, when it has them
USAGE_COUNTS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
ROLES = ("user", "assistant", "toolResult", *TEXT_FIELDS)


def from_pi(messages: Iterable[MessageLike]) -> list[dict[str, Any]]:
    """Copies of `messages`, each checked; MessageError names the first message and field that is wrong."""
    out = []
    for index, raw in enumerate(messages):
        where = f"message {index}"
        message = json_object(plain(raw), where)
        _check(message, where)
        out.append(message)
    return out


def _check(message: dict[str, Any], where: str) -> None:
    role = message.get("role")
    if role not in ROLES:
        raise MessageError(f"condense: {where} has role {shown(role)}; expected one of Pi's: {', '.join(ROLES)}")
    if message.get("timestamp") is not None and (not isinstance(message["timestamp"], int)
                                                 or isinstance(message["timestamp"], bool)):
        refuse(at(where, "timestamp"), "a whole number of milliseconds", message["timestamp"])
    for field in TEXT_FIELDS.get(role, ()):
        text(message.get(field), at(where, field))
    if role == "custom":
        flag(message.get("display"), at(where, "display"))
    if role in ("user", "custom"):
        _content(message.get("content"), at(where, "content"), USER_BLOCKS, text_allowed=True)
    elif role == "assistant":
        _content(message.get("content"), at(where, "content"), ASSISTANT_BLOCKS, text_allowed=False)
        _usage(message.get("usage"), at(where, "usage"))
        for field in OPTIONAL_TEXT:
            if message.get(field) is not None:
                text(message[field], at(where, field))
    elif role == "toolResult":
        identifier(message.get("toolCallId"), at(where, "toolCallId"))
        text(message.get("toolName", ""), at(where, "toolName"))
        flag(message.get("isError"), at(where, "isError"))
        _content(message.get("content"), at(where, "content"), USER_BLOCKS, text_allowed=False)


def _content(content: Any, where: str, allowed: tuple[str, ...], *, text_allowed: bool) -> None:
    if text_allowed and isinstance(content, str):
        return
    for index, value in enumerate(items(content, where)):
        _block(mapping(value, at(where, index)), at(where, index), allowed)


def _block(block: dict[str, Any], where: str, allowed: tuple[str, ...]) -> None:
    block_type = kind(block, where)
    if block_type not in allowed:
        raise MessageError(f"condense: {where}: a {block_type!r} block does not belong here; expected one of "
                           f"{', '.join(allowed)}")
    if block_type == "text":
        text(block.get("text"), at(where, "text"))
    elif block_type == "thinking":
        text(block.get("thinking", ""), at(where, "thinking"))
    elif block_type == "image":
        text(block.get("data"), at(where, "data"))
        text(block.get("mimeType"), at(where, "mimeType"))
    else:
        identifier(block.get("id"), at(where, "id"))
        identifier(block.get("name"), at(where, "name"))
        mapping(block.get("arguments"), at(where, "arguments"))


def _usage(usage: Any, where: str) -> None:
    if usage is None:
        return
    counts = mapping(usage, where)
    for key in USAGE_COUNTS:
        value = counts.get(key)
        if value is not None and not finite_number(value):
            refuse(at(where, key), "a number", value)
