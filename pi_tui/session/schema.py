"""Validation of session lines where they enter the process.

A session file is a person's work, often written by another program (Pi itself, an older pi-tui, a
crash mid-write). Each line is checked for the fields the rest of the code relies on; anything else
on the line is kept untouched (`extra="allow"`), so unknown keys and unknown entry types survive a
load/save round trip. A line that fails gets a one-line reason, never a traceback.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


class _UserMsg(_Loose):
    role: Literal["user"]
    content: str | list[dict[str, Any]]


class _AssistantMsg(_Loose):
    role: Literal["assistant"]
    content: list[dict[str, Any]]


class _ToolResultMsg(_Loose):
    role: Literal["toolResult"]
    toolCallId: str
    content: list[dict[str, Any]]


class _CustomMsg(_Loose):
    role: Literal["custom", "hookMessage"]
    customType: str = ""


class _BashMsg(_Loose):
    role: Literal["bashExecution"]
    command: str
    output: str = ""


class _SummaryMsg(_Loose):
    role: Literal["branchSummary", "compactionSummary"]
    summary: str


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
    content: str | list[dict[str, Any]]


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

def _first_error(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"] if not str(p).startswith("_"))
    return f"{where}: {first['msg'].lower()}" if where else first["msg"].lower()


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
