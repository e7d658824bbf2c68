"""What both adapters share: the Pi assistant envelope, images, timestamps and the LLM view of a history."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from condense.adapters.checks import finite_number
from condense.errors import MessageError
from condense.messages import Usage, empty_usage

Clock = Callable[[], int]
"""Milliseconds for the next message's `timestamp` (Pi keys tool outputs by call id and result time)."""

_DATA_URL = re.compile(r"data:(?P<mime>[\w.+-]+/[\w.+-]+);base64,(?P<data>.*)", re.DOTALL)


def zero_clock() -> int:
    return 0


def pi_assistant(content: list[dict[str, Any]], api: str, model: str, timestamp: int) -> dict[str, Any]:
    """A Pi assistant message around `content` from `model` (`provider/id`, or a bare id). A foreign
    message carries no usage, so it is zero until `with_usage` records the provider's report."""
    calls = any(block.get("type") == "toolCall" for block in content)
    provider, _, model_id = model.rpartition("/")
    return {"role": "assistant", "content": content, "api": api, "provider": provider or "library",
            "model": model_id, "usage": empty_usage(), "stopReason": "toolUse" if calls else "stop",
            "timestamp": timestamp}


def _number(usage: Any, *keys: str) -> int:
    """The first of `keys` present in a usage report (a dict, or an SDK object with attributes)."""
    for key in keys:
        value = usage.get(key) if isinstance(usage, Mapping) else getattr(usage, key, None)
        if finite_number(value):
            return int(value)
    return 0


def pi_usage(usage: Any) -> Usage:
    """Pi's usage for a provider's report in OpenAI's shape (`prompt_tokens` includes cached tokens) or
    Anthropic's (`input_tokens` excludes them). Cost stays zero: prices are the provider's business."""
    details = usage.get("prompt_tokens_details") if isinstance(usage, Mapping) else \
        getattr(usage, "prompt_tokens_details", None)
    cache_read = _number(usage, "cache_read_input_tokens") or _number(details or {}, "cached_tokens")
    cache_write = _number(usage, "cache_creation_input_tokens")
    prompt = _number(usage, "prompt_tokens")
    fresh = _number(usage, "input_tokens") if not prompt else max(prompt - cache_read - cache_write, 0)
    output = _number(usage, "completion_tokens", "output_tokens")
    return {"input": fresh, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
            "totalTokens": fresh + output + cache_read + cache_write, "cost": empty_usage()["cost"]}


def with_usage(messages: list[dict[str, Any]], usage: Any) -> list[dict[str, Any]]:
    """`messages` with `usage` recorded on its last assistant message (the reply the report is for)."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "assistant":
            return [*messages[:index], {**messages[index], "usage": pi_usage(usage)}, *messages[index + 1:]]
    return messages


def pi_image(mime_type: str, data: str) -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime_type}


def image_from_data_url(url: str, where: str) -> dict[str, Any]:
    match = _DATA_URL.fullmatch(url)
    if match is None:
        raise MessageError(f"condense: {where}: image {url[:60]!r} is not a base64 data: URL; download it and "
                           "pass it as data:<mime>;base64,<data>")
    return pi_image(match["mime"], match["data"])


def data_url(block: Mapping[str, Any]) -> str:
    return f"data:{block['mimeType']};base64,{block['data']}"


def text_blocks(texts: list[str]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text} for text in texts]


def tool_names(messages: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Tool name by call id, over Pi assistant messages: foreign tool results name only the call id."""
    return {block["id"]: block["name"] for message in messages if message.get("role") == "assistant"
            for block in message.get("content") or []
            if isinstance(block, dict) and block.get("type") == "toolCall"}


def llm_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The roles a model reads: user, assistant and tool results as they are, custom messages (condense's
    summaries and compressed chains) as user messages in their place, as Pi's `convertToLlm` does; roles
    the library never writes (shell runs, branch summaries) are dropped."""
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role in ("user", "assistant", "toolResult"):
            out.append(message)
        elif role == "custom":
            content = message.get("content")
            blocks = text_blocks([content]) if isinstance(content, str) else list(content or [])
            out.append({"role": "user", "content": blocks, "timestamp": message.get("timestamp", 0)})
    return out
