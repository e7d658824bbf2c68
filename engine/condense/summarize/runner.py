"""Running the summariser: which model, one streamed call with its timeouts, and what a failure means.

A summariser call is on the path of a flush, so it must never hang a turn: an idle timer (reset by
every event, thinking included, because a reasoning model can think for a long time before its first
word) and a ceiling on the whole call abandon a stalled stream. Failures are sorted by what they
imply: a transient one (provider error, stall) may be an outage of the configured model and can fall
back to the session model (see `fallback`); an auth failure or an unusable answer (blank, cut off by
the length limit) would fail the same way on a retry, so they never trip the fallback. An auth failure
(a missing or rejected key, an unknown model: the host's error kind "auth") would also fail every
other batch of the same flush, so it halts the flush: the remaining calls are not made (or are
abandoned), and the caller reports it once. For that to hold in a parallel flush too, its first call
goes alone until the summariser has answered once in this session. An abort by the caller
is not a failure at all: it raises `SummarizerAborted` so the flush can put its batches back
without a notice.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from condense.errors import CondenseError
from condense.host import CancelSignal, CompletionEvent, Host, Level
from condense.messages import empty_usage
from condense.records import Batch
from condense.summarize.extractive import extractive_range, extractive_summary
from condense.summarize.fallback import FallbackController, monotonic_ms
from condense.summarize.prompts import batch_prompt, range_prompt
from condense.summarize.serialize import serialize_batch

DEFAULT_MODEL = "default"  # the session's own model
EXTRACTIVE_MODEL = "extractive"  # no model at all: `extractive.py`
DEFAULT_THINKING = "default"  # send no thinking level; the provider decides

Progress = Callable[[int], None]
BatchState = Literal["running", "done", "failed"]
BatchProgress = Callable[[int, BatchState, int], None]  # (0-based batch index, state, text chars so far)
SummaryHook = Callable[[str, str], None]  # (prompt a model is or would be sent, summary) of every summary made


class SummarizerConfig(Protocol):
    """The settings the summariser reads (a subset of `condense.config.CondenseConfig`), read afresh
    on every call so `/pruner model` and friends take effect at once."""

    @property
    def summarizer_model(self) -> str: ...
    @property
    def summarizer_thinking(self) -> str: ...
    @property
    def summarizer_idle_timeout_ms(self) -> int:
        """0 disables."""
        ...
    @property
    def summarizer_max_timeout_ms(self) -> int:
        """0 disables."""
        ...


class SummarizerAborted(CondenseError):
    """The caller's signal was aborted while (or before) the summariser ran."""


@dataclass(frozen=True)
class SummaryOutcome:
    text: str  # the model's text as written, labels and all
    usage: dict[str, Any]  # Pi-shaped usage of the call that produced it
    model: str  # `provider/id`, or "extractive"


def is_usable_summary(text: str, stop_reason: str) -> bool:
    """Never prune behind a summary that says nothing or was cut off mid-sentence."""
    return bool(text.strip()) and stop_reason != "length"


Failure = Literal["transient", "idle", "ceiling", "auth", "unusable", "other"]
TRANSIENT: frozenset[Failure] = frozenset({"transient", "idle", "ceiling"})
HALTING: frozenset[Failure] = frozenset({"auth"})  # every later call of the flush would fail the same way


@dataclass(frozen=True)
class BatchSummaries:
    """The summaries of one flush's batches, in batch order (None: no summary), and why the flush
    stopped early, if a failure halted it (the one line to tell the user)."""

    outcomes: list[SummaryOutcome | None]
    halted: str | None = None


@dataclass
class _Attempt:
    model: str
    outcome: SummaryOutcome | None = None
    failure: Failure | None = None
    message: str = ""

    @property
    def transient(self) -> bool:
        return self.failure in TRANSIENT


class _FlushSignal:
    """The signal a flush's calls share: aborted when the caller aborts, or when one call halts the
    flush. Siblings still streaming hear a halt at once through `on_abort`, like a caller's abort."""

    def __init__(self, parent: CancelSignal) -> None:
        self.parent = parent
        self.halted: str | None = None
        self._listeners: list[Callable[[], Any]] = []
        self.said: set[str] = set()  # failure lines already given in this flush: each is said once

    @property
    def aborted(self) -> bool:
        return self.halted is not None or self.parent.aborted

    def is_halted(self) -> bool:
        """A call, not an attribute test: a sibling may halt the flush while this one awaits."""
        return self.halted is not None

    def halt(self, reason: str) -> None:
        if self.halted is None:
            self.halted = reason
            for listener in list(self._listeners):
                listener()

    def on_abort(self, listener: Callable[[], Any]) -> Callable[[], None]:
        self._listeners.append(listener)
        subscribe = getattr(self.parent, "on_abort", None)
        parent_off = subscribe(listener) if callable(subscribe) else None

        def off() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
            if callable(parent_off):
                parent_off()

        return off


class _CallSignal:
    """What the host sees for one call: aborted when the caller aborts or our timer gives up."""

    def __init__(self, parent: CancelSignal) -> None:
        self.parent = parent
        self.expired = False

    @property
    def aborted(self) -> bool:
        return self.expired or self.parent.aborted


_END = object()


async def _next_event(events: AsyncIterator[CompletionEvent]) -> Any:
    try:
        return await anext(events)
    except StopAsyncIteration:
        return _END


def _abort_future(signal: CancelSignal) -> tuple[asyncio.Future[None] | None, Callable[[], Any]]:
    """A future that resolves when `signal` aborts, when the signal can tell us (pi-tui's AbortSignal
    has `on_abort`); a bare CancelSignal is only checked between events."""
    subscribe = getattr(signal, "on_abort", None)
    if not callable(subscribe):
        return None, lambda: None
    loop = asyncio.get_running_loop()
    future: asyncio.Future[None] = loop.create_future()

    def resolve() -> None:
        if not future.done():
            future.set_result(None)

    unsubscribe = subscribe(lambda: loop.call_soon_threadsafe(resolve))
    return future, unsubscribe if callable(unsubscribe) else (lambda: None)


def _streams(host: Host, model: str) -> bool:
    """Whether `model`'s calls stream, so that silence means a stall. A host may say they do not with a
    `streams(model)` method (LocalHost's function summariser answers once, at its end): then only the
    ceiling on the whole call applies."""
    streams = getattr(host, "streams", None)
    return not callable(streams) or bool(streams(model))


def _seconds(ms: int) -> str:
    return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms / 1000:g}s"


class Summarizer:
    """The engine's one way to get a summary written; owns the outage state of its session."""

    def __init__(self, host: Host, config: SummarizerConfig,
                 clock: Callable[[], float] = monotonic_ms, on_summary: SummaryHook | None = None) -> None:
        self.host = host
        self.config = config
        self.fallback = FallbackController(clock)
        self._warned: set[str] = set()
        self._answered = False  # a model wrote a summary in this session
        # a cost simulation's view of every summary made
        self._on_summary = on_summary

    def reset(self) -> None:
        """A new session: forget the outage state and warn again about a missing model."""
        self.fallback.reset()
        self._warned.clear()
        self._answered = False

    # ----- public calls -----

    async def summarize_batch(self, batch: Batch, signal: CancelSignal,
                              on_progress: Progress | None = None) -> SummaryOutcome | None:
        if self.config.summarizer_model == EXTRACTIVE_MODEL:
            outcome = self._extractive(extractive_summary(batch), signal, on_progress)
            prompt = batch_prompt(serialize_batch(batch)) if self._on_summary and outcome else ""
        else:
            prompt = batch_prompt(serialize_batch(batch))
            outcome = await self._summarize(prompt, signal, on_progress)
        self._observe(prompt, outcome)
        return outcome

    def _observe(self, prompt: str, outcome: SummaryOutcome | None) -> None:
        self._answered = self._answered or outcome is not None
        if self._on_summary is not None and outcome is not None:
            self._on_summary(prompt, outcome.text)

    async def summarize_batches(self, batches: Sequence[Batch], signal: CancelSignal,
                                sequential: bool = False,
                                on_progress: BatchProgress | None = None) -> BatchSummaries:
        """One call per batch, results in batch order. Parallel by default; `/pruner now` runs them
        one after another so its progress rows fill in order. `on_progress` hears each batch stream
        ("running") and end ("done" or "failed"); an abort raises instead of reporting an end. A
        halting failure (see the module's docstring) leaves every batch not yet summarised at None."""
        shared = _FlushSignal(signal)

        async def one(index: int, batch: Batch) -> SummaryOutcome | None:
            if shared.is_halted():
                return None  # never started: no progress row
            try:
                outcome = await self.summarize_batch(
                    batch, shared, None if on_progress is None else lambda chars: on_progress(index, "running", chars))
            except SummarizerAborted:
                if signal.aborted or not shared.is_halted():
                    raise
                outcome = None  # abandoned because a sibling halted the flush
            if on_progress is not None:
                on_progress(index, "done" if outcome is not None else "failed", len(outcome.text) if outcome else 0)
            return outcome

        if sequential:
            outcomes = [await one(i, b) for i, b in enumerate(batches)]
            return BatchSummaries(outcomes, shared.halted)
        # an untried model's first call goes alone: a rejected key then costs one request, not one per batch
        first = [] if self._proven() or not batches else [await one(0, batches[0])]
        # every call runs to its end (an abort reaches each through the shared signal), then the
        # first exception in batch order wins, so no sibling is left running or unobserved
        rest = await asyncio.gather(*(one(i, b) for i, b in enumerate(batches) if i >= len(first)),
                                    return_exceptions=True)
        outcomes = list(first)
        for result in rest:
            if isinstance(result, BaseException):
                raise result
            outcomes.append(result)
        return BatchSummaries(outcomes, shared.halted)

    def _proven(self) -> bool:
        """Whether the summariser has written a summary in this session already (its key works)."""
        return self.config.summarizer_model == EXTRACTIVE_MODEL or self._answered

    async def summarize_range(self, summaries: Sequence[str], signal: CancelSignal,
                              on_usage: Callable[[SummaryOutcome], None] | None = None) -> str | None:
        """Fuse the per-batch summaries of one closed chain; `on_usage` lets the caller count the cost."""
        prompt = range_prompt(summaries)
        if self.config.summarizer_model == EXTRACTIVE_MODEL:
            outcome = self._extractive(extractive_range(summaries), signal, None)
        else:
            outcome = await self._summarize(prompt, signal, None)
        self._observe(prompt, outcome)
        if outcome is not None and on_usage is not None:
            on_usage(outcome)
        return None if outcome is None else outcome.text

    # ----- model choice -----

    def _warn_once(self, key: str, text: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            self.host.notify(text, "warning")

    def _primary_model(self, session: str | None) -> str | None:
        configured = self.config.summarizer_model
        if configured == DEFAULT_MODEL:
            return session
        if "/" in configured and self.host.has_model(configured):
            return configured
        self._warn_once(configured, f'pruner: summarizer model "{configured}" is not available; using the '
                                    f"session model {session or '(none)'}. Pick another with /pruner model.")
        return session

    def _thinking(self) -> str | None:
        level = self.config.summarizer_thinking
        return None if level in (DEFAULT_THINKING, "off") else level

    def _extractive(self, text: str, signal: CancelSignal,
                    on_progress: Progress | None) -> SummaryOutcome | None:
        if signal.aborted:
            raise SummarizerAborted("summarization aborted")
        if on_progress is not None:
            on_progress(len(text))
        return SummaryOutcome(text, dict(empty_usage()), EXTRACTIVE_MODEL) if text.strip() else None

    # ----- routing between the configured model and the session model -----

    async def _summarize(self, prompt: str, signal: CancelSignal,
                         on_progress: Progress | None) -> SummaryOutcome | None:
        if signal.aborted:
            raise SummarizerAborted("summarization aborted before it started")
        session = self.host.session_model()
        primary = self._primary_model(session)
        if primary is None:
            self.host.notify("pruner: summarization failed: no model is selected; choose one with /model "
                             "or set summarizer_model", "error")
            return None
        if not FallbackController.has_distinct_fallback(primary, session):
            return self._settle(await self._attempt(primary, prompt, signal, on_progress), signal)
        assert session is not None  # has_distinct_fallback checked it
        decision = self.fallback.choose_target()  # before any await: claims the probe slot
        if decision.target == "fallback":
            return await self._on_fallback(primary, session, prompt, signal, on_progress)
        first = await self._attempt(primary, prompt, signal, on_progress)
        if first.outcome is not None:
            if self.fallback.on_primary_success(decision.was_probe) == "recover":
                self.host.notify(f"pruner: summarizer model {primary} works again; using it from now on",
                                 "info")
            return first.outcome
        if not first.transient:
            return self._settle(first, signal)
        second = await self._attempt(session, prompt, signal, on_progress)
        if second.outcome is not None:
            if self.fallback.on_primary_fail_fallback_ok() == "enter":
                self._notify_enter(primary, session)
            return second.outcome
        if second.transient:
            self.fallback.on_both_down()
        return self._settle(second, signal)

    async def _on_fallback(self, primary: str, session: str, prompt: str, signal: CancelSignal,
                           on_progress: Progress | None) -> SummaryOutcome | None:
        attempt = await self._attempt(session, prompt, signal, on_progress)
        if attempt.outcome is not None:
            if self.fallback.on_fallback_success() == "enter":
                self._notify_enter(primary, session)
            return attempt.outcome
        if attempt.transient:
            self.fallback.on_fallback_only_fail()
        return self._settle(attempt, signal)

    def _notify_enter(self, primary: str, session: str) -> None:
        self.host.notify(f"pruner: summarizer model {primary} failing, using session model {session} "
                         "until it recovers", "warning")

    def _settle(self, attempt: _Attempt, signal: CancelSignal) -> SummaryOutcome | None:
        """The final word on a call: its summary, or None after telling the user why (if they should know).
        Within a flush, a halting failure stops the flush instead, which then says it once."""
        if attempt.outcome is not None:
            return attempt.outcome
        if attempt.failure in HALTING and isinstance(signal, _FlushSignal):
            signal.halt(f"{attempt.model}: {attempt.message}")  # the model at fault, not the session's
            return None
        if attempt.failure == "idle":
            self._say(f"pruner: summarizer {attempt.model} stalled (no output for "
                      f"{_seconds(self.config.summarizer_idle_timeout_ms)}); summarizer call abandoned", "warning",
                      signal)
        elif attempt.failure == "ceiling":
            self._say(f"pruner: summarizer {attempt.model} exceeded "
                      f"{_seconds(self.config.summarizer_max_timeout_ms)} ceiling; summarizer call abandoned",
                      "warning", signal)
        elif attempt.failure != "unusable":  # silent, as in the reference: the flush reports its failure
            self._say(f"pruner: summarization failed: {attempt.message}", "error", signal)
        return None

    def _say(self, text: str, level: Level, signal: CancelSignal) -> None:
        """A failure line, once per flush: a summariser that cannot be reached fails every batch of the
        flush alike, and the same line under each of them only buried the transcript."""
        if isinstance(signal, _FlushSignal):
            if text in signal.said:
                return
            signal.said.add(text)
        self.host.notify(text, level)

    # ----- one streamed call -----

    async def _attempt(self, model: str, prompt: str, signal: CancelSignal,
                       on_progress: Progress | None) -> _Attempt:
        call_signal = _CallSignal(signal)
        try:
            attempt = await self._stream(model, prompt, call_signal, on_progress)
        except SummarizerAborted:
            raise
        except Exception as error:  # a host that raises instead of yielding an `error` event
            if signal.aborted:
                raise SummarizerAborted("summarization aborted") from error
            attempt = _Attempt(model, failure="transient", message=str(error) or type(error).__name__)
        if signal.aborted:
            raise SummarizerAborted("summarization aborted")
        return attempt

    def _wait_limit(self, model: str, deadline: float | None) -> tuple[float | None, Failure]:
        """How long to wait for the next event, and which limit that wait stands for."""
        idle_ms = self.config.summarizer_idle_timeout_ms
        idle = idle_ms / 1000 if idle_ms > 0 and _streams(self.host, model) else None
        if deadline is None:
            return idle, "idle"
        left = max(0.0, deadline - asyncio.get_running_loop().time())
        return (idle, "idle") if idle is not None and idle < left else (left, "ceiling")

    async def _stream(self, model: str, prompt: str, call_signal: _CallSignal,
                      on_progress: Progress | None) -> _Attempt:
        ceiling_ms = self.config.summarizer_max_timeout_ms
        deadline = asyncio.get_running_loop().time() + ceiling_ms / 1000 if ceiling_ms > 0 else None
        events = aiter(self.host.complete(model, prompt, self._thinking(), call_signal))
        aborted, unsubscribe = _abort_future(call_signal.parent)
        received: list[str] = []
        chars = 0
        if on_progress is not None:
            on_progress(0)
        try:
            while True:
                wait, limit = self._wait_limit(model, deadline)
                event = await self._wait_event(events, wait, aborted)
                if event is None:  # nothing arrived in time, or the caller aborted
                    call_signal.expired = True
                    if call_signal.parent.aborted:
                        raise SummarizerAborted("summarization aborted")
                    return _Attempt(model, failure=limit)
                if event is _END:
                    message = f"{model} ended its stream without a reply"
                    return _Attempt(model, failure="transient", message=message)
                if event.type == "delta":
                    received.append(event.text)
                    chars += len(event.text)
                    if on_progress is not None:
                        on_progress(chars)
                elif event.type in ("done", "error"):
                    return self._finish(model, event, "".join(received))
        finally:
            unsubscribe()
            if aborted is not None:
                aborted.cancel()
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                with contextlib.suppress(Exception):
                    await aclose()

    @staticmethod
    async def _wait_event(events: AsyncIterator[CompletionEvent], wait: float | None,
                          aborted: asyncio.Future[None] | None) -> Any:
        """The next event, `_END`, or None when `wait` ran out or the caller aborted first."""
        pending = asyncio.ensure_future(_next_event(events))
        try:
            waiters = {pending} if aborted is None else {pending, aborted}
            await asyncio.wait(waiters, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
            return pending.result() if pending.done() else None
        finally:
            if not pending.done():
                pending.cancel()
                await asyncio.wait({pending})

    @staticmethod
    def _finish(model: str, event: CompletionEvent, received: str) -> _Attempt:
        if event.type == "error":
            failure: Failure = "transient" if event.error_kind == "transient" else (
                "auth" if event.error_kind == "auth" else "other")
            return _Attempt(model, failure=failure, message=event.text or "the summarizer call failed")
        if event.stop_reason in ("error", "aborted"):
            message = f"{model} stopped with reason {event.stop_reason}"
            return _Attempt(model, failure="transient", message=message)
        text = event.text or received
        if not is_usable_summary(text, event.stop_reason):
            return _Attempt(model, failure="unusable")
        return _Attempt(model, outcome=SummaryOutcome(text, event.usage, model))
