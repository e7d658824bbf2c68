"""Every real provider, through litellm, behind the `ModelClient` protocol.

litellm takes seconds to import, so nothing here imports it at module level: the first use does,
in a thread when called from the event loop, and the TUI warms it up (`warm_up`) after its first
frame. Every part of pi-tui that needs litellm itself (the client, the tokenizer) takes it from
`import_litellm`, configured by the engine's (condense.litellm_summary), so none imports it unconfigured.
The agent loop owns retries (`num_retries=0`) so the user can see "retrying in Ns", and the
client never raises for provider trouble: a failure or an abort ends the stream with an `error`
event whose message says what happened in one line.

Streamed tool-call arguments stay `{}` in the partial message until their call ends (the raw JSON
fragments travel in each `toolcall_delta`); re-parsing a growing `write` body on every fragment
would be quadratic. Arguments that are not a JSON object at the end become `{}`, as in Pi, with the
model's own text kept beside them (see tool_arguments.py).
"""

from __future__ import annotations

import asyncio
import functools
import gc
import math
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Any

from condense.json_text import valid_json, valid_text
from condense.litellm_summary import import_litellm as configured_litellm
from condense.messages import AssistantMessage, StopReason, Usage, empty_usage
from pi_tui.abort import AbortSignal
from pi_tui.ai.config_values import resolve_config_value, resolve_headers
from pi_tui.ai.errors import classify_exception, error_line, format_error, retry_after_ms
from pi_tui.ai.models import missing_key, models_json_key_applies
from pi_tui.ai.openai_format import to_openai_messages, to_openai_tools
from pi_tui.ai.tool_arguments import parse_arguments
from pi_tui.ai.transform import model_api, transform_messages
from pi_tui.ai.types import EventType, ModelRequest, ModelSpec, StreamEvent

ABORTED_TEXT = "Request was aborted"
PLACEHOLDER_KEY = "sk-test"
REASONING_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "high"}
STOP_REASONS: dict[str, StopReason] = {"stop": "stop", "length": "length", "tool_calls": "toolUse",
                                       "function_call": "toolUse"}


_IMPORTING = threading.Lock()


@functools.cache
def import_litellm() -> Any:
    """litellm as the engine's `[litellm]` extra configures it (local price map, never the network; no
    banners, quiet logs), imported without the cyclic collector: a choice for pi-tui's process that the
    engine, a library, leaves to its host."""
    with _IMPORTING:
        return _import_uncollected()


def _import_uncollected() -> Any:
    """litellm's import builds half a million long-lived objects (pydantic models, mostly openai's
    types): the cyclic collector, run again and again as they pile up, was a quarter of the import's
    CPU, and walking them at later full collections and at exit nearly a second more. It is off for
    the import, and what exists then is frozen (never traversed again). The price: a cycle among those
    objects that becomes garbage later is never freed (one runtime's at most: the import runs before
    or beside the first one's building). A caller that had the collector off keeps it off."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        litellm = configured_litellm()
    finally:
        if enabled:
            gc.freeze()
            gc.enable()
    return litellm


def warm_up() -> None:
    """Pay the import cost now (the TUI runs this in a thread worker after the first frame)."""
    import_litellm()


def import_in_background() -> None:
    """Start the import in a thread while the caller opens the session and loads the engine (`-p`), so
    the first request finds it done or under way; `import_litellm_async` waits for it off the loop."""
    if not import_litellm.cache_info().currsize:
        threading.Thread(target=import_litellm, name="import litellm", daemon=True).start()


async def import_litellm_async() -> Any:
    """litellm without blocking the event loop on a first import (or on one still running in a thread)."""
    if import_litellm.cache_info().currsize:
        return import_litellm()
    return await asyncio.to_thread(import_litellm)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _field(obj: Any, name: str) -> Any:
    """A field of a litellm object or of a plain dict; None when absent."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _text(obj: Any, name: str) -> str:
    """A text field of a chunk ("" when absent), valid UTF-8 from here on: a lone surrogate the provider's
    JSON held would fail every later request that sends this reply back (condense.json_text)."""
    value = _field(obj, name)
    return valid_text(value) if isinstance(value, str) else ""


# --- usage and cost ------------------------------------------------------------------------------


MOST_TOKENS = 10**12  # more than any context holds: a count above it is nonsense, and would overflow the prices


def _tokens(value: Any) -> int:
    """A token count as the provider reported it, from 0 to MOST_TOKENS; 0 for what is no finite number."""
    if isinstance(value, float) and math.isfinite(value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return min(max(value, 0), MOST_TOKENS)


def usage_from(raw: Any, spec: ModelSpec) -> Usage:
    """Pi's usage: `input` excludes cache reads and writes (litellm's prompt_tokens includes both)."""
    usage = empty_usage()
    if raw is None:
        return usage
    details = _field(raw, "prompt_tokens_details")
    cache_read = _tokens(_field(raw, "cache_read_input_tokens") or _field(details, "cached_tokens"))
    cache_write = _tokens(_field(raw, "cache_creation_input_tokens") or _field(details, "cache_creation_tokens"))
    prompt = _tokens(_field(raw, "prompt_tokens"))
    usage["input"] = max(0, prompt - cache_read - cache_write)
    usage["output"] = _tokens(_field(raw, "completion_tokens"))
    usage["cacheRead"] = cache_read
    usage["cacheWrite"] = cache_write
    usage["totalTokens"] = usage["input"] + usage["output"] + cache_read + cache_write
    prices = spec.prices  # litellm's map (or the settings), filled in when the model was picked
    cost = usage["cost"]
    cost["input"] = usage["input"] * prices.input
    cost["output"] = usage["output"] * prices.output
    cost["cacheRead"] = cache_read * prices.cache_read
    cost["cacheWrite"] = cache_write * prices.cache_write
    cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
    return usage


# --- the request ----------------------------------------------------------------------------------


def completion_kwargs(request: ModelRequest) -> dict[str, Any]:
    """litellm.acompletion arguments for one streamed reply. Its text is made valid UTF-8 once more here,
    the last door: text that came in by a way no entry point repaired must not fail this request and
    every later one (condense.json_text)."""
    model = request.model
    history = transform_messages(request.messages, model)
    kwargs: dict[str, Any] = {
        "model": model.litellm_ref,
        "messages": valid_json(to_openai_messages(request.system_prompt, history, model)),
        "stream": True,
        "stream_options": {"include_usage": True},
        "num_retries": 0,
        "max_tokens": request.max_tokens or model.max_tokens,
        "drop_params": True,
    }
    if request.tools:
        kwargs["tools"] = valid_json(to_openai_tools(request.tools))
    key = resolve_config_value(model.key_source) if model.key_source and models_json_key_applies(model) else None
    if key:
        kwargs["api_key"] = key
    if model.base_url:
        kwargs["api_base"] = model.base_url
        if not key and not os.environ.get(f"{model.provider.upper()}_API_KEY"):
            kwargs["api_key"] = PLACEHOLDER_KEY  # local servers need no key, but the SDK insists on one
    if model.headers:
        kwargs["extra_headers"] = resolve_headers(model.headers)
    effort = REASONING_EFFORT.get(request.thinking_level) if model.reasoning else None
    if effort:
        kwargs["reasoning_effort"] = effort
    return kwargs


# --- the stream -----------------------------------------------------------------------------------


class _ReplyBuilder:
    """Grows the Pi assistant message from litellm chunks. Events carry this one live message."""

    def __init__(self, spec: ModelSpec, timestamp: int) -> None:
        self.spec = spec
        self.message: AssistantMessage = {
            "role": "assistant", "content": [], "api": model_api(spec), "provider": spec.provider,
            "model": spec.id, "usage": empty_usage(), "stopReason": "stop", "timestamp": timestamp,
        }
        self.finish_reason: str | None = None
        self._raw_usage: Any = None
        self._current: tuple[str, int] | None = None  # ("text" | "thinking" | "tool", key)
        self._tool_blocks: dict[int, int] = {}  # stream index -> content index
        self._tool_args: dict[int, str] = {}  # stream index -> raw JSON so far, until the call ends

    @property
    def content(self) -> list[Any]:
        return self.message["content"]

    def event(self, kind: EventType, delta: str = "", index: int = -1) -> StreamEvent:
        return StreamEvent(type=kind, message=self.message, delta=delta, content_index=index)

    def feed(self, chunk: Any) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if _field(chunk, "usage") is not None:
            self._raw_usage = _field(chunk, "usage")
        choices = _field(chunk, "choices") or []
        if not choices:
            return events
        choice = choices[0]
        self.finish_reason = _field(choice, "finish_reason") or self.finish_reason
        delta = _field(choice, "delta")
        reasoning = _text(delta, "reasoning_content")
        if reasoning:
            self._append("thinking", reasoning, events)
        for block in _field(delta, "thinking_blocks") or []:
            self._thinking_block(block)
        text = _text(delta, "content")
        if text:
            self._append("text", text, events)
        for tool_call in _field(delta, "tool_calls") or []:
            self._tool_delta(tool_call, events)
        return events

    def _switch_to(self, current: tuple[str, int] | None, events: list[StreamEvent]) -> None:
        if self._current is not None and self._current[0] == "tool":
            self._end_tool(self._current[1], events)
        self._current = current

    def _append(self, kind: str, text: str, events: list[StreamEvent]) -> None:
        current = self._current
        if current is None or current[0] != kind:
            block = {"type": "text", "text": ""} if kind == "text" else {"type": "thinking", "thinking": ""}
            self.content.append(block)
            current = (kind, len(self.content) - 1)
            self._switch_to(current, events)
        index = current[1]
        self.content[index][kind] += text
        events.append(self.event("text_delta" if kind == "text" else "thinking_delta", text, index))

    def _thinking_block(self, block: Any) -> None:
        """Anthropic's signature (or a redacted block) arrives beside the reasoning text."""
        if _field(block, "type") == "redacted_thinking":
            redacted = {"type": "thinking", "thinking": "", "thinkingSignature": _text(block, "data")}
            self.content.append({**redacted, "redacted": True})
            self._current = None
            return
        signature = _text(block, "signature")
        if not signature:
            return
        for existing in reversed(self.content):
            if existing["type"] == "thinking" and not existing.get("redacted"):
                existing["thinkingSignature"] = signature
                return
        self.content.append({"type": "thinking", "thinking": "", "thinkingSignature": signature})

    def _tool_delta(self, tool_call: Any, events: list[StreamEvent]) -> None:
        index = _field(tool_call, "index")
        index = index if isinstance(index, int) else len(self._tool_blocks)
        function = _field(tool_call, "function")
        if index not in self._tool_blocks:
            self.content.append({"type": "toolCall", "id": "", "name": "", "arguments": {}})
            self._tool_blocks[index] = len(self.content) - 1
            self._tool_args[index] = ""
            self._switch_to(("tool", index), events)
            events.append(self.event("toolcall_start", "", self._tool_blocks[index]))
        block = self.content[self._tool_blocks[index]]
        block["id"] = block["id"] or _text(tool_call, "id")
        block["name"] = block["name"] or _text(function, "name")
        fragment = _text(function, "arguments")
        if fragment and index in self._tool_args:
            self._tool_args[index] += fragment
            events.append(self.event("toolcall_delta", fragment, self._tool_blocks[index]))

    def _end_tool(self, index: int, events: list[StreamEvent] | None) -> None:
        raw = self._tool_args.pop(index, None)
        if raw is None:
            return
        block = self.content[self._tool_blocks[index]]
        arguments, problem = parse_arguments(raw)
        block["arguments"] = valid_json(arguments)  # an escaped lone surrogate in the JSON text
        if problem is not None:
            block["rawArguments"] = raw
        if events is not None:
            events.append(self.event("toolcall_end", "", self._tool_blocks[index]))

    def _end_all_tools(self, events: list[StreamEvent] | None) -> None:
        for index in sorted(self._tool_args):
            self._end_tool(index, events)
        self._current = None

    def finish(self) -> list[StreamEvent]:
        """The events that end a stream that ran to its end: open calls close, then done (or error)."""
        events: list[StreamEvent] = []
        self._end_all_tools(events)
        self.message["usage"] = usage_from(self._raw_usage, self.spec)
        reason = self.finish_reason
        if reason is None:
            detail = "Connection error: the response stream ended before the model finished"
            return [*events, self.fail(format_error("transient", detail))]
        if reason == "content_filter":
            detail = "the provider's content filter stopped the reply"
            return [*events, self.fail(format_error("bad_request", detail))]
        stop = STOP_REASONS.get(reason, "stop")
        if stop == "stop" and any(b["type"] == "toolCall" for b in self.content):
            stop = "toolUse"  # some providers say "stop" after tool calls; the calls are what matters
        self.message["stopReason"] = stop
        return [*events, self.event("done")]

    def fail(self, text: str, stop_reason: StopReason = "error") -> StreamEvent:
        self._end_all_tools(None)
        if self._raw_usage is not None:
            self.message["usage"] = usage_from(self._raw_usage, self.spec)
        self.message["stopReason"] = stop_reason
        self.message["errorMessage"] = text
        return self.event("error")

    def fail_with(self, exc: BaseException) -> StreamEvent:
        endpoint = self.spec.base_url or f"{self.spec.provider}'s API"
        event = self.fail(error_line(exc, classify_exception(exc), endpoint))
        event.retry_after_ms = retry_after_ms(exc)
        return event

    def stalled(self, seconds: float) -> StreamEvent:
        detail = f"the stream timed out: nothing came for {seconds:g} s (setting retry.stream_idle_timeout_ms)"
        return self.fail(format_error("transient", detail))

    def aborted(self) -> StreamEvent:
        return self.fail(ABORTED_TEXT, "aborted")


_ABORTED = object()
_STALLED = object()
_END = object()


async def _race(awaitable: Awaitable[Any], abort: asyncio.Future[Any], idle: float | None) -> Any:
    """The awaitable's result; _ABORTED as soon as the signal fires, or _STALLED when `idle` seconds pass
    first (the work is then cancelled)."""
    task = asyncio.ensure_future(awaitable)
    try:
        done, _ = await asyncio.wait({task, abort}, timeout=idle, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        raise
    if task in done:
        return task.result()
    task.cancel()
    await asyncio.wait({task}, timeout=2.0)
    if task.done() and not task.cancelled():
        task.exception()  # retrieved, so asyncio does not log it: the abort or the stall is what the caller sees
    return _ABORTED if abort in done else _STALLED


async def _next_chunk(iterator: AsyncIterator[Any]) -> Any:
    try:
        return await iterator.__anext__()
    except StopAsyncIteration:
        return _END


async def _close(response: Any) -> None:
    closer = getattr(response, "aclose", None)
    if closer is None:
        return
    try:
        await closer()
    except Exception:  # the stream is being thrown away; a failure to close it changes nothing
        return


class LiteLLMClient:
    """`ModelClient` for every provider litellm supports (`ModelSpec.provider` is litellm's prefix).

    A reply that has begun and then sends nothing for the request's `idle_timeout` (not even its first
    chunk) ends in a transient error saying so: litellm's own limit is 6,000 s, a hang to anyone waiting."""

    async def stream(self, request: ModelRequest, signal: AbortSignal) -> AsyncIterator[StreamEvent]:
        reply = _ReplyBuilder(request.model, _now_ms())
        if signal.aborted:
            yield reply.aborted()
            return
        no_key = missing_key(request.model)
        if no_key:  # said before any request: litellm's own complaint is a paragraph
            yield reply.fail(no_key)
            return
        abort = asyncio.ensure_future(signal.wait())
        response: Any = None
        try:
            try:
                litellm = await import_litellm_async()
                # no idle limit here: the first call spends seconds setting litellm up before any byte is sent
                response = await _race(litellm.acompletion(**completion_kwargs(request)), abort, None)
            except Exception as exc:
                yield reply.fail_with(exc)
                return
            if response is _ABORTED:
                response = None
                yield reply.aborted()
                return
            yield reply.event("start")
            async for event in self._chunks(response, reply, abort, request.idle_timeout):
                yield event
        finally:
            abort.cancel()
            if response is not None:
                await _close(response)

    async def _chunks(
        self, response: Any, reply: _ReplyBuilder, abort: asyncio.Future[Any], idle: float | None
    ) -> AsyncIterator[StreamEvent]:
        iterator = response.__aiter__()
        while True:
            try:
                chunk = await _race(_next_chunk(iterator), abort, idle)
            except Exception as exc:
                yield reply.fail_with(exc)
                return
            if chunk is _ABORTED or chunk is _STALLED:
                await _close(response)
                yield reply.aborted() if chunk is _ABORTED else reply.stalled(idle or 0.0)
                return
            if chunk is _END:
                break
            for event in reply.feed(chunk):
                yield event
        for event in reply.finish():
            yield event
