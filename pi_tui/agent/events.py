"""The event bus that extensions (condense first of all) and the UI hook into.

Names, payloads and combination rules follow Pi's extension runner, so an engine written against
Pi's events behaves the same here: ordinary events run every handler and a failing handler is
reported, not fatal; `context` handlers chain, each receiving the previous one's messages;
`tool_call` stops at the first handler that blocks; `tool_result` applies each handler's patch.
Handlers may be plain functions or coroutines.
"""

from __future__ import annotations

import inspect
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

from condense.messages import AgentMessage

Handler = Callable[[dict[str, Any]], Any | Awaitable[Any]]
ErrorReporter = Callable[[str, BaseException], None]

EVENT_NAMES = frozenset({
    "session_start", "session_tree", "session_shutdown",
    "agent_start", "agent_end", "turn_start", "turn_end",
    "message_start", "message_update", "message_end",
    "tool_execution_start", "tool_execution_update", "tool_execution_end",
    "tool_call", "tool_result", "context",
    "auto_retry_start", "auto_retry_end", "context_overflow",
})


async def _call(handler: Handler, payload: dict[str, Any]) -> Any:
    result = handler(payload)
    if inspect.isawaitable(result):
        result = await result
    return result


class EventBus:
    def __init__(self, on_error: ErrorReporter | None = None) -> None:
        self._handlers: dict[str, list[Handler]] = defaultdict(list)
        self._on_error = on_error

    def on(self, name: str, handler: Handler) -> Callable[[], None]:
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

    async def emit(self, name: str, payload: dict[str, Any]) -> list[Any]:
        """Run every handler; a handler's exception is reported and the others still run."""
        results = []
        for handler in list(self._handlers.get(name, ())):
            try:
                results.append(await _call(handler, {"type": name, **payload}))
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

    async def emit_tool_call(self, payload: dict[str, Any]) -> str | None:
        """The reason the call is blocked, or None. A failing handler blocks: safety over progress."""
        for handler in list(self._handlers.get("tool_call", ())):
            try:
                result = await _call(handler, {"type": "tool_call", **payload})
            except Exception as exc:
                return f"Extension failed, blocking execution: {exc}"
            if isinstance(result, dict) and result.get("block"):
                return str(result.get("reason") or "Tool call was blocked by an extension")
        return None

    async def emit_tool_result(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Apply each handler's `content`/`details` patch in turn; returns the final pair."""
        current = {"content": payload["content"], "details": payload.get("details")}
        for handler in list(self._handlers.get("tool_result", ())):
            try:
                patch = await _call(handler, {"type": "tool_result", **payload, **current})
            except Exception as exc:
                self._report("tool_result", exc)
                continue
            if isinstance(patch, dict):
                for key in ("content", "details"):
                    if key in patch:
                        current[key] = patch[key]
        return current
