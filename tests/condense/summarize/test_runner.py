"""Scenarios of src/summarizer-wiring.test.ts: model routing, failure notices, fallback and timeouts of
`Summarizer`, driven through a scripted fake host (the host is the double; the summariser is real).

The configured model is PRIMARY, the session's model SESSION. Timeout tests use 20 ms limits against a
stream that never answers, so they only wait for the limit itself; no test asserts a duration.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from condense.host import CancelSignal, CompletionEvent, ContextUsage, Level
from condense.messages import AgentMessage
from condense.records import Batch, ToolCallRecord
from condense.summarize.fallback import COOLDOWN_MS
from condense.summarize.runner import Summarizer, SummarizerAborted
from tests.support.waiting import until

PRIMARY = "provider-a/primary-model"
SESSION = "provider-b/session-model"
USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}

Script = Callable[[str, CancelSignal], AsyncIterator[CompletionEvent]]


# ----- scripted streams -----


async def ok(text: str) -> AsyncIterator[CompletionEvent]:
    yield CompletionEvent("delta", text)
    yield CompletionEvent("done", text, stop_reason="stop", usage=USAGE)


async def err(message: str, kind: str = "transient") -> AsyncIterator[CompletionEvent]:
    yield CompletionEvent("error", message, error_kind=kind)  # type: ignore[arg-type]


async def hang() -> AsyncIterator[CompletionEvent]:
    await asyncio.Event().wait()  # never answers; only cancellation ends it
    yield CompletionEvent("done", "never")


async def drip(text: str, events: int, gap: float) -> AsyncIterator[CompletionEvent]:
    for _ in range(events):
        await asyncio.sleep(gap)  # the gap is the behaviour under test: a model that streams slowly
        yield CompletionEvent("thinking", "…")
    yield CompletionEvent("done", text, stop_reason="stop", usage=USAGE)


# ----- the fake host and friends -----


@dataclass
class Config:
    summarizer_model: str = "default"
    summarizer_thinking: str = "default"
    summarizer_idle_timeout_ms: int = 20_000
    summarizer_max_timeout_ms: int = 180_000


class Signal:
    def __init__(self, aborted: bool = False) -> None:
        self.aborted = aborted


class AbortableSignal(Signal):
    """Like pi-tui's AbortSignal: tells subscribers when it aborts."""

    def __init__(self) -> None:
        super().__init__()
        self._callbacks: list[Callable[[], None]] = []

    def abort(self) -> None:
        self.aborted = True
        for callback in self._callbacks:
            callback()

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback)


@dataclass
class FakeHost:
    script: Script
    session: str | None = SESSION
    known: set[str] = field(default_factory=lambda: {PRIMARY, SESSION})
    notes: list[tuple[str, Level]] = field(default_factory=list)
    calls: list[tuple[str, str, str | None]] = field(default_factory=list)

    def branch(self) -> list[dict[str, Any]]:
        return []

    def context_messages(self) -> list[AgentMessage]:
        return []

    def append_entry(self, custom_type: str, data: Any) -> None:
        raise AssertionError("the summariser never persists anything")

    async def append_custom_message(self, custom_type: str, content: str, display: bool, details: Any) -> None:
        raise AssertionError("the summariser never persists anything")

    def cwd(self) -> str | None:
        return None

    def blobs_dir(self) -> Path | None:
        return None

    def context_usage(self) -> ContextUsage | None:
        return None

    def session_model(self) -> str | None:
        return self.session

    def has_model(self, ref: str) -> bool:
        return ref in self.known

    def complete(self, model: str, prompt: str, thinking: str | None,
                 signal: CancelSignal) -> AsyncIterator[CompletionEvent]:
        self.calls.append((model, prompt, thinking))
        return self.script(model, signal)

    def notify(self, text: str, level: Level = "info") -> None:
        self.notes.append((text, level))

    def set_status(self, key: str, text: str | None) -> None:
        pass

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        pass

    def levels(self, level: Level) -> list[str]:
        return [text for text, lvl in self.notes if lvl == level]

    @property
    def models_called(self) -> list[str]:
        return [model for model, _, _ in self.calls]


def batch(result: str = "x" * 50, tool: str = "read", turn: int = 0) -> Batch:
    return Batch(turn, 0, "", [ToolCallRecord("t1", tool, {"path": "a.py"}, result, False, turn, 0)])


def by_model(primary: Callable[[], AsyncIterator[CompletionEvent]],
             session: Callable[[], AsyncIterator[CompletionEvent]]) -> Script:
    return lambda model, _signal: primary() if model == PRIMARY else session()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


DISTINCT = Config(summarizer_model=PRIMARY)


# ----- the reference scenarios -----


async def test_summarizer_model_default_transient_failure_notifies_error_returns_none_controller_untouched(
) -> None:
    host = FakeHost(lambda _m, _s: err("provider overloaded"))
    summarizer = Summarizer(host, Config(summarizer_model="default"))
    assert await summarizer.summarize_batch(batch(), Signal()) is None
    assert summarizer.fallback.in_fallback is False
    assert len(host.notes) == 1
    text, level = host.notes[0]
    assert level == "error"
    assert "provider overloaded" in text
    assert host.models_called == [SESSION]


async def test_primary_transient_fallback_ok_returns_summary_one_warning_no_error_notify_sticky() -> None:
    host = FakeHost(by_model(lambda: err("down"), lambda: ok("- fallback summary")))
    summarizer = Summarizer(host, DISTINCT)
    outcome = await summarizer.summarize_batch(batch(), Signal())
    assert outcome is not None
    assert outcome.text == "- fallback summary"
    assert outcome.model == SESSION
    assert summarizer.fallback.in_fallback is True
    warnings = host.levels("warning")
    assert len(warnings) == 1
    assert PRIMARY in warnings[0] and SESSION in warnings[0]
    assert host.levels("error") == []


async def test_steady_state_after_enter_routes_to_the_session_model_only_no_primary_call_no_notify() -> None:
    host = FakeHost(by_model(lambda: err("down"), lambda: ok("- ok")))
    summarizer = Summarizer(host, DISTINCT, clock=Clock())  # the clock never reaches the cooldown
    await summarizer.summarize_batch(batch(), Signal())  # enter
    host.calls.clear()
    host.notes.clear()
    outcome = await summarizer.summarize_batch(batch(), Signal())
    assert outcome is not None and outcome.text == "- ok"
    assert host.models_called == [SESSION]
    assert host.notes == []


async def test_primary_and_fallback_both_transient_null_error_notify_enters_fallback_with_owed_warning(
) -> None:
    host = FakeHost(lambda _m, _s: err("everything down"))
    summarizer = Summarizer(host, DISTINCT, clock=Clock())
    assert await summarizer.summarize_batch(batch(), Signal()) is None
    assert summarizer.fallback.in_fallback is True
    assert host.levels("warning") == []  # owed, not yet shown
    assert len(host.levels("error")) == 1

    host.script = by_model(lambda: err("still down"), lambda: ok("- rescued"))
    host.notes.clear()
    outcome = await summarizer.summarize_batch(batch(), Signal())
    assert outcome is not None and outcome.text == "- rescued"
    assert len(host.levels("warning")) == 1


async def test_re_throws_when_the_signal_is_already_aborted() -> None:
    host = FakeHost(lambda _m, _s: ok("- never"))
    with pytest.raises(SummarizerAborted):
        await Summarizer(host, DISTINCT).summarize_batch(batch(), Signal(aborted=True))
    assert host.calls == []


async def test_idle_timeout_default_model_transient_warning_returns_null() -> None:
    host = FakeHost(lambda _m, _s: hang())
    config = Config(summarizer_idle_timeout_ms=20, summarizer_max_timeout_ms=0)
    assert await Summarizer(host, config).summarize_batch(batch(), Signal()) is None
    warnings = host.levels("warning")
    assert len(warnings) == 1
    assert "stalled" in warnings[0] and SESSION in warnings[0]
    assert host.levels("error") == []


async def test_ceiling_timeout_idle_disabled_transient_warning_mentioning_ceiling() -> None:
    host = FakeHost(lambda _m, _s: hang())
    config = Config(summarizer_idle_timeout_ms=0, summarizer_max_timeout_ms=20)
    assert await Summarizer(host, config).summarize_batch(batch(), Signal()) is None
    warnings = host.levels("warning")
    assert len(warnings) == 1
    assert "ceiling" in warnings[0]


async def test_option_b_primary_idle_times_out_session_model_rescues() -> None:
    host = FakeHost(by_model(hang, lambda: ok("- rescued")))
    summarizer = Summarizer(host, Config(summarizer_model=PRIMARY, summarizer_idle_timeout_ms=20))
    outcome = await summarizer.summarize_batch(batch(), Signal())
    assert outcome is not None and outcome.text == "- rescued"
    assert summarizer.fallback.in_fallback is True
    assert len(host.levels("warning")) == 1  # the "using session model" notice, not a stall notice
    assert "stalled" not in host.levels("warning")[0]
    assert host.levels("error") == []


async def test_both_time_out_null_both_down_notice_at_warning_severity() -> None:
    host = FakeHost(lambda _m, _s: hang())
    summarizer = Summarizer(host, Config(summarizer_model=PRIMARY, summarizer_idle_timeout_ms=20))
    assert await summarizer.summarize_batch(batch(), Signal()) is None
    assert len(host.levels("warning")) == 1
    assert host.levels("error") == []
    assert host.models_called == [PRIMARY, SESSION]


async def test_pre_aborted_signal_is_not_a_timeout_throws_no_warning() -> None:
    host = FakeHost(lambda _m, _s: hang())
    summarizer = Summarizer(host, Config(summarizer_model=PRIMARY, summarizer_idle_timeout_ms=20))
    with pytest.raises(SummarizerAborted):
        await summarizer.summarize_batch(batch(), Signal(aborted=True))
    assert host.levels("warning") == []


async def test_both_timeouts_disabled_ok_stream_succeeds_unchanged() -> None:
    host = FakeHost(lambda _m, _s: ok("- ok"))
    config = Config(summarizer_idle_timeout_ms=0, summarizer_max_timeout_ms=0)
    outcome = await Summarizer(host, config).summarize_batch(batch(), Signal())
    assert outcome is not None
    assert (outcome.text, outcome.usage, outcome.model) == ("- ok", USAGE, SESSION)
    assert host.notes == []


async def test_does_not_time_out_while_events_keep_arriving_within_the_idle_window() -> None:
    # 15 events 30 ms apart outlast the 300 ms idle window several times over, so this only
    # passes when every event (thinking included) restarts the idle timer
    host = FakeHost(lambda _m, _s: drip("- flowing summary", 15, 0.03))
    config = Config(summarizer_idle_timeout_ms=300, summarizer_max_timeout_ms=0)
    outcome = await Summarizer(host, config).summarize_batch(batch(), Signal())
    assert outcome is not None and outcome.text == "- flowing summary"
    assert host.levels("warning") == []


# ----- beyond the reference: model choice, failure kinds, probes, batches, ranges, progress -----


async def test_an_unknown_summarizer_model_warns_once_and_uses_the_session_model() -> None:
    host = FakeHost(lambda _m, _s: ok("- ok"), known={SESSION})
    summarizer = Summarizer(host, Config(summarizer_model="provider-x/gone"))
    for _ in range(2):
        outcome = await summarizer.summarize_batch(batch(), Signal())
        assert outcome is not None and outcome.model == SESSION
    warnings = host.levels("warning")
    assert len(warnings) == 1 and "provider-x/gone" in warnings[0]
    summarizer.reset()  # a new session warns again
    await summarizer.summarize_batch(batch(), Signal())
    assert len(host.levels("warning")) == 2


async def test_a_model_without_provider_prefix_is_not_looked_up() -> None:
    host = FakeHost(lambda _m, _s: ok("- ok"), known={SESSION, "bare-id"})
    outcome = await Summarizer(host, Config(summarizer_model="bare-id")).summarize_batch(batch(), Signal())
    assert outcome is not None and outcome.model == SESSION
    assert len(host.levels("warning")) == 1


async def test_no_session_model_fails_with_one_error_line() -> None:
    host = FakeHost(lambda _m, _s: ok("- ok"), session=None)
    assert await Summarizer(host, Config()).summarize_batch(batch(), Signal()) is None
    assert host.calls == []
    assert len(host.levels("error")) == 1 and "\n" not in host.levels("error")[0]


@pytest.mark.parametrize(("level", "sent"), [("default", None), ("off", None), ("high", "high")])
async def test_thinking_level_is_sent_only_when_one_is_chosen(level: str, sent: str | None) -> None:
    host = FakeHost(lambda _m, _s: ok("- ok"))
    await Summarizer(host, Config(summarizer_thinking=level)).summarize_batch(batch(), Signal())
    assert host.calls[0][2] == sent


async def test_the_prompt_carries_the_instructions_and_the_labelled_batch() -> None:
    host = FakeHost(lambda _m, _s: ok("- ok"))
    await Summarizer(host, Config()).summarize_batch(batch("hello"), Signal())
    prompt = host.calls[0][1]
    assert "<tool-call-batch>\n[[1:read]] Tool: read(" in prompt
    assert prompt.endswith("Result (OK): hello\n</tool-call-batch>")


async def test_the_extractive_model_never_calls_the_host() -> None:
    host = FakeHost(lambda _m, _s: ok("- never"))
    summarizer = Summarizer(host, Config(summarizer_model="extractive"))
    outcome = await summarizer.summarize_batch(batch("line one\nline two"), Signal())
    assert outcome is not None
    assert outcome.model == "extractive"
    assert outcome.text.startswith("- [[1:read]] read `a.py`:")
    fused = await summarizer.summarize_range(["- `t1` read a.py", "- `t2` ran ls"], Signal())
    assert fused == "- `t1` read a.py\n- `t2` ran ls"
    assert host.calls == [] and host.notes == []


@pytest.mark.parametrize("answer", [
    CompletionEvent("done", "   ", stop_reason="stop"),
    CompletionEvent("done", "- cut off mid", stop_reason="length"),
])
async def test_an_unusable_answer_returns_none_silently_and_never_trips_the_fallback(
        answer: CompletionEvent) -> None:
    async def stream() -> AsyncIterator[CompletionEvent]:
        yield answer

    host = FakeHost(lambda _m, _s: stream())
    summarizer = Summarizer(host, DISTINCT)
    assert await summarizer.summarize_batch(batch(), Signal()) is None
    assert host.models_called == [PRIMARY]
    assert summarizer.fallback.in_fallback is False
    assert host.notes == []


async def test_an_auth_failure_is_reported_and_never_trips_the_fallback() -> None:
    host = FakeHost(by_model(lambda: err("invalid x-api-key", "auth"), lambda: ok("- ok")))
    summarizer = Summarizer(host, DISTINCT)
    assert await summarizer.summarize_batch(batch(), Signal()) is None
    assert host.models_called == [PRIMARY]
    assert summarizer.fallback.in_fallback is False
    assert host.levels("error") == ["pruner: summarization failed: invalid x-api-key"]


async def test_a_done_with_stop_reason_error_is_transient() -> None:
    async def broken() -> AsyncIterator[CompletionEvent]:
        yield CompletionEvent("done", "", stop_reason="error")

    host = FakeHost(by_model(broken, lambda: ok("- ok")))
    summarizer = Summarizer(host, DISTINCT)
    outcome = await summarizer.summarize_batch(batch(), Signal())
    assert outcome is not None and outcome.model == SESSION
    assert summarizer.fallback.in_fallback is True


async def test_a_host_that_raises_counts_as_a_transient_failure() -> None:
    async def explode() -> AsyncIterator[CompletionEvent]:
        raise ConnectionError("connection reset")
        yield CompletionEvent("done")  # type: ignore[unreachable]  # pragma: no cover - makes this an async generator

    host = FakeHost(lambda _m, _s: explode())
    assert await Summarizer(host, Config()).summarize_batch(batch(), Signal()) is None
    assert host.levels("error") == ["pruner: summarization failed: connection reset"]


async def test_a_summariser_that_fails_every_batch_of_a_flush_is_said_once() -> None:
    """An unreachable summariser fails each batch alike: one line for the flush, not one per batch."""
    async def explode() -> AsyncIterator[CompletionEvent]:
        raise ConnectionError("cannot connect to http://127.0.0.1:9/v1")
        yield CompletionEvent("done")  # type: ignore[unreachable]  # pragma: no cover - makes this an async generator

    host = FakeHost(lambda _m, _s: explode())
    summarizer = Summarizer(host, Config())
    outcomes = (await summarizer.summarize_batches([batch(), batch(), batch()], Signal())).outcomes
    assert outcomes == [None, None, None]
    assert host.levels("error") == ["pruner: summarization failed: cannot connect to http://127.0.0.1:9/v1"]
    await summarizer.summarize_batches([batch()], Signal())
    assert len(host.levels("error")) == 2, "the next flush says it again"


async def test_the_probe_after_the_cooldown_recovers_the_primary_with_one_info_notice() -> None:
    clock = Clock()
    host = FakeHost(by_model(lambda: err("down"), lambda: ok("- ok")))
    summarizer = Summarizer(host, DISTINCT, clock=clock)
    await summarizer.summarize_batch(batch(), Signal())  # enter
    host.script = by_model(lambda: ok("- primary back"), lambda: ok("- session"))
    host.calls.clear()
    host.notes.clear()
    clock.now = COOLDOWN_MS
    outcomes = (await summarizer.summarize_batches([batch(), batch()], Signal())).outcomes
    # one call probes the primary, its sibling stays on the session model
    assert sorted(o.model for o in outcomes if o) == [PRIMARY, SESSION]
    assert summarizer.fallback.in_fallback is False
    assert [level for _, level in host.notes] == ["info"]


async def test_summarize_batches_keeps_batch_order_and_reports_progress_per_batch() -> None:
    async def slow_then(text: str, delay: float) -> AsyncIterator[CompletionEvent]:
        await asyncio.sleep(delay)  # the first batch answers last: the order must still be the batches'
        async for event in ok(text):
            yield event

    replies = iter([slow_then("- first", 0.05), slow_then("- second", 0), err("down")])
    host = FakeHost(lambda _m, _s: next(replies))
    progress: list[tuple[int, str, int]] = []
    result = await Summarizer(host, Config()).summarize_batches(
        [batch(), batch(), batch()], Signal(), on_progress=lambda *event: progress.append(event))
    outcomes = result.outcomes
    assert result.halted is None  # a transient failure does not stop the others
    assert [o.text if o else None for o in outcomes] == ["- first", "- second", None]
    def of(index: int) -> list[tuple[str, int]]:
        return [(state, chars) for i, state, chars in progress if i == index]

    assert of(0) == [("running", 0), ("running", 7), ("done", 7)]
    assert of(1) == [("running", 0), ("running", 8), ("done", 8)]
    assert of(2) == [("running", 0), ("failed", 0)]


async def test_sequential_batches_run_one_after_another() -> None:
    running: list[int] = []
    peak = 0

    async def tracked(text: str) -> AsyncIterator[CompletionEvent]:
        nonlocal peak
        running.append(1)
        peak = max(peak, len(running))
        await asyncio.sleep(0.01)  # a batch that takes a moment, so two running at once would show in `peak`
        running.pop()
        async for event in ok(text):
            yield event

    host = FakeHost(lambda _m, _s: tracked("- s"))
    result = await Summarizer(host, Config()).summarize_batches([batch(), batch(), batch()], Signal(),
                                                                sequential=True)
    assert len([o for o in result.outcomes if o]) == 3
    assert peak == 1


async def test_an_auth_failure_halts_a_sequential_flush_at_its_first_batch_without_a_notice() -> None:
    host = FakeHost(lambda _m, _s: err("no API key for provider-b: set PROVIDER_B_API_KEY", "auth"))
    progress: list[tuple[int, str, int]] = []
    result = await Summarizer(host, Config()).summarize_batches(
        [batch(), batch(), batch()], Signal(), sequential=True, on_progress=lambda *event: progress.append(event))
    assert len(host.calls) == 1  # the other batches would fail the same way: never sent
    assert result.outcomes == [None, None, None]
    assert result.halted == f"{SESSION}: no API key for provider-b: set PROVIDER_B_API_KEY"  # names the model
    assert host.notes == []  # the flush says it, once
    assert [i for i, _, _ in progress] == [0, 0]  # one row, running then failed; the others never started


async def test_an_auth_failure_abandons_the_parallel_calls_still_streaming() -> None:
    streams = iter([err("Authentication or model error (HTTP 401): bad key", "auth"), hang(), hang()])
    host = FakeHost(lambda _m, _s: next(streams))
    summarizer = Summarizer(host, Config(summarizer_idle_timeout_ms=0, summarizer_max_timeout_ms=0))
    result = await asyncio.wait_for(summarizer.summarize_batches([batch(), batch(), batch()], Signal()),
                                    timeout=10)  # a safety net: without the halt the hanging calls never end
    assert result.outcomes == [None, None, None]
    assert result.halted == f"{SESSION}: Authentication or model error (HTTP 401): bad key"
    assert host.notes == []


async def test_a_parallel_flush_sends_its_first_call_alone_until_the_summariser_has_answered() -> None:
    host = FakeHost(lambda _m, _s: err("Authentication or model error (HTTP 401): bad key", "auth"))
    summarizer = Summarizer(host, Config())
    result = await summarizer.summarize_batches([batch(), batch(), batch()], Signal())
    assert len(host.calls) == 1 and result.halted is not None  # a rejected key costs one request
    host.script = lambda _m, _s: ok("- s")
    host.calls.clear()
    assert all((await summarizer.summarize_batches([batch(), batch(), batch()], Signal())).outcomes)
    assert len(host.calls) == 3


async def test_a_single_call_outside_a_flush_still_reports_an_auth_failure() -> None:
    host = FakeHost(lambda _m, _s: err("bad key", "auth"))
    assert await Summarizer(host, Config()).summarize_batch(batch(), Signal()) is None
    assert host.levels("error") == ["pruner: summarization failed: bad key"]


async def test_an_abort_during_a_stream_raises_without_waiting_for_the_stream() -> None:
    streams = iter([ok("- s")])
    host = FakeHost(lambda _m, _s: next(streams, None) or hang())
    signal = AbortableSignal()
    summarizer = Summarizer(host, Config(summarizer_idle_timeout_ms=0, summarizer_max_timeout_ms=0))
    await summarizer.summarize_batch(batch(), signal)  # the model answered once: a flush's calls run in parallel
    host.calls.clear()
    call = asyncio.ensure_future(summarizer.summarize_batches([batch(), batch()], signal))
    await until(lambda: len(host.calls) >= 2, "both batches to call the model")
    signal.abort()
    with pytest.raises(SummarizerAborted):
        await asyncio.wait_for(call, timeout=10)  # a safety net: without the abort this never ends
    assert host.notes == []


async def test_the_host_sees_the_call_aborted_once_the_summariser_gives_up() -> None:
    seen: list[CancelSignal] = []

    def script(_model: str, signal: CancelSignal) -> AsyncIterator[CompletionEvent]:
        seen.append(signal)
        return hang()

    host = FakeHost(script)
    config = Config(summarizer_idle_timeout_ms=20, summarizer_max_timeout_ms=0)
    assert await Summarizer(host, config).summarize_batch(batch(), Signal()) is None
    assert seen[0].aborted is True


async def test_summarize_range_sends_the_range_prompt_and_reports_usage() -> None:
    host = FakeHost(lambda _m, _s: ok("fused `t1` `t2`"))
    usages: list[dict[str, Any]] = []
    fused = await Summarizer(host, Config()).summarize_range(
        ["- `t1` a", "- `t2` b"], Signal(), on_usage=lambda outcome: usages.append(outcome.usage))
    assert fused == "fused `t1` `t2`"
    assert usages == [USAGE]
    assert host.calls[0][1].endswith("<sub-task-summaries>\n- `t1` a\n\n- `t2` b\n</sub-task-summaries>")
