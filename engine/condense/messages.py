"""Pi's message wire shape, as plain dicts.

The engine reads and rewrites the very dicts that Pi writes to its session files, so their shape is
defined here, at the bottom of the dependency graph, and the host imports it from us. The types are
``TypedDict``s: they document the camelCase keys and let a type checker help, while the values stay
ordinary dicts that serialise byte-for-byte like Pi's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, NamedTuple, NotRequired, TypedDict, TypeGuard, cast

SUMMARY_TYPE = "context-prune-summary"
"""The `customType` of the custom messages that carry condense's summaries into the conversation."""


def is_summary(message: Mapping[str, Any]) -> bool:
    """Whether a message is one of condense's summaries: how a transcript tells them from other custom
    messages without knowing the engine's records."""
    return message.get("role") == "custom" and message.get("customType") == SUMMARY_TYPE


def summary_call_ids(message: Mapping[str, Any]) -> tuple[str, ...]:
    """The tool call ids one of condense's summaries covers, from its details (legacy `toolCallIds` too);
    none for any other message. A transcript shows a summary beside the turns whose work it holds."""
    details = message.get("details") if is_summary(message) else None
    if not isinstance(details, Mapping):
        return ()
    refs = details.get("toolCallRefs")
    found = ([ref.get("toolCallId") for ref in refs if isinstance(ref, Mapping)] if isinstance(refs, list)
             else details.get("toolCallIds"))
    return tuple(i for i in found if isinstance(i, str)) if isinstance(found, list) else ()


class TextContent(TypedDict):
    type: Literal["text"]
    text: str
    textSignature: NotRequired[str]


class ThinkingContent(TypedDict):
    type: Literal["thinking"]
    thinking: str
    thinkingSignature: NotRequired[str]
    redacted: NotRequired[bool]


class ImageContent(TypedDict):
    type: Literal["image"]
    data: str
    mimeType: str


class ToolCall(TypedDict):
    type: Literal["toolCall"]
    id: str
    name: str
    arguments: dict[str, Any]
    thoughtSignature: NotRequired[str]
    rawArguments: NotRequired[str]  # pi-tui: the model's text when it was no JSON object (`arguments` is {})


class Cost(TypedDict):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    total: float


class Usage(TypedDict):
    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    totalTokens: int
    cost: Cost


StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]


class UserMessage(TypedDict):
    role: Literal["user"]
    content: str | list[TextContent | ImageContent]
    timestamp: int


class AssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: list[TextContent | ThinkingContent | ToolCall]
    api: str
    provider: str
    model: str
    usage: Usage
    stopReason: StopReason
    timestamp: int
    errorMessage: NotRequired[str]


class ToolResultMessage(TypedDict):
    role: Literal["toolResult"]
    toolCallId: str
    toolName: str
    content: list[TextContent | ImageContent]
    isError: bool
    timestamp: int
    details: NotRequired[Any]


class CustomMessage(TypedDict):
    role: Literal["custom"]
    customType: str
    content: str | list[TextContent | ImageContent]
    display: bool
    timestamp: int
    details: NotRequired[Any]


class BashExecutionMessage(TypedDict):
    role: Literal["bashExecution"]
    command: str
    output: str
    exitCode: int | None
    cancelled: bool
    truncated: bool
    timestamp: int
    fullOutputPath: NotRequired[str]
    excludeFromContext: NotRequired[bool]


class BranchSummaryMessage(TypedDict):
    role: Literal["branchSummary"]
    summary: str
    fromId: str
    timestamp: int


class CompactionSummaryMessage(TypedDict):
    role: Literal["compactionSummary"]
    summary: str
    tokensBefore: int
    timestamp: int


Message = UserMessage | AssistantMessage | ToolResultMessage
AgentMessage = (
    Message | CustomMessage | BashExecutionMessage | BranchSummaryMessage | CompactionSummaryMessage
)


def empty_usage() -> Usage:
    """A zeroed usage record, the shape Pi writes for turns that cost nothing (aborts, errors, demo)."""
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0},
    }


class Part(NamedTuple):
    """One piece of a message that a provider reads: `kind` is the block type (`text`, `thinking`,
    `toolCall`, `image`) or the message field (`summary`, `command`, `output`); `text` is what is read
    (a call's arguments as JSON with sorted keys, or the text a model wrote that was no JSON object;
    nothing for an image); `source` the block or message."""

    kind: str
    text: str
    source: Mapping[str, Any]


MESSAGE_FIELDS = ("summary", "output", "command")  # read besides the content: summaries, a shell run


def content_parts(content: Any) -> Iterator[Part]:
    """What the model reads of a message's content, block by block in order. The one place that decides
    it: context sizes, token estimates, the whatif prompts and plain text all build on it, so they never
    disagree on what counts."""
    if isinstance(content, str):
        yield Part("text", content, {"type": "text", "text": content})
        return
    for block in content if isinstance(content, list) else ():
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            yield Part(kind, str(block.get("text") or ""), block)
        elif kind == "thinking":
            yield Part(kind, str(block.get("thinking") or ""), block)
        elif kind == "toolCall":
            raw = block.get("rawArguments")
            text = raw if isinstance(raw, str) else json.dumps(block.get("arguments") or {}, ensure_ascii=False,
                                                               sort_keys=True)
            yield Part(kind, text, block)
        elif kind == "image":
            yield Part(kind, "", block)


def model_parts(message: Mapping[str, Any]) -> Iterator[Part]:
    """Everything the model reads in one message: its content, then the text fields other roles carry."""
    yield from content_parts(message.get("content"))
    for key in MESSAGE_FIELDS:
        value = message.get(key)
        if isinstance(value, str):
            yield Part(key, value, message)


def content_text(content: str | list[Any]) -> str:
    """The text blocks of a message's content joined by newlines; images and calls contribute nothing."""
    if isinstance(content, str):
        return content
    return "\n".join(part.text for part in content_parts(content) if part.kind == "text")


def is_tool_call(block: object) -> TypeGuard[ToolCall]:
    """A content block of type `toolCall` (its other keys as Pi's schema says; readers still use `.get`)."""
    return isinstance(block, dict) and block.get("type") == "toolCall"


def is_tool_result(message: Mapping[str, Any]) -> TypeGuard[ToolResultMessage]:
    """A message of role `toolResult` (its other keys as Pi's schema says; readers still use `.get`)."""
    return message.get("role") == "toolResult"


def typed_messages(messages: Sequence[Mapping[str, Any]]) -> list[AgentMessage]:
    """Plain dicts in Pi's shape (a library user's, an adapter's, a simulation's) as Pi's typed messages,
    the very same objects: mypy cannot check a dict against a TypedDict, and every reader of a message
    uses `.get` and skips what it does not know, so a malformed one is ignored, never trusted."""
    return cast("list[AgentMessage]", list(messages))


def plain_messages(messages: Sequence[AgentMessage]) -> list[dict[str, Any]]:
    """Pi's typed messages as the plain dicts code written for any dict handles (a simulation, the
    adapters, a library user), the very same objects: mypy holds a TypedDict to be no dict[str, Any]."""
    return cast("list[dict[str, Any]]", list(messages))


def tool_calls(message: Mapping[str, Any]) -> list[ToolCall]:
    """The tool calls of an assistant message, in order (empty for every other role)."""
    if message.get("role") != "assistant":
        return []
    return [b for b in message.get("content") or [] if is_tool_call(b)]
