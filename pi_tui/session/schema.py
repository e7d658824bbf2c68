"""Validation of session lines where they enter the process.

A session file is a person's work, often written by another program (Pi itself, an older pi-tui, a
crash mid-write). Each line is checked for the fields the rest of the code relies on; anything else
on the line is kept untouched (`extra="allow"`), so unknown keys and unknown entry types survive a
load/save round trip. A line that fails gets a one-line reason, never a traceback.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, TypeAdapter, ValidationError

from pi_tui.errors import printable


class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


# Content blocks: the fields that conversion, the provider transform and condense read directly.
class _Text(_Loose):
    type: Literal["text"]
    text: str


class _Thinking(_Loose):
    type: Literal["thinking"]
    thinking: str


class _ToolCall(_Loose):
    type: Literal["toolCall"]
    id: str
    name: str
    arguments: dict[str, Any]


class _Image(_Loose):
    type: Literal["image"]
    data: str
    mimeType: str


_UserBlock = Annotated[_Text | _Image, Field(discriminator="type")]
_AssistantBlock = Annotated[_Text | _Thinking | _ToolCall, Field(discriminator="type")]
# Finite numbers only: usage is summed and converted with int(), timestamps order the request.
_Number = StrictInt | Annotated[float, Field(strict=True, allow_inf_nan=False)]
_Timestamp = _Number


class _Cost(_Loose):
    total: _Number | None = None


class _Usage(_Loose):
    input: _Number | None = None
    output: _Number | None = None
    cacheRead: _Number | None = None
    cacheWrite: _Number | None = None
    totalTokens: _Number | None = None
    cost: _Cost | None = None


class _UserMsg(_Loose):
    role: Literal["user"]
    content: str | list[_UserBlock]
    timestamp: _Timestamp


class _AssistantMsg(_Loose):
    role: Literal["assistant"]
    content: list[_AssistantBlock]
    timestamp: _Timestamp
    stopReason: str | None = None
    usage: _Usage | None = None


class _ToolResultMsg(_Loose):
    role: Literal["toolResult"]
    toolCallId: str
    content: list[_UserBlock]
    timestamp: _Timestamp


class _CustomMsg(_Loose):
    role: Literal["custom", "hookMessage"]
    customType: str = ""
    content: str | list[_UserBlock]
    timestamp: _Timestamp


class _BashMsg(_Loose):
    role: Literal["bashExecution"]
    command: str
    output: str = ""
    timestamp: _Timestamp


class _SummaryMsg(_Loose):
    role: Literal["branchSummary", "compactionSummary"]
    summary: str
    timestamp: _Timestamp


_MessageModel = Annotated[
    _UserMsg | _AssistantMsg | _ToolResultMsg | _CustomMsg | _BashMsg | _SummaryMsg,
    Field(discriminator="role"),
]


class _Header(_Loose):
    type: Literal["session"]
    id: str
    version: int | None = None


class _MessageEntry(_Loose):
    type: Literal["message"]
    message: _MessageModel


class _CompactionEntry(_Loose):
    type: Literal["compaction"]
    summary: str


class _BranchSummaryEntry(_Loose):
    type: Literal["branch_summary"]
    summary: str


class _CustomEntry(_Loose):
    type: Literal["custom"]
    customType: str


class _CustomMessageEntry(_Loose):
    type: Literal["custom_message"]
    customType: str
    content: str | list[_UserBlock]


class _ModelChange(_Loose):
    type: Literal["model_change"]
    provider: str
    modelId: str


class _ThinkingChange(_Loose):
    type: Literal["thinking_level_change"]
    thinkingLevel: str


class _Label(_Loose):
    type: Literal["label"]
    targetId: str


_KNOWN: dict[str, TypeAdapter[Any]] = {
    "session": TypeAdapter(_Header),
    "message": TypeAdapter(_MessageEntry),
    "compaction": TypeAdapter(_CompactionEntry),
    "branch_summary": TypeAdapter(_BranchSummaryEntry),
    "custom": TypeAdapter(_CustomEntry),
    "custom_message": TypeAdapter(_CustomMessageEntry),
    "model_change": TypeAdapter(_ModelChange),
    "thinking_level_change": TypeAdapter(_ThinkingChange),
    "label": TypeAdapter(_Label),
}

MAX_REASON = 200


def _one_line(text: str) -> str:
    """A reason quotes what the file holds: no control characters, and a bounded length."""
    safe = printable(text)
    return safe if len(safe) <= MAX_REASON else safe[: MAX_REASON - 3] + "..."


def _first_error(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"] if not str(p).startswith("_"))
    return _one_line(f"{where}: {first['msg'].lower()}" if where else first["msg"].lower())


def check_line(obj: Any) -> str | None:
    """Why this decoded line cannot be used as a session entry, or None when it can."""
    if not isinstance(obj, dict):
        return f"expected a JSON object, got {type(obj).__name__}"
    kind = obj.get("type")
    if not isinstance(kind, str):
        return "missing the string field 'type'"
    for key in ("id", "parentId"):
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            return f"'{key}' must be a string or null, got {type(value).__name__}"
    adapter = _KNOWN.get(kind)
    if adapter is None:
        return None
    try:
        adapter.validate_python(obj)
    except ValidationError as err:
        return f"{kind} entry: {_first_error(err)}"
    return None
