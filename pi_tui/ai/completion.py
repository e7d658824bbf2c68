"""One prompt, one streamed answer: the completion condense's summariser and /tree's branch summary ask for.

Both speak condense's CompletionEvent (the engine's Host contract), so the call is written once here, next
to the model clients, instead of in each of its users.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from condense.host import CancelSignal, CompletionEvent
from condense.messages import content_text
from condense.timefmt import now_ms
from pi_tui.abort import AbortSignal
from pi_tui.ai.errors import classify_error_text
from pi_tui.ai.types import ModelClient, ModelRequest, ModelSpec


async def stream_completion(client: ModelClient, model: ModelSpec, prompt: str, thinking: str | None,
                            cancel: CancelSignal, idle_timeout: float | None = None, *, system_prompt: str = "",
                            max_tokens: int | None = None) -> AsyncIterator[CompletionEvent]:
    """One summariser call through a ModelClient, as condense's CompletionEvents; `idle_timeout` as in
    `ModelRequest` (a compaction's summary comes with its own system prompt and output limit)."""
    signal = AbortSignal()

    async def watch() -> None:
        while not cancel.aborted:
            await asyncio.sleep(0.1)
        signal.abort()

    watcher = asyncio.ensure_future(watch())
    request = ModelRequest(model=model, system_prompt=system_prompt, thinking_level=thinking or "off",
                           messages=[{"role": "user", "content": [{"type": "text", "text": prompt}],
                                      "timestamp": now_ms()}], idle_timeout=idle_timeout,
                           max_tokens=max_tokens)
    try:
        async for event in client.stream(request, signal):
            if event.type == "text_delta":
                yield CompletionEvent("delta", event.delta)
            elif event.type == "thinking_delta":
                yield CompletionEvent("thinking", event.delta)
            elif event.type == "done":
                message = event.message
                text = content_text(message["content"])
                yield CompletionEvent("done", text, message["stopReason"], dict(message["usage"]))
            elif event.type == "error":
                error = event.message.get("errorMessage", "")
                kind = "other" if event.message["stopReason"] == "aborted" else classify_error_text(error)
                yield CompletionEvent("error", error, event.message["stopReason"], error_kind=kind)
    finally:
        watcher.cancel()
