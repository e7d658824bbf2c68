"""Validation of session lines where they enter the process.

A session file is a person's work, often written by another program (Pi itself, an older pi-tui, a
crash mid-write). Pi's loader keeps every line that parses as JSON and only meets a missing field
later, when `buildSessionContext`, `convertToLlm` or a provider reads it. We accept the same lines,
and fill each missing field here, once, with the value Pi's code ends up using, so that nothing
downstream (renderer, condense, provider conversion) ever meets a hole:

- a message without a (numeric) `timestamp` gets its entry's ISO time in ms, the time Pi gives the
  messages it builds from entries (custom messages, summaries); 0 when the entry has none either;
- `content: null` (or absent) on a user, assistant, tool result or custom message is `[]`: nothing
  to say, which every provider path then leaves out, as Pi's providers skip an empty message;
- a tool result without `toolName` gets `""`, without `isError` `false`; a shell run without
  `output` gets `""`;
- `custom_message` / custom messages without `customType` get `""` and without `display` `false`
  (Pi reads the missing value as falsy); `custom` entries without `customType` get `""`;
- `model_change` without `provider` or `modelId` gets `""` (no usable model: the default is used);
  a `thinking_level_change` without a level counts as no level recorded ("off");
- `compaction`, `branch_summary` and summary messages without `summary` get `""` (an empty branch
  summary is not part of the context, as in Pi).

Only what Pi cannot use either is skipped: a line that is not a JSON object, an entry without a
string `type` or `id`, a `message` entry whose message is not an object of a known role, and blocks
or fields of the wrong type (a text block without text, a tool call without arguments...), which
would crash Pi's providers. Anything else on a line is kept untouched (`extra="allow"`), so unknown
keys and unknown entry types survive a load/save round trip. A line that fails gets a one-line
reason, never a traceback.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, TypeAdapter, ValidationError

from condense.config import one_line_error
from condense.session_file import tree_problem
from condense.timefmt import iso_to_ms
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
    toolName: str
    content: list[_UserBlock]
    timestamp: _Timestamp


class _CustomMsg(_Loose):
    role: Literal["custom", "hookMessage"]
    customType: str
    content: str | list[_UserBlock]
    timestamp: _Timestamp


class _BashMsg(_Loose):
    role: Literal["bashExecution"]
    command: str
    output: str
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
    thinkingLevel: str | None = None  # absent: Pi uses the level it would use with no entry at all


class _Label(_Loose):
    type: Literal["label"]
    targetId: str | None = None  # absent: Pi labels nothing, but the entry stays in the tree


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


_ROLES = ("user", "assistant", "toolResult", "custom", "hookMessage", "bashExecution", "branchSummary",
          "compactionSummary")
_LIST_CONTENT_ROLES = ("user", "assistant", "toolResult", "custom", "hookMessage")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _fill(obj: dict[str, Any], key: str, value: Any) -> None:
    """Give `key` the value Pi's code would end up using when the file has none (absent or null)."""
    if obj.get(key) is None:
        obj[key] = value


def _fill_message(message: dict[str, Any], entry_ms: int) -> None:
    if not _is_number(message.get("timestamp")):
        message["timestamp"] = entry_ms
    role = message.get("role")
    if role in _LIST_CONTENT_ROLES:
        _fill(message, "content", [])
    if role in ("custom", "hookMessage"):
        _fill(message, "customType", "")
        _fill(message, "display", False)
    elif role == "toolResult":
        _fill(message, "toolName", "")
        _fill(message, "isError", False)
    elif role == "bashExecution":
        _fill(message, "output", "")
    elif role in ("branchSummary", "compactionSummary"):
        _fill(message, "summary", "")


def _fill_entry(obj: dict[str, Any]) -> None:
    kind = obj.get("type")
    if kind == "message" and isinstance(obj.get("message"), dict):
        _fill_message(obj["message"], iso_to_ms(obj.get("timestamp")))
    elif kind == "custom_message":
        _fill(obj, "customType", "")
        _fill(obj, "content", [])
        _fill(obj, "display", False)
    elif kind == "custom":
        _fill(obj, "customType", "")
    elif kind == "model_change":
        _fill(obj, "provider", "")
        _fill(obj, "modelId", "")
    elif kind in ("compaction", "branch_summary"):
        _fill(obj, "summary", "")


def prepare_entry(obj: Any) -> str | None:
    """Fill, in place, the fields Pi would read as missing; then say why this decoded line cannot be
    used as a session entry (after migration, so every entry has its id), or None when it can."""
    problem = tree_problem(obj)
    if problem is not None:
        return problem
    kind = obj["type"]
    adapter = _KNOWN.get(kind)
    if adapter is None:
        return None
    if kind == "message":
        message = obj.get("message")
        if not isinstance(message, dict):
            return "message entry: 'message' is not an object"
        if message.get("role") not in _ROLES:
            return _one_line(f"message entry: unknown message role {message.get('role')!r}")
    _fill_entry(obj)
    try:
        adapter.validate_python(obj)
    except ValidationError as err:
        return _one_line(f"{kind} entry: {one_line_error(err)}")
    return None
