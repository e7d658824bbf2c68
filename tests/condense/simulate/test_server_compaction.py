"""Anthropic's server-side compaction (condense/simulate/server_compaction.py): past the trigger the
whole conversation becomes one summary, and later requests carry it and what came after."""

from __future__ import annotations

from typing import Any

import pytest

from condense.simulate import CharEncoder, Meter, ServerCompaction, openai_compaction


def message(role: str, text: str, ts: int) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": text}], "timestamp": ts}


def history(turns: int) -> list[dict[str, Any]]:
    return [m for n in range(turns) for m in (message("user", f"step {n}", 2 * n),
                                              message("assistant", "w" * 10_000, 2 * n + 1))]


def test_under_the_trigger_nothing_changes_and_past_it_everything_becomes_one_summary() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    compaction = ServerCompaction(meter, trigger=50_000)
    early = history(4)
    assert compaction.maybe_compact(early, 0) is None and compaction.context(early) == early
    grown = history(6)  # 60k characters: over the trigger
    done = compaction.maybe_compact(grown, 100)
    assert done is not None and done.folded == grown, "the summariser reads the whole request"
    assert compaction.context(grown) == [compaction.summary]
    later = [*grown, message("user", "next", 200)]
    assert compaction.context(later) == [compaction.summary, later[-1]]
    assert compaction.maybe_compact(later, 200) is None, "the compacted context is far under the trigger"


def test_a_second_compaction_folds_the_previous_summary_in() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    compaction = ServerCompaction(meter, trigger=50_000)
    first = history(6)
    compaction.maybe_compact(first, 0)
    assert compaction.summary is not None
    previous = compaction.summary
    second = [*first, *history(6)]
    done = compaction.maybe_compact(second, 1)
    assert done is not None and done.folded[0] is previous


def test_a_trigger_under_anthropics_minimum_is_refused() -> None:
    with pytest.raises(ValueError, match="minimum is 50000"):
        ServerCompaction(Meter(CharEncoder(1.0)), trigger=10_000)


def test_openai_compaction_compacts_at_its_threshold_share_of_the_window_with_no_minimum() -> None:
    meter = Meter(CharEncoder(1.0), system_tokens=0)
    compaction = openai_compaction(meter, window=40_000)  # threshold 32,000: under Anthropic's minimum
    assert compaction.trigger == 32_000
    three = history(3)  # 30k characters: under the threshold
    assert compaction.maybe_compact(three, 0) is None
    four = history(4)  # 40k: over it
    done = compaction.maybe_compact(four, 1)
    assert done is not None and done.folded == four
    assert compaction.context(four) == [compaction.summary]
