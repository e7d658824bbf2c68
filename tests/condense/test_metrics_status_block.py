"""The `--- context ---` block of `/pruner status` (`src/commands.test.ts`, "/pruner status context block").

The reference drives the whole command with stubbed collaborators; here the block is the pure function
the command prints, and "unwired" metrics are `None`.
"""

from __future__ import annotations

from condense.metrics import ContextMetrics, status_block

METRICS = ContextMetrics(open_cycle_thinking_tokens=12000, largest_chain_share_pct=62,
                         frontier_gap_tokens=195000)


def test_renders_the_context_block_with_all_three_metrics() -> None:
    assert status_block(METRICS, rearmed=False) == [
        "--- context ---",
        "thinking:     12.0k tokens (open segment)",
        "chain share:  62% of the context is the largest chain (one task's work)",
        "frontier gap: 195.0k tokens",
    ]


def test_appends_the_rearmed_line_only_when_rearmed() -> None:
    assert status_block(METRICS, rearmed=True)[-1] == "earlier tool output not summarized yet (next flush)"
    assert not any(line.startswith("earlier tool output") for line in status_block(METRICS, rearmed=False))


def test_omits_the_context_block_entirely_when_metrics_are_unavailable() -> None:
    assert status_block(None, rearmed=False) == []


def test_rearmed_is_reported_even_without_metrics() -> None:
    assert status_block(None, rearmed=True) == ["earlier tool output not summarized yet (next flush)"]


def test_small_counts_read_as_whole_numbers() -> None:
    block = status_block(ContextMetrics(950, 0, 0), rearmed=False)
    assert block[1:] == [
        "thinking:     950 tokens (open segment)",
        "chain share:  0% of the context is the largest chain (one task's work)", "frontier gap: 0 tokens",
    ]
