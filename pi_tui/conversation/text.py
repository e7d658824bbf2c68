"""A conversation as plain text, for `pi-tui show` and anywhere a terminal without the TUI reads one."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from condense.messages import AgentMessage

TOOL_OUTPUT_LINES = 12


def _when(ms: Any) -> str:
    if not isinstance(ms, int | float) or ms <= 0:
        return ""
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime(" · %Y-%m-%d %H:%M:%S")
    except (OverflowError, ValueError, OSError):  # a damaged file's time far beyond any calendar
        return ""


def _clip(text: str, lines: int | None) -> str:
    if lines is None:
        return text
    rows = text.splitlines()
    if len(rows) <= lines:
        return text
    return "\n".join(rows[:lines]) + f"\n… ({len(rows) - lines} more lines)"


def image_label(block: Mapping[str, Any]) -> str:
    """An image as a reader needs it: what kind and how big, not kilobytes of base64."""
    data = block.get("data") or ""
    padding = len(data) - len(data.rstrip("="))
    size = len(data) * 3 // 4 - padding  # base64: 4 characters per 3 bytes
    return f"[image: {block.get('mimeType', '?')}, {max(1, round(size / 1024))} KB]"


def _content(content: Any) -> str:
    """Text blocks and image placeholders, in the order the message holds them."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif block.get("type") == "image":
            parts.append(image_label(block))
    return "\n".join(parts)


def _bash(message: Mapping[str, Any], lines: int | None) -> list[str]:
    """A user's `!` run: how it ended, and whether the model sees it (`!!` keeps it out)."""
    bang = "!!" if message.get("excludeFromContext") else "!"
    if message.get("cancelled"):
        ending = "cancelled"
    elif message.get("exitCode") is None:
        ending = "no exit code"
    else:
        ending = f"exit {message['exitCode']}"
    unseen = " · not in context" if message.get("excludeFromContext") else ""
    head = f"── user ran {bang} {message.get('command')} ({ending}){unseen}{_when(message.get('timestamp'))}"
    return [head, _clip(str(message.get("output") or ""), lines)]


def _assistant(message: Mapping[str, Any]) -> list[str]:
    head = f"── assistant ({message.get('model', '?')}) · {message.get('stopReason', '?')}"
    out = [head + _when(message.get("timestamp"))]
    for block in message.get("content") or []:
        kind = block.get("type")
        if kind == "text" and block.get("text", "").strip():
            out.append(block["text"].rstrip())
        elif kind == "thinking" and block.get("thinking", "").strip():
            out.append("  (thinking) " + " ".join(block["thinking"].split())[:200])
        elif kind == "toolCall":
            args = json.dumps(block.get("arguments") or {}, ensure_ascii=False)
            out.append(f"  → {block.get('name')} {args[:300]}")
    if message.get("errorMessage"):
        out.append(f"  ! {message['errorMessage']}")
    return out


def format_message(message: AgentMessage, lines: int | None = TOOL_OUTPUT_LINES) -> list[str]:
    role = message.get("role")
    when = _when(message.get("timestamp"))
    if role == "assistant":
        return _assistant(message)
    if role == "toolResult":
        mark = "✗ error" if message.get("isError") else "✓"
        body = _clip(_content(message.get("content")), lines)
        return [f"── {message.get('toolName')} result {mark}{when}", body]
    if role == "bashExecution":
        return _bash(message, lines)
    if role == "custom":
        return [f"── {message.get('customType') or 'custom'}{when}", _clip(_content(message.get("content")), lines)]
    if role in ("compactionSummary", "branchSummary"):
        return [f"── {role}{when}", _clip(str(message.get("summary", "")), lines)]
    return [f"── {role}{when}", _content(message.get("content"))]


def format_conversation(messages: list[AgentMessage], lines: int | None = TOOL_OUTPUT_LINES) -> str:
    return "\n".join("\n".join(format_message(m, lines)) + "\n" for m in messages)
