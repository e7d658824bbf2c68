"""The agent loop: prompt -> turns -> tool calls -> next turn, until the model stops calling tools.

It owns the in-memory conversation and emits Pi's events in Pi's order; persistence, retries
policy and UI live with whoever subscribes. Every path out of a turn leaves a conversation a
provider accepts: an abort or a provider error ends in an assistant message whose stopReason says
so, and every tool call the model made gets a result (possibly an error, or a skip notice).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from condense.json_text import valid_json
from condense.measure import estimate_tokens
from condense.messages import (
    AgentMessage,
    AssistantMessage,
    ToolCall,
    ToolResultMessage,
    empty_usage,
    tool_calls,
)
from condense.timefmt import now_ms
from pi_tui.abort import AbortSignal
from pi_tui.agent.events import AssistantMessageEvent, AutoRetryStartEvent, EventBus, ToolExecutionUpdateEvent
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.errors import classify_error_text
from pi_tui.ai.tool_arguments import arguments_problem
from pi_tui.ai.transform import transform_messages
from pi_tui.ai.types import ModelClient, ModelRequest, ModelSpec, StreamEvent, ToolSpec
from pi_tui.redaction import redact_json
from pi_tui.tools.base import Tool, ToolContext, ToolError, ToolOutput

QueueMode = Literal["one-at-a-time", "all"]
SKIPPED_TEXT = "Skipped due to queued user message."
# compacted (True: retry the request); given the estimated tokens of the request the provider refused
OverflowCompaction = Callable[[AbortSignal, int], Awaitable[bool]]


@dataclass
class RetryPolicy:
    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_delay_ms: int = 60_000
    max_retry_after_ms: int = 120_000
    stream_idle_timeout_ms: int = 300_000

    def delay_ms(self, attempt: int, asked_ms: int | None = None) -> int:
        """The wait before retry `attempt` (from 1): what the provider asked for (Retry-After), up to
        `max_retry_after_ms`; else the base delay, doubled each time, up to `max_delay_ms`."""
        if asked_ms is not None:
            return min(asked_ms, self.max_retry_after_ms)
        return min(self.base_delay_ms << (attempt - 1), self.max_delay_ms)

    def delay_note(self, asked_ms: int | None) -> str | None:
        """Why the wait is what it is, when the provider asked for one: the retry line says it."""
        if asked_ms is None:
            return None
        if asked_ms <= self.max_retry_after_ms:
            return "as the provider asked"
        return f"the provider asked for {asked_ms / 1000:g}s, capped by retry.max_retry_after_ms"


@dataclass
class AgentConfig:
    model: ModelSpec
    system_prompt: str
    cwd: Path
    thinking_level: str = "off"
    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
    retry: RetryPolicy = field(default_factory=RetryPolicy)


class AgentBusyError(Exception):
    """`prompt()` while a run is in progress: the caller should steer or queue a follow-up instead."""


def _tool_result(call: ToolCall, output: ToolOutput, is_error: bool) -> ToolResultMessage:
    message: ToolResultMessage = {
        "role": "toolResult",
        "toolCallId": call["id"],
        "toolName": call["name"],
        "content": output.content,
        "isError": is_error,
        "timestamp": now_ms(),
    }
    if output.details is not None:
        message["details"] = output.details
    return message


def _stopped_message(model: ModelSpec, reason: Literal["aborted", "error"], text: str) -> AssistantMessage:
    return {
        "role": "assistant",
        "content": [],
        "api": model.api,
        "provider": model.provider,
        "model": model.id,
        "usage": empty_usage(),
        "stopReason": reason,
        "errorMessage": text,
        "timestamp": now_ms(),
    }


@dataclass
class _Overflow:
    """What a turn has tried against a request the provider refused as too long: each once."""

    pruned: bool = False
    compacted: bool = False
    retried: bool = False


@dataclass
class _Prepared:
    call: ToolCall
    tool: Tool | None = None
    params: Any = None
    immediate: ToolOutput | None = None  # an error decided before running (unknown, invalid, blocked, skipped)


class Agent:
    def __init__(
        self,
        client: ModelClient,
        config: AgentConfig,
        tools: list[Tool],
        bus: EventBus,
        messages: list[AgentMessage] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.client = client
        self.config = config
        self.tools = {tool.name: tool for tool in tools}
        self.bus = bus
        self.messages: list[AgentMessage] = list(messages or [])
        self._steering: list[AgentMessage] = []
        self._follow_ups: list[AgentMessage] = []
        self._signal = AbortSignal()
        self._running = False
        self._sleep = sleep
        self._added: list[AgentMessage] = []  # what the current run added, whatever a compaction rebuilt
        self._sent: list[AgentMessage] = []  # the last request's messages, as the extensions rendered them
        # the host's compaction (Pi's), for a request too long with nothing left to prune
        self.compact_on_overflow: OverflowCompaction | None = None

    # ----- public API ---------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self._running

    def steer(self, message: AgentMessage) -> None:
        """Deliver after the current tool batch; the batch's remaining calls are skipped."""
        self._steering.append(message)

    def follow_up(self, message: AgentMessage) -> None:
        """Deliver when the agent would otherwise stop."""
        self._follow_ups.append(message)

    def clear_queues(self) -> list[AgentMessage]:
        queued = self._steering + self._follow_ups
        self._steering, self._follow_ups = [], []
        return queued

    def abort(self) -> None:
        self._signal.abort()

    async def prompt(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """Run until the model stops; returns the messages this run added."""
        if self._running:
            raise AgentBusyError("the agent is already working: steer or queue a follow-up instead")
        self._running = True
        self._signal = AbortSignal()
        self._added = []
        try:
            await self._run(messages)
        finally:
            self._running = False
        return list(self._added)

    # ----- the loop -----------------------------------------------------------------------------

    def _dequeue(self, queue: list[AgentMessage], mode: QueueMode) -> list[AgentMessage]:
        if not queue:
            return []
        taken = list(queue) if mode == "all" else [queue[0]]
        del queue[: len(taken)]
        return taken

    async def _add(self, message: AgentMessage) -> None:
        await self.bus.emit({"type": "message_start", "message": message})
        self._append(message)
        await self.bus.emit({"type": "message_end", "message": message})

    def _append(self, message: AgentMessage) -> None:
        self.messages.append(message)
        self._added.append(message)

    def _turn_index(self) -> int:
        return sum(1 for m in self.messages if m.get("role") == "assistant")

    async def _run(self, prompt_messages: list[AgentMessage]) -> None:
        await self.bus.emit({"type": "agent_start"})
        pending = list(prompt_messages)
        first = True
        while True:
            more_tools = True
            while more_tools or pending:
                turn_index = self._turn_index()
                await self.bus.emit({"type": "turn_start", "turnIndex": turn_index, "timestamp": now_ms()})
                for message in pending:
                    await self._add(message)
                if first:
                    pending = self._dequeue(self._steering, self.config.steering_mode)
                    for message in pending:
                        await self._add(message)
                    first = False
                assistant = await self._assistant_turn()
                if assistant["stopReason"] in ("error", "aborted"):
                    await self.bus.emit({"type": "turn_end", "turnIndex": turn_index, "message": assistant,
                                         "toolResults": []})
                    await self.bus.emit({"type": "agent_end", "messages": list(self._added)})
                    return
                calls = tool_calls(assistant)
                results = await self._run_tools(calls) if calls else []
                await self.bus.emit({"type": "turn_end", "turnIndex": turn_index, "message": assistant,
                                     "toolResults": results})
                more_tools = bool(calls)
                pending = self._dequeue(self._steering, self.config.steering_mode)
            pending = self._dequeue(self._follow_ups, self.config.follow_up_mode)
            if not pending:
                break
        await self.bus.emit({"type": "agent_end", "messages": list(self._added)})

    # ----- one assistant reply, with retries -----------------------------------------------------

    async def _assistant_turn(self) -> AssistantMessage:
        attempt = 0
        overflow = _Overflow()
        while True:
            message, asked_ms = await self._stream_once()
            if message["stopReason"] != "error":
                if attempt:
                    await self.bus.emit({"type": "auto_retry_end", "success": True, "attempt": attempt})
                return message
            text = message.get("errorMessage", "")
            kind = classify_error_text(text)
            if kind == "context_overflow":
                if await self._recover_from_overflow(message, overflow):
                    self._drop_failed(message)
                    continue
                return message
            policy = self.config.retry
            if not (policy.enabled and kind == "transient") or attempt >= policy.max_retries:
                if attempt:
                    await self.bus.emit({"type": "auto_retry_end", "success": False, "attempt": attempt,
                                         "finalError": text})
                return message
            attempt += 1
            delay = policy.delay_ms(attempt, asked_ms)
            self._drop_failed(message)
            waiting: AutoRetryStartEvent = {"type": "auto_retry_start", "attempt": attempt,
                                            "maxAttempts": policy.max_retries, "delayMs": delay, "errorMessage": text}
            note = policy.delay_note(asked_ms)
            if note is not None:
                waiting["delayNote"] = note
            await self.bus.emit(waiting)
            if not await self._wait_unless_aborted(delay / 1000):
                return await self._aborted_reply()

    async def _recover_from_overflow(self, message: AssistantMessage, overflow: _Overflow) -> bool:
        """The provider refused the request as too long: the extensions prune first (condense summarises
        and compresses what it can); with nothing left to prune the host compacts the conversation, as Pi
        does; each once per turn. True: retry. A request still too long after a retry is an error, and the
        extensions are told (they say what to do)."""
        if not overflow.pruned:
            overflow.pruned = True
            replies = await self.bus.emit({"type": "context_overflow", "message": message, "retried": False})
            if any(isinstance(reply, dict) and reply.get("retry") for reply in replies):
                overflow.retried = True
                return True
        if not overflow.compacted and self.compact_on_overflow is not None:
            overflow.compacted = True
            if await self.compact_on_overflow(self._signal, estimate_tokens(self._sent)):
                overflow.retried = True
                return True
        if overflow.retried:
            await self.bus.emit({"type": "context_overflow", "message": message, "retried": True})
        return False

    def _drop_failed(self, message: AssistantMessage) -> None:
        """A failed attempt that is retried stays in the session file (its history) but leaves the
        conversation, as in Pi: the retry, and every later request, is built without it."""
        if self.messages and self.messages[-1] is message:
            self.messages.pop()
        if self._added and self._added[-1] is message:
            self._added.pop()

    async def _wait_unless_aborted(self, seconds: float) -> bool:
        """Sleep for the backoff; False when the user aborted meanwhile."""
        sleeper = asyncio.ensure_future(self._sleep(seconds))
        aborter = asyncio.ensure_future(self._signal.wait())
        await asyncio.wait({sleeper, aborter}, return_when=asyncio.FIRST_COMPLETED)
        for task in (sleeper, aborter):
            task.cancel()
        return not self._signal.aborted

    async def _aborted_reply(self) -> AssistantMessage:
        message = _stopped_message(self.config.model, "aborted", "Request was aborted")
        await self._add(message)
        return message

    def _request(self, context: list[AgentMessage]) -> ModelRequest:
        model = self.config.model
        specs = [ToolSpec(t.name, t.description, t.schema()) for t in self.tools.values()]
        llm_messages = transform_messages(convert_to_llm(context), model)
        idle = self.config.retry.stream_idle_timeout_ms / 1000
        return ModelRequest(model, self.config.system_prompt, llm_messages, specs, self.config.thinking_level,
                            idle_timeout=idle)

    async def _stream_once(self) -> tuple[AssistantMessage, int | None]:
        """One reply, and the wait its provider asked for before a retry (None when it did not say)."""
        if self._signal.aborted:
            return await self._aborted_reply(), None
        context = self._sent = await self.bus.emit_context(list(self.messages))
        request = self._request(context)
        final: AssistantMessage | None = None
        asked_ms: int | None = None
        started = False
        async for event in self.client.stream(request, self._signal):
            if event.type in ("done", "error"):
                final, asked_ms = event.message, event.retry_after_ms
                break
            if not started:
                started = True
                await self.bus.emit({"type": "message_start", "message": event.message})
            if event.type != "start":
                await self.bus.emit({"type": "message_update", "message": event.message,
                                     "assistantMessageEvent": _event_payload(event)})
        if final is None:
            final = _stopped_message(self.config.model, "error", "The model stream ended without a reply")
        if not started:
            await self.bus.emit({"type": "message_start", "message": final})
        self._append(final)
        await self.bus.emit({"type": "message_end", "message": final})
        return final, asked_ms

    # ----- tools --------------------------------------------------------------------------------

    async def _prepare(self, call: ToolCall) -> _Prepared:
        prepared = _Prepared(call)
        tool = self.tools.get(call["name"])
        if tool is None:
            prepared.immediate = ToolOutput.text(f"Tool {call['name']} not found")
            return prepared
        unparsed = arguments_problem(call)
        if unparsed is not None:
            prepared.immediate = ToolOutput.text(unparsed)
            return prepared
        try:
            prepared.params = tool.Params.model_validate(call.get("arguments") or {})
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}"
                                 for e in exc.errors())
            prepared.immediate = ToolOutput.text(f"Validation failed for tool \"{call['name']}\": {problems}")
            return prepared
        reason = await self.bus.emit_tool_call({"type": "tool_call", "toolCallId": call["id"],
                                                "toolName": call["name"], "input": call.get("arguments") or {}})
        if reason is not None:
            prepared.immediate = ToolOutput.text(reason)
            return prepared
        prepared.tool = tool
        return prepared

    async def _execute(self, prepared: _Prepared) -> tuple[ToolOutput, bool]:
        if prepared.immediate is not None or prepared.tool is None:
            return prepared.immediate or ToolOutput.text("Tool could not run"), True
        call = prepared.call
        updates: set[asyncio.Future[Any]] = set()

        def on_update(partial: ToolOutput) -> None:
            event: ToolExecutionUpdateEvent = {
                "type": "tool_execution_update", "toolCallId": call["id"], "toolName": call["name"],
                "args": call.get("arguments") or {},
                "partialResult": {"content": partial.content, "details": partial.details}}
            updates.add(asyncio.ensure_future(self.bus.emit(event)))

        ctx = ToolContext(cwd=self.config.cwd, signal=self._signal, on_update=on_update)
        try:
            return await prepared.tool.run(prepared.params, ctx), False
        except ToolError as exc:
            return ToolOutput.text(str(exc)), True
        except Exception as exc:  # a tool bug must reach the model as an error, not crash the session
            return ToolOutput.text(f"{type(exc).__name__}: {exc}"), True
        finally:
            # every update reaches subscribers before the call's end event does
            await asyncio.gather(*updates)

    async def _run_tools(self, calls: list[ToolCall]) -> list[ToolResultMessage]:
        prepared: list[_Prepared] = []
        for call in calls:
            await self.bus.emit({"type": "tool_execution_start", "toolCallId": call["id"], "toolName": call["name"],
                                 "args": call.get("arguments") or {}})
            if self._steering:
                prepared.append(_Prepared(call, immediate=ToolOutput.text(SKIPPED_TEXT)))
                continue
            prepared.append(await self._prepare(call))
        outcomes = await asyncio.gather(*(self._execute(p) for p in prepared))
        results: list[ToolResultMessage] = []
        for item, (output, is_error) in zip(prepared, outcomes, strict=True):
            results.append(await self._finish_tool(item.call, output, is_error))
        return results

    async def _finish_tool(self, call: ToolCall, output: ToolOutput, is_error: bool) -> ToolResultMessage:
        args = call.get("arguments") or {}
        if not is_error:
            patched = await self.bus.emit_tool_result({"type": "tool_result", "toolCallId": call["id"],
                                                       "toolName": call["name"], "input": args,
                                                       "content": output.content, "details": output.details,
                                                       "isError": False})
            output = ToolOutput(patched["content"], patched["details"])
        # the one door every tool result comes through: a key it printed reaches neither file nor provider,
        # and text UTF-8 cannot carry (a file read as surrogate escapes) fails no later request
        result = redact_json(valid_json(_tool_result(call, output, is_error)))
        await self.bus.emit({"type": "tool_execution_end", "toolCallId": call["id"], "toolName": call["name"],
                             "result": {"content": result["content"], "details": result.get("details")},
                             "isError": is_error})
        await self._add(result)
        return result


def _event_payload(event: StreamEvent) -> AssistantMessageEvent:
    payload: AssistantMessageEvent = {"type": event.type}
    if event.delta:
        payload["delta"] = event.delta
    if event.content_index >= 0:
        payload["contentIndex"] = event.content_index
    return payload
