"""The one Host that needs no agent: an entry log plus a summariser.

Any program that is not pi-tui's live agent (a library user, `pi-tui replay`/`whatif`/`context`, a
test) needs the same few things to run the engine: somewhere to keep the entries the engine reads back
as "the branch", somewhere to put spilled outputs, answers for the summariser, and a context usage for
the budget triggers. Keeping them in one class means every such program runs the engine the same way;
only the two parts differ: where the entries live (`condense.entry_log`) and where summaries come from
(a function, or a program's own model access).
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from condense.entry_log import EntryLog, MemoryLog, open_log
from condense.host import CancelSignal, CompletionEvent, ContextUsage, EntryReader, NoticeCallback, RecordedUI
from condense.measure import estimate_tokens, model_chars
from condense.messages import AgentMessage

if TYPE_CHECKING:
    from condense.engine import CondenseEngine

SUMMARIZER_MODEL = "library/summarizer"  # what the engine calls "the session model" for a function

SummaryFunction = Callable[[str], Awaitable[str] | str]
"""Prompt in, summary text out (sync or async). Raising makes the call fail; the batch stays pending."""


@runtime_checkable
class ModelAccess(Protocol):
    """The summariser's side of a host: which models exist, and one streamed completion."""

    def session_model(self) -> str | None: ...

    def has_model(self, ref: str) -> bool: ...

    def complete(self, model: str, prompt: str, thinking: str | None,
                 signal: CancelSignal) -> AsyncIterator[CompletionEvent]: ...


class FunctionModel:
    """Summaries from a function, seen by the engine as one model, `library/summarizer` (None: no model)."""

    def __init__(self, summarize: SummaryFunction | None) -> None:
        self.summarize = summarize

    def session_model(self) -> str | None:
        return SUMMARIZER_MODEL if self.summarize is not None else None

    def has_model(self, ref: str) -> bool:
        return self.summarize is not None and ref == SUMMARIZER_MODEL

    def complete(self, model: str, prompt: str, thinking: str | None,
                 signal: CancelSignal) -> AsyncIterator[CompletionEvent]:
        return self._complete(prompt)

    async def _complete(self, prompt: str) -> AsyncIterator[CompletionEvent]:
        if self.summarize is None:
            yield CompletionEvent("error", "no summariser was given", error_kind="other")
            return
        try:
            text = await self._call(self.summarize, prompt)
        except Exception as exc:
            yield CompletionEvent("error", f"{type(exc).__name__}: {exc}", error_kind="other")
            return
        yield CompletionEvent("delta", text)
        yield CompletionEvent("done", text, stop_reason="stop")

    @staticmethod
    async def _call(summarize: SummaryFunction, prompt: str) -> str:
        """A coroutine function is awaited; any other function runs in a worker thread, so a blocking one
        (an HTTP client, a local model) leaves the event loop free for the agent's other work."""
        answer: Awaitable[str] | str
        if inspect.iscoroutinefunction(summarize):
            answer = summarize(prompt)
        else:
            answer = await asyncio.to_thread(summarize, prompt)
        return await answer if isinstance(answer, Awaitable) else answer


class LocalHost(RecordedUI):
    """condense's Host over an entry log.

    `store` is where the session lives: a folder (a Pi session file in it, see `FileLog`), None (in
    memory; nothing spills, oversized outputs stay inline), or any `EntryLog`. Summaries come from
    `summarize`: a function called with the summariser prompt, or a `ModelAccess` (a program's own model
    access). UI calls, and what opening the store found (a damaged line, a second branch), are recorded
    in `notices` (the newest `keep_notices` of them; all when None) and `status` for the caller to show,
    and each notice reaches `on_notice` as it is given.

    `reported_usage`: the context usage starts from the newest reply's reported usage, which holds
    for a conversation whose requests this engine rendered (the library); a recorded session replayed
    under other settings is measured by estimate only (its usage predates the pruning)."""

    def __init__(self, store: EntryLog | str | os.PathLike[str] | None = None, *,
                 summarize: SummaryFunction | ModelAccess | None = None, context_window: int = 200_000,
                 reported_usage: bool = True, on_notice: NoticeCallback | None = None,
                 keep_notices: int | None = None) -> None:
        super().__init__(on_notice, keep_notices)
        self._owned: MemoryLog | None = None  # a log it opened itself is its to close; one handed in, the caller's
        if store is None or isinstance(store, str | os.PathLike):
            self._owned = open_log(store)
            self.log: EntryLog = self._owned
            for notice in self._owned.notices:
                self.notify(notice, "warning")
        else:
            self.log = store
        self.models: ModelAccess = summarize if isinstance(summarize, ModelAccess) else FunctionModel(summarize)
        self.context_window = context_window
        self.reported_usage = reported_usage
        self._engine: CondenseEngine | None = None

    def save(self) -> None:
        """Write what the store it opened could not take yet (a full disk); raises StoreWriteError while
        it still cannot."""
        if self._owned is not None:
            self._owned.save()

    def close(self) -> None:
        """Release the store folder it opened, so that another host may write to it."""
        if self._owned is not None:
            self._owned.close()

    def attach(self, engine: CondenseEngine) -> None:
        """Measure the context usage on what `engine` renders (without it: the unpruned messages)."""
        self._engine = engine

    # ----- the log ----------------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return self.log.session_id

    @property
    def entries(self) -> list[dict[str, Any]]:
        return self.log.branch()

    def append_message(self, message: Mapping[str, Any]) -> None:
        """A conversation message; `custom` ones become `custom_message` entries, as Pi stores them."""
        if message.get("role") == "custom":
            fields: dict[str, Any] = {k: message[k] for k in ("customType", "content", "display", "details")
                                      if k in message}
            self.log.append("custom_message", fields)
        else:
            self.log.append("message", {"message": message})

    def messages(self) -> list[AgentMessage]:
        """The conversation as the agent holds it: message entries, and custom messages in place."""
        return self.log.messages()

    # ----- the Host protocol ------------------------------------------------------------------

    def branch(self) -> list[dict[str, Any]]:
        return self.log.branch()

    def context_messages(self) -> list[AgentMessage]:
        return self.log.messages()

    def append_entry(self, custom_type: str, data: Any) -> None:
        self.log.append("custom", {"customType": custom_type} if data is None else
                        {"customType": custom_type, "data": data})

    def entry(self, entry_id: str) -> dict[str, Any] | None:
        """An entry of the log by id (`condense.host.EntryReader`): any branch's where the log reads
        them (a pi-tui session file), else its branch's."""
        if isinstance(self.log, EntryReader):
            return self.log.entry(entry_id)
        return next((entry for entry in self.log.branch() if entry.get("id") == entry_id), None)

    async def append_custom_message(self, custom_type: str, content: str, display: bool, details: Any) -> None:
        fields: dict[str, Any] = {"customType": custom_type, "content": content, "display": display}
        if details is not None:
            fields["details"] = details
        self.log.append("custom_message", fields)

    def cwd(self) -> str | None:
        return self.log.cwd()

    def blobs_dir(self) -> Path | None:
        return self.log.blobs_dir()

    def context_usage(self) -> ContextUsage | None:
        """As pi-tui's agent reckons it (with `reported_usage`): the newest good reply's reported usage
        plus an estimate of what came after it. Otherwise, and when that reply reported none (an agent
        that hands over no usage), an estimate of what the model reads now."""
        messages = self.log.messages()
        reckoned = context_estimate(messages) if self.reported_usage else None
        tokens = reckoned.tokens if reckoned is not None and reckoned.reported else self._estimate(messages)
        return ContextUsage(tokens, self.context_window)

    def _estimate(self, messages: list[AgentMessage]) -> int:
        engine = self._engine
        if engine is None or not engine.config.enabled:
            return estimate_tokens(messages)
        engine.render(messages)  # the request's own render, extended by what came since
        return engine.rendered_tokens()

    def session_model(self) -> str | None:
        return self.models.session_model()

    def has_model(self, ref: str) -> bool:
        return self.models.has_model(ref)

    def complete(self, model: str, prompt: str, thinking: str | None,
                 signal: CancelSignal) -> AsyncIterator[CompletionEvent]:
        return self.models.complete(model, prompt, thinking, signal)

    def streams(self, model: str) -> bool:
        """Whether a call's silence means a stall (see `condense.summarize.runner`): a function answers
        once, at its end, so only the summariser's ceiling on the whole call bounds it."""
        return not isinstance(self.models, FunctionModel)


@dataclass(frozen=True)
class ContextEstimate:
    """Pi's estimate of the context (its `estimateContextTokens`)."""

    tokens: int  # `reported` plus chars/4 of the messages after that reply (of all of them without one)
    reported: int  # the newest good reply's reported usage; 0 when it reported none or there is no reply


def context_estimate(messages: Sequence[Mapping[str, Any]]) -> ContextEstimate | None:
    """The context as Pi's `getContextUsage` reckons it, the one reckoning of pi-tui's agent and of
    LocalHost: the newest reply that is no error or abort counts its usage as reported (zero too), and
    chars/4 the messages after it. None (unknown) after a compaction until a reply reports usage: the
    replies before it measured the history the summary replaced."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") == "compactionSummary":
            return None
        if message.get("role") != "assistant" or message.get("stopReason") in ("error", "aborted"):
            continue
        usage = message.get("usage") or {}
        tokens = int(usage.get("totalTokens") or 0) or sum(
            int(usage.get(k) or 0) for k in ("input", "output", "cacheRead", "cacheWrite"))
        if not tokens and any(m.get("role") == "compactionSummary" for m in messages[:index]):
            return None
        return ContextEstimate(tokens + model_chars(messages[index + 1:]) // 4, tokens)
    return ContextEstimate(model_chars(messages) // 4, 0)
