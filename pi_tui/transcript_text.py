"""A conversation as plain text, for `pi-tui show` and anywhere a terminal without the TUI reads one."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from condense.messages import AgentMessage, content_text

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


def _assistant(message: dict[str, Any]) -> list[str]:
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
        return _assistant(message)  # type: ignore[arg-type]
    if role == "toolResult":
        mark = "✗ error" if message.get("isError") else "✓"
        body = _clip(content_text(message.get("content") or []), lines)
        return [f"── {message.get('toolName')} result {mark}{when}", body]
    if role == "bashExecution":
        body = _clip(str(message.get("output", "")), lines)
        return [f"── user ran ! {message.get('command')} (exit {message.get('exitCode')}){when}", body]
    if role == "custom":
        return [f"── {message.get('customType')}{when}", _clip(content_text(message.get("content") or ""), lines)]
    if role in ("compactionSummary", "branchSummary"):
        return [f"── {role}{when}", _clip(str(message.get("summary", "")), lines)]
    return [f"── {role}{when}", content_text(message.get("content") or "")]


def format_conversation(messages: list[AgentMessage], lines: int | None = TOOL_OUTPUT_LINES) -> str:
    return "\n".join("\n".join(format_message(m, lines)) + "\n" for m in messages)
