"""The cost simulator: prices, Anthropic's cache rule (breakpoints, lookback, TTL), the prefix cache,
the miss-rate expectation, the baselines (masking, Pi's compaction, Anthropic's context editing,
OpenHands' condenser), honest ratios, recovery checks, and how strategies rank on a small session."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from condense.paging import Page, page_text
from condense.simulate import (
    CLEARED_RESULT,
    AnthropicCache,
    CharEncoder,
    ClearToolUses,
    ContextEditing,
    Meter,
    MissRate,
    ObservationMasking,
    PiCompaction,
    PrefixCache,
    PriceTable,
    Prompt,
    RecordedRequest,
    Recovery,
    SessionReport,
    StrategySimulation,
    SummarizingCondenser,
    calibrate,
    check_recovery,
    condense_config,
    format_report,
    mask_placeholder,
    min_cacheable_tokens,
    model_summary_tokens,
    observed_miss_rate,
    plot_svg,
    recorded_requests,
    returns_original,
    with_ratios,
)
from condense.simulate.baselines import COMPACTION_SUMMARY_CHARS

MINUTE = 60_000
PRICES = PriceTable.from_prices("test-model", input_price=1.0, output_price=5.0)


def user(text: str, ts: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def call(call_id: str, ts: int, name: str = "bash", usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "toolCall", "id": call_id, "name": name,
                                               "arguments": {"command": f"run {call_id}"}}],
            "provider": "anthropic", "model": "test-model", "api": "anthropic-messages",
            "usage": usage or _usage(), "stopReason": "toolUse", "timestamp": ts}


def reply(text: str, ts: int, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "anthropic",
            "model": "test-model", "api": "anthropic-messages", "usage": usage or _usage(),
            "stopReason": "stop", "timestamp": ts}


def result(call_id: str, text: str, ts: int, name: str = "bash") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": ts}


def _usage(prompt: int = 100, cache_read: int = 50, output: int = 10, cost: float = 0.01) -> dict[str, Any]:
    return {"input": prompt - cache_read, "output": output, "cacheRead": cache_read, "cacheWrite": 0,
            "totalTokens": prompt + output, "cost": {"total": cost}}


def prompt_of(meter: Meter, *texts: str) -> Prompt:
    return meter.prompt([user(t, 0) for t in texts])


# ----- prices ---------------------------------------------------------------------------------------

def test_missing_cache_prices_default_to_a_tenth_and_five_quarters_of_the_input_price() -> None:
    table = PriceTable.from_prices("m", input_price=4e-6, output_price=2e-5)
    assert table.cache_read == pytest.approx(4e-7)
    assert table.cache_write == pytest.approx(5e-6)
    explicit = PriceTable.from_prices("m", 4e-6, 2e-5, cache_read=1e-7, cache_write=4e-6)
    assert (explicit.cache_read, explicit.cache_write) == (1e-7, 4e-6)


def test_request_cost_adds_cached_written_plain_and_output_tokens_at_their_prices() -> None:
    assert PRICES.cost(cached=1000, written=200, output=30) == pytest.approx(1000 * 0.1 + 200 * 1.25 + 30 * 5)
    assert PRICES.cost(cached=0, written=0, output=0, plain=10) == pytest.approx(10 * 1.0)


def test_one_hour_cache_entries_are_written_at_twice_the_input_price() -> None:
    table = PriceTable.from_prices("m", input_price=3e-6, output_price=1.5e-5).with_one_hour_writes()
    assert table.cache_write == pytest.approx(6e-6) and table.cache_read == pytest.approx(3e-7)


# ----- Anthropic's cache rule -----------------------------------------------------------------------

def turns(count: int, start: int = 0) -> list[dict[str, Any]]:
    """`count` tool turns: a call and its result, two blocks each."""
    return [m for n in range(start, start + count) for m in (call(f"c{n}", n), result(f"c{n}", f"out {n}", n))]


def test_breakpoints_sit_on_the_system_prompt_and_the_newest_user_or_tool_message() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=10)
    history = [user("go", 0), *turns(2), reply("done", 9)]
    assert meter.prompt(history).breakpoints == (1, 1 + 5)
    assert meter.prompt(history, system=False).breakpoints == (5,)
    assert meter.text_prompt("summarise this").breakpoints == (1,)


def test_anthropic_a_request_reads_what_an_earlier_one_wrote_at_its_breakpoint() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=10)
    cache = AnthropicCache()
    first = meter.prompt([user("go", 0), *turns(3)])
    second = meter.prompt([user("go", 0), *turns(4)])
    assert cache.send(first, 0).cached == 0
    read = cache.send(second, MINUTE)
    assert read.cached == first.tokens and not read.bust
    assert read.written == second.tokens - first.tokens


def test_anthropic_the_lookback_reaches_20_blocks_back_from_a_breakpoint_and_no_further() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=10)
    base = [user("go", 0), *turns(1)]
    for added_turns, reads_base in ((10, True), (11, False)):  # two blocks a turn
        cache = AnthropicCache()
        cache.send(meter.prompt(base), 0)
        grown = meter.prompt([*base, *turns(added_turns, start=1)])
        read = cache.send(grown, MINUTE)
        assert read.cached == (meter.prompt(base).tokens if reads_base else meter.system.tokens)
        assert read.bust is not reads_base


def test_anthropic_a_rewrite_far_back_reads_only_the_system_prompt_where_a_prefix_cache_reads_up_to_it() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=10)
    history = [user("go", 0), *turns(30)]
    rewritten = [*history[:3], {**history[3], "content": [{"type": "text", "text": "stub"}]}, *history[4:],
                 *turns(1, start=30)]
    anthropic, prefix = AnthropicCache(), PrefixCache(1.0)
    for cache in (anthropic, prefix):
        cache.send(meter.prompt(history), 0)
    assert anthropic.send(meter.prompt(rewritten), MINUTE).cached == meter.system.tokens
    assert prefix.send(meter.prompt(rewritten), MINUTE).cached >= meter.prompt(history[:3]).tokens


def test_anthropic_entries_expire_after_the_ttl_unless_a_read_refreshed_them() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=10)
    first = meter.prompt([user("go", 0), *turns(1)])
    second = meter.prompt([user("go", 0), *turns(2)])
    refreshed = AnthropicCache(ttl_ms=5 * MINUTE)
    refreshed.send(first, 0)
    refreshed.send(second, 4 * MINUTE)  # reads `first`'s entry: refreshed until minute 9
    assert refreshed.send(first, 8 * MINUTE).cached == first.tokens
    lapsed = AnthropicCache(ttl_ms=5 * MINUTE)
    lapsed.send(first, 0)
    late = lapsed.send(second, 5 * MINUTE)
    assert late.cached == 0 and late.expired and not late.bust


def test_anthropic_tokens_after_the_last_breakpoint_are_plain_input() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=10)
    prompt = meter.prompt([user("go", 0), reply("thinking aloud", 1)])
    read = AnthropicCache().send(prompt, 0)
    assert read.written == meter.prompt([user("go", 0)]).tokens
    sim = StrategySimulation("s", 1.0, miss_rate=0.0)
    outcome = sim.request(prompt, RecordedRequest(0, 0, "m", 0, 0, 0, 0.0, False), PRICES)
    plain = prompt.tokens - read.written
    assert outcome.cost == pytest.approx(read.written * 1.25 + plain * 1.0)


def test_anthropic_a_prefix_under_the_models_minimum_is_not_cached_and_costs_plain_input() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=10)
    short = meter.prompt([user("go", 0), *turns(1)])
    longer = meter.prompt([user("go", 0), *turns(2)])
    cache = AnthropicCache(min_tokens=longer.tokens)
    first = cache.send(short, 0)
    assert (first.cached, first.written) == (0, 0), "too short to cache: all of it plain input"
    second = cache.send(longer, MINUTE)
    assert (second.cached, second.written) == (0, longer.tokens), "nothing to read; long enough to write"
    assert cache.send(longer, 2 * MINUTE).cached == longer.tokens


def test_the_minimum_cacheable_length_follows_anthropics_table() -> None:
    assert min_cacheable_tokens("claude-opus-4-5-20251101") == 4096
    assert min_cacheable_tokens("anthropic/claude-haiku-4-5") == 4096
    assert min_cacheable_tokens("claude-sonnet-4-6") == 2048
    assert min_cacheable_tokens("claude-3-5-haiku-20241022") == 2048
    assert min_cacheable_tokens("claude-sonnet-4-5") == 1024
    assert min_cacheable_tokens("claude-opus-4-1") == 1024


# ----- the prefix cache -----------------------------------------------------------------------------

def test_a_request_reads_its_common_prefix_with_the_previous_one_from_the_cache() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=10)
    cache = PrefixCache(meter.units_per_token)
    first = prompt_of(meter, "a" * 100)
    second = prompt_of(meter, "a" * 100, "b" * 50)
    assert cache.send(first, 0).cached == 0
    read = cache.send(second, MINUTE)
    assert read.cached == first.tokens == 10 + len("user\n") + 100
    assert not read.bust


def test_the_cache_is_cold_once_the_ttl_has_passed() -> None:
    meter = Meter(CharEncoder(1.0))
    cache = PrefixCache(meter.units_per_token, ttl_ms=5 * MINUTE)
    prompt = prompt_of(meter, "same text")
    cache.send(prompt, 0)
    just_in_time = cache.send(prompt, 5 * MINUTE - 1)
    too_late = cache.send(prompt, 10 * MINUTE - 1 + 5 * MINUTE)
    assert just_in_time.cached == prompt.tokens and not just_in_time.expired
    assert too_late.cached == 0 and too_late.expired and not too_late.bust


def test_rewriting_a_message_the_previous_request_carried_is_a_bust_at_the_changed_token() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    cache = PrefixCache(meter.units_per_token)
    cache.send(prompt_of(meter, "first message", "x" * 40 + "tail"), 0)
    read = cache.send(prompt_of(meter, "first message", "x" * 40 + "TAIL", "new"), 1000)
    assert read.bust
    assert read.cached == len("user\nfirst message") + len("user\n") + 40


def test_character_units_convert_to_tokens_at_the_encoder_rate() -> None:
    meter = Meter(CharEncoder(3.0), system_tokens=1600)
    prompt = prompt_of(meter, "y" * 295)
    assert meter.system.tokens == 1600
    assert prompt.tokens == pytest.approx(1600 + 300 / 3)


def test_the_meter_keeps_one_segment_per_distinct_text() -> None:
    meter = Meter(CharEncoder())
    one, two = user("hello", 1), user("hello", 2)
    assert meter.segment(one) is meter.segment(two)
    assert meter.segment(one) is not meter.segment(user("other", 1))


# ----- what the recording says, and the miss-rate expectation ---------------------------------------

def _recording() -> list[dict[str, Any]]:
    return [
        user("go", 0),
        call("c1", 1, usage=_usage(cache_read=0)),  # the session's first request: not counted
        result("c1", "out", 2),
        reply("done", 3, usage=_usage(cache_read=90)),
        user("again", 4),
        reply("aborted", 5, usage={"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": {}}),
        reply("ok", 6, usage=_usage(cache_read=0)),  # first billed after "again": a full miss
        user("third", 7),
        reply("ok", 8, usage=_usage(cache_read=70)),  # first after "third": a hit
    ]


def test_recorded_requests_mark_the_first_billed_request_after_each_user_message() -> None:
    requests = recorded_requests(_recording())
    assert [r.first_after_user for r in requests] == [True, False, True, True, True]
    assert [r.billed for r in requests] == [True, True, False, True, True]
    assert requests[0].prompt_tokens == 100 and requests[0].output_tokens == 10


def test_the_observed_miss_rate_counts_full_misses_among_first_requests_after_a_user_message() -> None:
    miss = observed_miss_rate(recorded_requests(_recording()))
    assert (miss.misses, miss.firsts) == (1, 2)
    assert miss.rate == 0.5
    assert MissRate(misses=0, firsts=0).rate == 0.0


def test_a_first_request_after_a_user_message_is_priced_in_expectation_with_the_miss_rate() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    base = prompt_of(meter, "p" * 1000)
    grown = prompt_of(meter, "p" * 1000, "new question")
    cost: dict[float, float] = {}
    for rate in (0.0, 0.25, 1.0):
        sim = StrategySimulation("s", 1.0, miss_rate=rate)
        sim.request(base, RecordedRequest(0, 0, "m", 0, 0, 0, 0.0, True), PRICES)
        cost[rate] = sim.request(grown, RecordedRequest(1, 1000, "m", 0, 0, 0, 0.0, True), PRICES).cost
    hit = PRICES.cost(base.tokens, grown.tokens - base.tokens, 0)
    miss = PRICES.cost(0, grown.tokens, 0)
    assert (cost[0.0], cost[1.0]) == (pytest.approx(hit), pytest.approx(miss))  # type: ignore[comparison-overlap]  # approx equals floats
    assert cost[0.25] == pytest.approx(0.75 * hit + 0.25 * miss)


def test_requests_after_tool_results_are_never_expected_to_miss() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    sim = StrategySimulation("s", 1.0, miss_rate=1.0)
    sim.request(prompt_of(meter, "a" * 500), RecordedRequest(0, 0, "m", 0, 0, 0, 0.0, True), PRICES)
    after_tools = RecordedRequest(1, 9, "m", 0, 0, 0, 0.0, False)
    outcome = sim.request(prompt_of(meter, "a" * 500, "b"), after_tools, PRICES)
    assert outcome.cached == len("user\n") + 500


def test_calibration_reports_relative_errors_of_totals_and_per_request() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    sim = StrategySimulation("recorded", 1.0, miss_rate=0.0)
    recorded = [RecordedRequest(0, 0, "m", 0, 110, 0, 1.0, True),
                RecordedRequest(1, 1, "m", 0, 90, 0, 1.0, False)]
    sim.request(prompt_of(meter, "z" * 95), recorded[0], PRICES)  # 100 tokens
    sim.request(prompt_of(meter, "z" * 95), recorded[1], PRICES)
    calibration = calibrate(sim.outcomes, recorded, MissRate(misses=0, firsts=0))
    assert calibration.prompt_tokens_error == pytest.approx(0.0)
    assert calibration.mean_abs_prompt_error == pytest.approx((10 / 110 + 10 / 90) / 2)
    assert calibration.recorded_cost == 2.0


# ----- the baselines --------------------------------------------------------------------------------

def test_masking_keeps_the_last_ten_outputs_and_replaces_older_ones_with_a_placeholder() -> None:
    history: list[dict[str, Any]] = []
    for n in range(12):
        history += [call(f"c{n}", n * 10), result(f"c{n}", f"output {n}", n * 10 + 1)]
    masking = ObservationMasking()
    masked = masking.apply(history)
    texts = [m["content"][0]["text"] for m in masked if m["role"] == "toolResult"]
    assert texts[:2] == ["[Output of bash omitted; call c0]", "[Output of bash omitted; call c1]"]
    assert texts[2:] == [f"output {n}" for n in range(2, 12)]
    assert masking.apply(history)[1] is masked[1], "a masked copy is made once"
    assert masking.apply(history[:20]) is not history[:20] and masking.apply(history[:4]) == history[:4]
    assert mask_placeholder(history[1]) == "[Output of bash omitted; call c0]"


class _Counted(dict[str, Any]):
    """A message that counts how often it is read."""

    reads = 0

    def get(self, key: str, default: Any = None) -> Any:
        _Counted.reads += 1
        return super().get(key, default)


def test_masking_a_growing_history_reads_only_its_new_messages_and_masks_as_from_scratch() -> None:
    """Applied before every request, masking walks what the history gained since the last request (the
    whole history each time made a request's price grow with the session), and gives what masking that
    history from scratch gives; a history that changed other than by growing is masked from scratch."""
    history: list[dict[str, Any]] = []
    for n in range(200):
        history += [_Counted(call(f"c{n}", n * 10)), _Counted(result(f"c{n}", f"output {n}", n * 10 + 1))]
    masking = ObservationMasking()
    _Counted.reads = 0
    masked = [masking.apply(history[:end]) for end in range(len(history) + 1)]
    assert _Counted.reads <= 2 * len(history)  # its role, and a masked output's name and id once
    assert masked == [ObservationMasking().apply(history[:end]) for end in range(len(history) + 1)]
    rewritten = [history[0], call("other", 5), *history[2:30]]
    assert masking.apply(rewritten) == ObservationMasking().apply(rewritten)


def test_pi_compaction_folds_old_messages_near_the_window_and_never_cuts_at_a_tool_result() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    compaction = PiCompaction(meter, context_window=30_000, reserve=5_000, keep_recent=4_000)
    history: list[dict[str, Any]] = [user("start", 0)]
    for n in range(20):
        history += [call(f"c{n}", n * 10), result(f"c{n}", "r" * 1500, n * 10 + 1)]
    assert compaction.maybe_compact(history[:5], 100) is None
    done = compaction.maybe_compact(history, 500)
    assert done is not None
    kept = compaction.context(history)
    assert kept[0]["role"] == "compactionSummary" and kept[1]["role"] != "toolResult"
    assert meter.tokens(kept) < 25_000 and len(done.summary) <= COMPACTION_SUMMARY_CHARS
    assert done.folded[0] is history[0] and done.folded[-1] is history[compaction.first_kept - 1]


def test_pi_compaction_keeps_recent_by_pis_own_estimate_and_cuts_forward_of_a_tool_result() -> None:
    meter = Meter(CharEncoder(8.0), system_tokens=0)  # a tokenizer that disagrees with Pi's chars / 4
    compaction = PiCompaction(meter, context_window=6_000, reserve=1_000, keep_recent=2_000)
    history: list[dict[str, Any]] = [user("start", 0)]
    for n in range(12):
        history += [call(f"c{n}", n * 10), result(f"c{n}", "r" * 4_000, n * 10 + 1)]
    assert compaction.maybe_compact(history, 500) is not None
    kept = history[compaction.first_kept:]
    assert kept[0]["role"] == "assistant", "the walk back ends on a result; the cut moves forward past it"
    assert [m["toolCallId"] for m in kept if m["role"] == "toolResult"] == ["c11"], \
        "two results reach 2,000 by chars / 4; the forward move leaves the newest turn (the tokenizer would keep four)"


def test_condense_strategies_change_only_their_own_settings() -> None:
    every, default = condense_config("every-turn"), condense_config("condense")
    assert default.summarizer_model == every.summarizer_model == "extractive"
    assert every.min_batch_chars == 0 and every.auto_budget_threshold is not None
    assert every.auto_budget_threshold < 1e-6
    assert condense_config("condense-no-chains").chain_compression.enabled is False
    assert condense_config("condense-no-chains").chain_compression.rolling_window == 0
    assert condense_config("condense-group-batches").batching_mode == "agent-message"
    assert default.batching_mode == "turn" and default.chain_compression.enabled


def _tool_history(uses: int, output_chars: int, name: str = "bash") -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = [user("go", 0)]
    for n in range(uses):
        history += [call(f"c{n}", 2 * n + 1, name=name), result(f"c{n}", f"{n:03d}" + "o" * output_chars, 2 * n + 2,
                                                                name=name)]
    return history


def _result_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"][0]["text"] for m in messages if m["role"] == "toolResult"]


def test_clear_tool_uses_waits_for_the_trigger_then_keeps_only_the_three_newest_results() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    history = _tool_history(uses=6, output_chars=1_000)
    editing = ContextEditing(meter, ClearToolUses(trigger=meter.tokens(history)))  # type: ignore[arg-type]  # a float trigger compares alike
    assert editing.apply(history) is history, "at the trigger, nothing is cleared"
    grown = [*history, call("c6", 13), result("c6", "newest", 14)]
    edited = editing.apply(grown)
    texts = _result_texts(edited)
    assert texts[:4] == [CLEARED_RESULT] * 4 and texts[4:] == [_result_texts(grown)[4], _result_texts(grown)[5],
                                                             "newest"]
    assert [m for m in edited if m["role"] == "assistant"] == [m for m in grown if m["role"] == "assistant"]
    assert editing.apply(grown)[2] is edited[2], "a cleared copy is made once, so the meter sees one object"


def test_sticky_clearing_keeps_its_cut_until_the_edited_prompt_passes_the_trigger_again() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    history = _tool_history(uses=6, output_chars=1_000)
    trigger = meter.tokens(history) - 1  # six uses are just over it
    fresh = ContextEditing(meter, ClearToolUses(trigger=trigger))  # type: ignore[arg-type]
    sticky = ContextEditing(meter, ClearToolUses(trigger=trigger), sticky=True)  # type: ignore[arg-type]
    assert _result_texts(sticky.apply(history))[:3] == [CLEARED_RESULT] * 3
    grown = [*history, call("c6", 13), result("c6", "x" * 1_000, 14)]
    assert _result_texts(fresh.apply(grown)).count(CLEARED_RESULT) == 4, "per request: the cut moves on"
    assert _result_texts(sticky.apply(grown)).count(CLEARED_RESULT) == 3, "sticky: the edited prompt is small"
    bigger = [*grown, *(m for n in range(7, 12) for m in (call(f"c{n}", 2 * n), result(f"c{n}", "y" * 1_000, 2 * n)))]
    assert _result_texts(sticky.apply(bigger)).count(CLEARED_RESULT) == 12 - 3, \
        "past the trigger again: all but the newest three cleared once more"


def test_clear_tool_uses_defaults_are_anthropics() -> None:
    assert ClearToolUses() == ClearToolUses(trigger=100_000, keep=3, clear_at_least=0, clear_tool_inputs=False)


def test_clear_tool_inputs_also_empties_the_arguments_of_cleared_calls_and_excluded_tools_stay() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    history = [*_tool_history(uses=5, output_chars=500), call("r0", 20, name="read"),
               result("r0", "file", 21, name="read")]
    edited = ContextEditing(meter, ClearToolUses(trigger=0, keep=1, clear_tool_inputs=True,
                                                 exclude_tools=frozenset({"bash"}))).apply(history)
    assert edited is history, "the only clearable use is the newest, which is kept"
    edited = ContextEditing(meter, ClearToolUses(trigger=0, keep=1, clear_tool_inputs=True)).apply(history)
    calls = [m["content"][0] for m in edited if m["role"] == "assistant"]
    assert [c["arguments"] for c in calls] == [{}] * 5 + [{"command": "run r0"}]
    assert [c["id"] for c in calls] == [f"c{n}" for n in range(5)] + ["r0"], "calls stay paired with results"


def test_clear_at_least_skips_an_edit_that_would_free_too_little() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    history = _tool_history(uses=4, output_chars=300)  # one clearable result of about 300 tokens
    freed = meter.tokens(history) - meter.tokens(ContextEditing(meter, ClearToolUses(trigger=0)).apply(history))
    assert 250 < freed < 350
    assert ContextEditing(meter, ClearToolUses(trigger=0, clear_at_least=350)).apply(history) is history
    more = _tool_history(uses=5, output_chars=300)
    assert _result_texts(ContextEditing(meter, ClearToolUses(trigger=0, clear_at_least=350)).apply(more))[:2] == \
        [CLEARED_RESULT] * 2


def test_clear_thinking_keeps_thinking_only_in_the_newest_turn() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)

    def thought(text: str, ts: int) -> dict[str, Any]:
        message = reply(text, ts)
        return {**message, "content": [{"type": "thinking", "thinking": f"why {text}"}, *message["content"]]}

    history = [user("one", 0), thought("a", 1), user("two", 2), thought("b", 3), thought("c", 4)]
    edited = ContextEditing(meter, ClearToolUses()).apply(history)
    assert [len(m["content"]) for m in edited if m["role"] == "assistant"] == [1, 2, 2]
    assert edited[1]["content"] == history[1]["content"][1:]


def _thinking_turns(count: int) -> list[dict[str, Any]]:
    """`count` user turns of two thinking tool calls each (one call reads), their results in turn."""
    history: list[dict[str, Any]] = []
    for n in range(count):
        calls = [{"type": "toolCall", "id": f"c{n}{k}", "name": "read" if k else "bash", "arguments": {"n": n}}
                 for k in range(2)]
        history += [user(f"task {n}", 4 * n), {**call("", 4 * n + 1), "content": [
            {"type": "thinking", "thinking": f"plan {n}"}, *calls]}]
        history += [result(f"c{n}{k}", f"{n:03d}" + "o" * 200, 4 * n + 2 + k) for k in range(2)]
    return [_Counted(m) for m in history]


@pytest.mark.parametrize("clear", [ClearToolUses(trigger=3_000), ClearToolUses(trigger=3_000, clear_at_least=700),
                                   ClearToolUses(trigger=3_000, clear_tool_inputs=True,
                                                 exclude_tools=frozenset({"read"}))])
@pytest.mark.parametrize("sticky", [False, True])
def test_context_editing_a_growing_history_reads_only_its_new_messages(clear: ClearToolUses, sticky: bool) -> None:
    """Applied before every request, Anthropic's edits follow what the history gained (scanning it whole
    each time made a request's price grow with the session) and edit each request as the edit made from
    scratch would; a result that arrives for a use already cleared, or a history rewritten, is edited
    from scratch."""
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    history = _thinking_turns(100)
    editing = ContextEditing(meter, clear, sticky=sticky)
    _Counted.reads = 0
    edited = [editing.apply(history[:end]) for end in range(len(history) + 1)]
    assert _Counted.reads <= 10 * len(history)  # each message's parts once, for the edits and for the meter
    if not sticky:  # a sticky cut depends on the requests before
        ends = range(0, len(history) + 1, 7)
        assert [edited[end] for end in ends] == [ContextEditing(meter, clear).apply(history[:end]) for end in ends]
    assert _result_texts(edited[-1]).count(CLEARED_RESULT) > 90
    late = [*history[:-2], history[-1], call("late", 999), result("c990", "late output", 999), history[-2]]
    rewritten = [user("other", 0), *history[1:]]
    for changed in (late, rewritten):
        assert editing.apply(changed) == ContextEditing(meter, clear, sticky=sticky).apply(changed)


def test_the_summarising_condenser_keeps_the_first_4_and_newest_55_events_past_120() -> None:
    history = [user("task", 0), *turns(60)]  # 121 events
    condenser = SummarizingCondenser()
    assert condenser.maybe_compact(history[:120], 1) is None
    done = condenser.maybe_compact(history, 2)
    assert done is not None
    view = condenser.context(history)
    assert view[:4] == history[:4] and view[4]["role"] == "compactionSummary"
    assert view[5:] == history[-55:] or (view[5]["role"] != "toolResult" and view[6:] == history[-55:])
    assert done.folded == history[4:condenser.tail_start]
    grown = [*history, *turns(35, start=60)]
    again = condenser.maybe_compact(grown, 3)
    assert again is not None and again.folded[0] is view[4], "the previous summary is folded into the next"
    assert len(condenser.context(grown)) <= 4 + 1 + 55 + 1, "one more when the tail would start at a result"


def test_a_model_written_summary_is_priced_per_call_not_at_the_extractive_length() -> None:
    prompt = "instructions\n\n<tool-call-batch>\n[[1:bash]] Tool: bash({})\nResult (OK): x\n---\n" \
             "[[2:read]] Tool: read({})\nResult (OK): y\n</tool-call-batch>"
    assert model_summary_tokens(prompt, produced_tokens=999) == 2 * 50
    assert model_summary_tokens("fuse these summaries", produced_tokens=321) == 321


# ----- honest ratios --------------------------------------------------------------------------------

def _result(name: str, cost: float, peak: float) -> Any:
    sim = StrategySimulation(name, 1.0, 0.0)
    return sim.result(Recovery(pruned=0, recoverable=0, truncated=0)).model_copy(
        update={"total_cost": cost, "peak_context_tokens": peak})


def test_ratios_are_against_the_cheapest_runnable_strategy_that_is_not_condense() -> None:
    results = with_ratios([_result("none", 10.0, 300), _result("masking", 8.0, 150), _result("pi", 9.0, 120),
                           _result("condense", 2.0, 90)], window=200, condense={"condense"})
    by_name = {r.name: r for r in results}
    assert not by_name["none"].can_run and by_name["masking"].can_run
    assert by_name["condense"].ratio_to_baseline == pytest.approx(2.0 / 8.0)
    assert by_name["none"].ratio_to_none == 1.0 and by_name["masking"].ratio_to_baseline == 1.0


# ----- recovery -------------------------------------------------------------------------------------

def _answer(body: str) -> str:
    return f"## toolRef: t1\nTool: bash\nArgs: {{}}\nStatus: OK\nTurn: 0\n\n{body}"


def test_a_recovery_answer_counts_when_it_returns_the_original_or_its_truncated_head() -> None:
    original = "line 1\nline 2\nline 3"
    assert returns_original(original, _answer(original)) == (True, False)
    assert returns_original(original, _answer("line 1\n[Output truncated: 1/3 lines shown]")) == (True, True)
    paged = page_text(original, "t1", Page(limit=1))  # the answer the model pages on from
    assert returns_original(original, _answer(paged)) == (True, True)
    assert returns_original("x" * 60_000, _answer(page_text("x" * 60_000, "t1"))) == (True, True)  # cut in the line
    assert returns_original(original, _answer("line 1")) == (False, False)
    not_found = "## toolRef: t9\n(not found in index — may not have been summarized yet)"
    assert returns_original(original, not_found) == (False, False)


def test_recovery_checks_every_output_missing_from_the_final_context() -> None:
    history = [call("a", 1), result("a", "alpha", 2), call("b", 3), result("b", "beta", 4)]
    stubbed = {**history[1], "content": [{"type": "text", "text": "stub"}]}
    final = [history[0], stubbed, history[2], history[3]]
    answers = {"a@2": _answer("alpha")}
    recovery = check_recovery(history, final, lambda key: answers.get(key, "## toolRef: x\n(not found)"))
    assert recovery == Recovery(pruned=1, recoverable=1, truncated=0)
    assert check_recovery(history, [], None) == Recovery(pruned=2, recoverable=0, truncated=0)
    assert check_recovery(history, history, None).share is None


# ----- strategy ordering on a small synthetic session -----------------------------------------------

def _session(turns: int, output_chars: int, gap_ms: int) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = [user("fix the build", 0)]
    for n in range(turns):
        history += [call(f"c{n}", (2 * n + 1) * gap_ms), result(f"c{n}", f"{n:04d}" + "o" * output_chars,
                                                                  (2 * n + 1) * gap_ms + 1)]
    history.append(reply("fixed", (2 * turns + 1) * gap_ms))
    return history


def _simulate(history: list[dict[str, Any]], ttl_ms: int) -> dict[str, Any]:
    meter = Meter(CharEncoder(1.0), system_tokens=1000)
    requests = recorded_requests(history)
    positions = [i for i, m in enumerate(history) if m["role"] == "assistant"]
    masking, compaction = ObservationMasking(), PiCompaction(meter, context_window=60_000, reserve=10_000,
                                                              keep_recent=8_000)
    sims = {name: StrategySimulation(name, 1.0, miss_rate=0.0, ttl_ms=ttl_ms)
            for name in ("none", "masking", "pi-compaction")}
    for request, position in zip(requests, positions, strict=True):
        seen = history[:position]
        folded = compaction.maybe_compact(seen, request.time_ms)
        if folded is not None:
            sims["pi-compaction"].summariser_call(meter.prompt(folded.folded, system=False),
                                                  meter.text_tokens(folded.summary), request.time_ms, PRICES)
        contexts = {"none": seen, "masking": masking.apply(seen), "pi-compaction": compaction.context(seen)}
        for name, context in contexts.items():
            sims[name].request(meter.prompt(context), request, PRICES)
    return {r.name: r for r in with_ratios([s.result(Recovery(pruned=0, recoverable=0, truncated=0))
                                            for s in sims.values()])}


def test_with_a_warm_cache_rewriting_the_prefix_every_request_costs_more_than_keeping_everything() -> None:
    results = _simulate(_session(turns=30, output_chars=3000, gap_ms=1000), ttl_ms=5 * MINUTE)
    none, masking, compaction = results["none"], results["masking"], results["pi-compaction"]
    assert none.cache_busts == 0 and none.ratio_to_none == 1.0
    assert masking.cache_busts == 30 - 10 and compaction.cache_busts >= 1
    assert masking.mean_context_tokens < none.mean_context_tokens
    assert compaction.peak_context_tokens < none.peak_context_tokens
    assert masking.total_cost > none.total_cost, "cached reads are cheap; masking rewrites ten outputs a time"
    assert compaction.summariser_calls >= 1 and compaction.summariser_cost > 0


def test_with_a_cold_cache_every_pruning_strategy_is_cheaper_than_keeping_everything() -> None:
    results = _simulate(_session(turns=30, output_chars=3000, gap_ms=10 * MINUTE), ttl_ms=5 * MINUTE)
    none = results["none"]
    assert none.cache_hit_rate == 0.0
    assert results["masking"].total_cost < none.total_cost
    assert results["pi-compaction"].total_cost < none.total_cost
    assert all(r.cache_busts == 0 for r in results.values()), "an expired cache is not a bust"


# ----- the report -----------------------------------------------------------------------------------

def test_the_report_prints_a_row_per_strategy_and_the_chart_is_valid_svg() -> None:
    results = _simulate(_session(turns=12, output_chars=500, gap_ms=1000), ttl_ms=5 * MINUTE)
    report = SessionReport(session="/x/s.jsonl", tokenizer="chars/1", pricing="test-model",
                           pricing_forced=False, cache_model="anthropic", cache_ttl_ms=5 * MINUTE,
                           context_window=60_000, baseline="none",
                           miss_rate=MissRate(misses=1, firsts=4),
                           unpriced_requests=0, calibration=None, strategies=list(results.values()))
    text = format_report(report)
    rows = [line.split()[0] for line in text.splitlines() if line.strip()]
    assert {"none", "masking", "pi-compaction"} <= set(rows)
    assert "1 of 4 first requests" in text
    svg = ET.fromstring(plot_svg([report]))
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    lines = svg.findall("{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == 3
    for line in lines:
        points = [tuple(map(float, p.split(","))) for p in line.get("points", "").split()]
        assert len(points) == 13 and all(math.isfinite(v) for point in points for v in point)


def test_a_server_side_step_reads_the_prefix_the_previous_request_wrote() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=10)
    sim = StrategySimulation("s", 1.0, miss_rate=0.0)
    first = meter.prompt([user("go", 0), *turns(3)])
    sim.request(first, RecordedRequest(0, 0, "m", 0, 0, 0, 0.0, False), PRICES)
    grown = meter.prompt([user("go", 0), *turns(4)])
    cost = sim.server_call(grown, 100, MINUTE, PRICES)
    new = grown.tokens - first.tokens
    assert cost == pytest.approx(first.tokens * PRICES.cache_read + new * PRICES.cache_write + 100 * PRICES.output)
    assert sim.summariser_calls == 1 and sim.summariser_cost == pytest.approx(cost)
