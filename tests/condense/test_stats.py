"""Summarizer spend and the live reclaim ratio (`src/stats.test.ts`)."""

from __future__ import annotations

from typing import Any

import pytest

from condense.chains.model import ChainEntry
from condense.records import STATS
from condense.stats import CostDelta, PruneStats, Reclaim, format_compact_count, format_cost


def usage(input_tokens: int, output_tokens: int, cost: float) -> dict[str, Any]:
    """Pi's usage shape, as a summarizer completion reports it."""
    return {
        "input": input_tokens,
        "output": output_tokens,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": input_tokens + output_tokens,
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": cost},
    }


def stats_entry(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "custom", "id": "a1b2c3d4", "parentId": None, "customType": STATS, "data": data}


SNAPSHOT = {
    "totalInputTokens": 1000,
    "totalOutputTokens": 400,
    "totalCost": 0.5,
    "callCount": 7,
    "chainsCompressed": 2,
    "rangesSummarized": 1,
}


def test_a_fresh_accumulator_delta_equals_what_was_added() -> None:
    stats = PruneStats()
    stats.add_call(usage(100, 50, 0.01))
    delta = stats.session_delta()
    assert delta.total_cost == pytest.approx(0.01)
    assert (delta.input_tokens, delta.output_tokens) == (100, 50)
    assert stats.call_count == 1


def test_after_reconstruct_prior_totals_are_excluded_from_delta() -> None:
    stats = PruneStats()
    stats.reconstruct([stats_entry({**SNAPSHOT, "totalCost": 9.0}), stats_entry(SNAPSHOT)])  # last one wins
    assert stats.to_json() == SNAPSHOT
    assert stats.session_delta() == CostDelta(0.0, 0, 0)
    stats.add_call(usage(10, 5, 0.25))
    delta = stats.session_delta()
    assert delta.total_cost == pytest.approx(0.25)
    assert (delta.input_tokens, delta.output_tokens) == (10, 5)
    assert stats.total_input_tokens == 1010


def test_live_reclaim_is_undefined_initially_and_round_trips_after_set() -> None:
    stats = PruneStats()
    assert stats.live_reclaim() is None
    stats.set_live_reclaim(368_000, 56_000)
    assert stats.live_reclaim() == Reclaim(before_chars=368_000, after_chars=56_000)
    assert "reclaim" not in str(stats.to_json()).lower()  # in memory only, never persisted


def test_session_delta_reports_the_spend_of_this_session_only() -> None:
    # Replaces the reference's "emits exactly one cost:external event": we have no event bus; the host asks.
    stats = PruneStats()
    stats.reconstruct([stats_entry(SNAPSHOT)])
    stats.add_call(usage(10, 5, 0.25))
    stats.add_call(usage(20, 10, 0.5))
    assert stats.session_delta() == CostDelta(pytest.approx(0.75), 30, 15)  # type: ignore[arg-type]  # approx equals the float
    assert stats.session_delta() == stats.session_delta()  # asking does not consume anything
    stats.reconstruct([stats_entry(stats.to_json())])  # a reload after the flush persisted its snapshot
    assert stats.session_delta() == CostDelta(0.0, 0, 0)


def test_reconstruct_without_a_snapshot_starts_from_zero() -> None:
    stats = PruneStats.from_json(SNAPSHOT)
    stats.reconstruct([{"type": "custom", "customType": "other", "data": SNAPSHOT}, {"type": "message"}])
    assert stats == PruneStats()


def test_to_json_and_from_json_use_the_persisted_camel_case_names() -> None:
    stats = PruneStats.from_json(SNAPSHOT)
    assert stats.total_cost == 0.5
    assert stats.chains_compressed == 2
    assert PruneStats.from_json(stats.to_json()).to_json() == SNAPSHOT


def test_from_json_counts_missing_or_broken_fields_as_zero() -> None:
    stats = PruneStats.from_json({"totalCost": "cheap", "callCount": True, "totalInputTokens": float("nan")})
    assert stats == PruneStats()


def test_chain_counters_accumulate() -> None:
    stats = PruneStats()
    stats.add_chains_compressed(2)
    stats.add_chains_compressed(1)
    stats.add_ranges_summarized(1)
    assert (stats.chains_compressed, stats.ranges_summarized) == (3, 1)


def test_a_usage_without_cost_still_counts_the_call() -> None:
    stats = PruneStats()
    stats.add_call({"input": 5})
    assert (stats.call_count, stats.total_input_tokens, stats.total_cost) == (1, 5, 0.0)


def test_describe_shows_totals_and_this_session() -> None:
    stats = PruneStats()
    stats.reconstruct([stats_entry(SNAPSHOT)])
    stats.add_call(usage(1500, 100, 0.0004))
    chains = [ChainEntry("b1", 100, (), 200, ("t1",), 200), ChainEntry("b2", 300, (), 400, ("t2",), 400,
                                                                       range_summary_text="fixed the bug")]
    assert stats.describe(chains) == (
        "summarizer:   8 calls on this branch, 2.5k tokens in, 500 out, $0.500 (<$0.001 this session)\n"
        "chains:       2 compressed, 1 with a fused summary"
    )


@pytest.mark.parametrize(
    ("count", "text"),
    [(0, "0"), (999, "999"), (1000, "1.0k"), (1250, "1.3k"), (92_000, "92.0k"), (999_999, "1000.0k"),
     (1_000_000, "1.0M"), (2_450_000, "2.5M")],
)
def test_format_compact_count(count: int, text: str) -> None:
    # 1250 -> 1.3k: ties round up as in Pi's footer, where Python's own formatting would give 1.2k.
    assert format_compact_count(count) == text


def test_format_cost() -> None:
    assert (format_cost(0), format_cost(0.0004), format_cost(0.0625)) == ("$0.000", "<$0.001", "$0.063")
