"""Pi's message wire shape, as plain dicts.

The engine reads and rewrites the very dicts that Pi writes to its session files, so their shape is
defined here, at the bottom of the dependency graph, and the host imports it from us. The types are
``TypedDict``s: they document the camelCase keys and let a type checker help, while the values stay
ordinary dicts that serialise byte-for-byte like Pi's.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


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


def content_text(content: str | list[Any]) -> str:
    """The text blocks of a message's content joined by newlines; images and calls contribute nothing."""
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def tool_calls(message: dict[str, Any]) -> list[ToolCall]:
    """The tool calls of an assistant message, in order (empty for every other role)."""
    if message.get("role") != "assistant":
        return []
    return [b for b in message.get("content") or [] if isinstance(b, dict) and b.get("type") == "toolCall"]
