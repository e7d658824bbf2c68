"""The event bus that extensions (condense first of all) and the UI hook into.

Names, payloads and combination rules follow Pi's extension runner, so an engine written against
Pi's events behaves the same here: ordinary events run every handler and a failing handler is
reported, not fatal; `context` handlers chain, each receiving the previous one's messages;
`tool_call` stops at the first handler that blocks; `tool_result` applies each handler's patch.
Handlers may be plain functions or coroutines.

Each event is a TypedDict whose `type` is its name, so a handler of one event reads its keys checked,
and code holding any `AgentEvent` narrows it with `event["type"] == ...`. `on`'s overloads pair each
name with its event (and, where the bus reads the answer, with what a handler may answer).
"""

from __future__ import annotations

import inspect
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any, Literal, NotRequired, TypedDict, TypeVar, get_args, overload

from condense.messages import AgentMessage, AssistantMessage, ImageContent, TextContent, ToolResultMessage
from pi_tui.ai.types import EventType

ErrorReporter = Callable[[str, BaseException], None]
Unsubscribe = Callable[[], None]
ToolContent = list[TextContent | ImageContent]

EventName = Literal[
    "session_start", "session_tree", "session_shutdown",
    "agent_start", "agent_end", "turn_start", "turn_end",
    "message_start", "message_update", "message_end",
    "tool_execution_start", "tool_execution_update", "tool_execution_end",
    "tool_call", "tool_result", "context",
    "auto_retry_start", "auto_retry_end", "context_overflow",
    "session_compact", "auto_compaction_start", "auto_compaction_end",
]
EVENT_NAMES = frozenset(get_args(EventName))


class SessionStartEvent(TypedDict):
    type: Literal["session_start"]
    reason: str


class SessionTreeEvent(TypedDict):
    type: Literal["session_tree"]
    newLeafId: str | None
    oldLeafId: str | None


class SessionShutdownEvent(TypedDict):
    type: Literal["session_shutdown"]


class AgentStartEvent(TypedDict):
    type: Literal["agent_start"]


class AgentEndEvent(TypedDict):
    type: Literal["agent_end"]
    messages: list[AgentMessage]


class TurnStartEvent(TypedDict):
    type: Literal["turn_start"]
    turnIndex: int
    timestamp: int


class TurnEndEvent(TypedDict):
    type: Literal["turn_end"]
    turnIndex: int
    message: AssistantMessage
    toolResults: list[ToolResultMessage]


class MessageStartEvent(TypedDict):
    type: Literal["message_start"]
    message: AgentMessage


class AssistantMessageEvent(TypedDict):
    """One step of a streamed reply, as `message_update` carries it."""

    type: EventType
    delta: NotRequired[str]
    contentIndex: NotRequired[int]


class MessageUpdateEvent(TypedDict):
    type: Literal["message_update"]
    message: AssistantMessage
    assistantMessageEvent: AssistantMessageEvent


class MessageEndEvent(TypedDict):
    type: Literal["message_end"]
    message: AgentMessage


class ToolResultBody(TypedDict):
    """A tool's output so far (`partialResult`) or in the end (`result`)."""

    content: ToolContent
    details: dict[str, Any] | None


class ToolExecutionStartEvent(TypedDict):
    type: Literal["tool_execution_start"]
    toolCallId: str
    toolName: str
    args: dict[str, Any]


class ToolExecutionUpdateEvent(TypedDict):
    type: Literal["tool_execution_update"]
    toolCallId: str
    toolName: str
    args: dict[str, Any]
    partialResult: ToolResultBody


class ToolExecutionEndEvent(TypedDict):
    type: Literal["tool_execution_end"]
    toolCallId: str
    toolName: str
    result: ToolResultBody
    isError: bool


class ToolCallEvent(TypedDict):
    type: Literal["tool_call"]
    toolCallId: str
    toolName: str
    input: dict[str, Any]


class ToolResultEvent(TypedDict):
    type: Literal["tool_result"]
    toolCallId: str
    toolName: str
    input: dict[str, Any]
    content: ToolContent
    details: dict[str, Any] | None
    isError: bool


class ContextEvent(TypedDict):
    type: Literal["context"]
    messages: list[AgentMessage]


class AutoRetryStartEvent(TypedDict):
    type: Literal["auto_retry_start"]
    attempt: int
    maxAttempts: int
    delayMs: int
    errorMessage: str
    delayNote: NotRequired[str]  # ours: the provider asked for the wait (Retry-After), and whether it was capped


class AutoRetryEndEvent(TypedDict):
    type: Literal["auto_retry_end"]
    success: bool
    attempt: int
    finalError: NotRequired[str]


class ContextOverflowEvent(TypedDict):
    type: Literal["context_overflow"]
    message: AssistantMessage
    retried: bool


class SessionCompactEvent(TypedDict):
    """The conversation was compacted (`/compact`, or a request too long): the branch changed before its leaf."""

    type: Literal["session_compact"]
    compactionEntry: dict[str, Any]


class AutoCompactionStartEvent(TypedDict):
    type: Literal["auto_compaction_start"]
    reason: Literal["overflow"]


class AutoCompactionEndEvent(TypedDict):
    type: Literal["auto_compaction_end"]
    willRetry: bool
    tokensBefore: NotRequired[int]  # compacted
    errorMessage: NotRequired[str]  # not compacted: why


AgentEvent = (
    SessionStartEvent | SessionTreeEvent | SessionShutdownEvent | AgentStartEvent | AgentEndEvent
    | TurnStartEvent | TurnEndEvent | MessageStartEvent | MessageUpdateEvent | MessageEndEvent
    | ToolExecutionStartEvent | ToolExecutionUpdateEvent | ToolExecutionEndEvent | ToolCallEvent
    | ToolResultEvent | ContextEvent | AutoRetryStartEvent | AutoRetryEndEvent | ContextOverflowEvent
    | SessionCompactEvent | AutoCompactionStartEvent | AutoCompactionEndEvent
)


class ContextReply(TypedDict):
    """A `context` handler's answer besides a bare list: the messages the request carries instead."""

    messages: list[AgentMessage]


class ToolCallVerdict(TypedDict, total=False):
    """A `tool_call` handler's answer: `block` stops the call, `reason` says why to the model."""

    block: bool
    reason: str


class ToolResultPatch(TypedDict, total=False):
    """A `tool_result` handler's answer: the keys it replaces in what the model gets back."""

    content: ToolContent
    details: dict[str, Any] | None


class OverflowReply(TypedDict):
    """A `context_overflow` handler's answer: `retry` when it shrank the context enough to try again."""

    retry: bool


_E = TypeVar("_E")
_R = TypeVar("_R")
Listener = Callable[[_E], object]  # its answer, awaited if it is awaitable, goes unread
Handler = Callable[[_E], _R | Awaitable[_R | None] | None]


async def _call(handler: Callable[..., object], event: AgentEvent) -> object:
    result = handler(event)
    if inspect.isawaitable(result):
        result = await result
    return result


class EventBus:
    def __init__(self, on_error: ErrorReporter | None = None) -> None:
        # each list holds handlers of its own event, as `on`'s overloads pair them
        self._handlers: dict[str, list[Callable[..., object]]] = defaultdict(list)
        self._on_error = on_error

    @overload
    def on(self, name: Literal["session_start"], handler: Listener[SessionStartEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["session_tree"], handler: Listener[SessionTreeEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["session_shutdown"], handler: Listener[SessionShutdownEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["agent_start"], handler: Listener[AgentStartEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["agent_end"], handler: Listener[AgentEndEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["turn_start"], handler: Listener[TurnStartEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["turn_end"], handler: Listener[TurnEndEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["message_start"], handler: Listener[MessageStartEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["message_update"], handler: Listener[MessageUpdateEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["message_end"], handler: Listener[MessageEndEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["tool_execution_start"], handler: Listener[ToolExecutionStartEvent]) -> Unsubscribe:
        ...
    @overload
    def on(self, name: Literal["tool_execution_update"],
           handler: Listener[ToolExecutionUpdateEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["tool_execution_end"], handler: Listener[ToolExecutionEndEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["tool_call"], handler: Handler[ToolCallEvent, ToolCallVerdict]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["tool_result"],
           handler: Handler[ToolResultEvent, ToolResultPatch]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["context"],
           handler: Handler[ContextEvent, list[AgentMessage] | ContextReply]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["auto_retry_start"], handler: Listener[AutoRetryStartEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["auto_retry_end"], handler: Listener[AutoRetryEndEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["context_overflow"],
           handler: Handler[ContextOverflowEvent, OverflowReply]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["session_compact"], handler: Listener[SessionCompactEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["auto_compaction_start"],
           handler: Listener[AutoCompactionStartEvent]) -> Unsubscribe: ...
    @overload
    def on(self, name: Literal["auto_compaction_end"], handler: Listener[AutoCompactionEndEvent]) -> Unsubscribe: ...

    def on(self, name: str, handler: Callable[..., object]) -> Unsubscribe:
        """Subscribe; returns a function that unsubscribes."""
        if name not in EVENT_NAMES:
            raise ValueError(f"unknown event {name!r}; known events: {', '.join(sorted(EVENT_NAMES))}")
        self._handlers[name].append(handler)
        return lambda: self._handlers[name].remove(handler) if handler in self._handlers[name] else None

    def has(self, name: str) -> bool:
        return bool(self._handlers.get(name))

    def _report(self, name: str, exc: BaseException) -> None:
        if self._on_error is not None:
            self._on_error(name, exc)

    async def emit(self, event: AgentEvent) -> list[object]:
        """Run every handler, each on its own copy of `event`; a handler's exception is reported and the
        others still run."""
        name = event["type"]
        results = []
        for handler in list(self._handlers.get(name, ())):
            try:
                results.append(await _call(handler, event.copy()))
            except Exception as exc:  # one broken extension must not stop the agent
                self._report(name, exc)
        return results

    async def emit_context(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """Chain `context` handlers; a handler returning None (or failing) leaves the list as it was."""
        for handler in list(self._handlers.get("context", ())):
            try:
                result = await _call(handler, {"type": "context", "messages": messages})
            except Exception as exc:
                self._report("context", exc)
                continue
            if isinstance(result, dict) and isinstance(result.get("messages"), list):
                messages = result["messages"]
            elif isinstance(result, list):
                messages = result
        return messages

    async def emit_tool_call(self, event: ToolCallEvent) -> str | None:
        """The reason the call is blocked, or None. A failing handler blocks: safety over progress."""
        for handler in list(self._handlers.get("tool_call", ())):
            try:
                result = await _call(handler, event.copy())
            except Exception as exc:
                return f"Extension failed, blocking execution: {exc}"
            if isinstance(result, dict) and result.get("block"):
                return str(result.get("reason") or "Tool call was blocked by an extension")
        return None

    async def emit_tool_result(self, event: ToolResultEvent) -> ToolResultBody:
        """Apply each handler's `content`/`details` patch in turn; returns the final pair."""
        current: ToolResultBody = {"content": event["content"], "details": event.get("details")}
        for handler in list(self._handlers.get("tool_result", ())):
            try:
                patch = await _call(handler, {**event, "content": current["content"], "details": current["details"]})
            except Exception as exc:
                self._report("tool_result", exc)
                continue
            if isinstance(patch, dict) and "content" in patch:
                current["content"] = patch["content"]
            if isinstance(patch, dict) and "details" in patch:
                current["details"] = patch["details"]
        return current
