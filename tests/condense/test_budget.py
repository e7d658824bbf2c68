"""Budget triggers (`src/budget.test.ts`): the level trigger, the usage fraction and the per-turn delta."""

from __future__ import annotations

from condense.budget import MAX_BUDGET_WINDOW, REARM_SHARE, BudgetLevel, should_delta_flush, usage_fraction
from condense.host import ContextUsage


def usage(tokens: int | None, context_window: int) -> ContextUsage:
    return ContextUsage(tokens=tokens, context_window=context_window)


# ----------------------------------------------------------------------------- should_budget_flush


def test_false_when_threshold_is_null() -> None:
    assert BudgetLevel().due(usage(999, 1000), None) is False


def test_false_for_a_threshold_outside_0_1() -> None:
    assert BudgetLevel().due(usage(999, 1000), 0) is False
    assert BudgetLevel().due(usage(999, 1000), 1.5) is False


def test_false_when_usage_is_undefined() -> None:
    assert BudgetLevel().due(None, 0.5) is False


def test_false_when_tokens_is_null_post_compaction() -> None:
    assert BudgetLevel().due(usage(None, 1000), 0.5) is False


def test_false_when_context_window_is_0() -> None:
    assert BudgetLevel().due(usage(500, 0), 0.5) is False


def test_true_at_or_over_threshold_false_under() -> None:
    assert BudgetLevel().due(usage(800, 1000), 0.8) is True
    assert BudgetLevel().due(usage(900, 1000), 0.8) is True
    assert BudgetLevel().due(usage(799, 1000), 0.8) is False


def test_threshold_exactly_1_is_valid() -> None:
    assert BudgetLevel().due(usage(1000, 1000), 1.0) is True
    assert BudgetLevel().due(usage(999, 1000), 1.0) is False


def test_max_budget_window_is_300k() -> None:
    assert MAX_BUDGET_WINDOW == 300_000


def test_caps_the_level_on_a_huge_window() -> None:
    assert BudgetLevel().due(usage(300_000, 1_000_000), 0.4) is True
    assert BudgetLevel().due(usage(299_999, 1_000_000), 0.4) is False
    assert BudgetLevel().due(usage(300_000, 1_000_000), 0.9) is True


def test_unchanged_at_or_below_the_ceiling() -> None:
    assert BudgetLevel().due(usage(80_000, 200_000), 0.4) is True
    assert BudgetLevel().due(usage(79_999, 200_000), 0.4) is False
    assert BudgetLevel().due(usage(230_400, 256_000), 0.9) is True
    assert BudgetLevel().due(usage(230_399, 256_000), 0.9) is False
    assert BudgetLevel().due(usage(300_000, 300_000), 1) is True


def test_a_low_threshold_governs_below_the_ceiling_on_a_huge_window() -> None:
    assert BudgetLevel().due(usage(100_000, 1_000_000), 0.1) is True
    assert BudgetLevel().due(usage(99_999, 1_000_000), 0.1) is False


# ---------------------------------------------------------------------------------- usage_fraction


def test_usage_fraction_is_null_without_usable_usage() -> None:
    assert usage_fraction(None) is None
    assert usage_fraction(usage(None, 1000)) is None
    assert usage_fraction(usage(500, 0)) is None


def test_usage_fraction_divides_by_the_capped_window() -> None:
    assert usage_fraction(usage(750, 1000)) == 0.75
    assert usage_fraction(usage(80_000, 200_000)) == 0.4


def test_usage_fraction_is_not_clamped() -> None:
    assert usage_fraction(usage(600_000, 1_000_000)) == 2


# ------------------------------------------------------------------------------ should_delta_flush


def test_delta_false_when_delta_is_null_0_or_over_1() -> None:
    for delta in (None, 0, 1.5):
        assert should_delta_flush(usage(900, 1000), 0.1, delta) is False


def test_delta_false_when_previous_fraction_is_null() -> None:
    assert should_delta_flush(usage(900, 1000), None, 0.1) is False


def test_delta_false_when_usage_is_undefined_or_tokens_null() -> None:
    assert should_delta_flush(None, 0.1, 0.1) is False
    assert should_delta_flush(usage(None, 1000), 0.1, 0.1) is False


def test_delta_fires_when_the_jump_meets_delta() -> None:
    assert should_delta_flush(usage(700, 1000), 0.5, 0.15) is True
    assert should_delta_flush(usage(650, 1000), 0.5, 0.15) is True  # 0.65 - 0.5 in floats is >= 0.15
    assert should_delta_flush(usage(640, 1000), 0.5, 0.15) is False
    assert should_delta_flush(usage(600, 1000), 0.5, 0.15) is False


def test_delta_uses_the_capped_window_on_a_huge_model() -> None:
    previous = 100_000 / 300_000
    assert should_delta_flush(usage(130_000, 1_000_000), previous, 0.1) is True
    assert should_delta_flush(usage(120_000, 1_000_000), previous, 0.1) is False


def test_delta_unchanged_at_or_below_the_ceiling() -> None:
    previous = usage_fraction(usage(40_000, 200_000))
    assert previous == 0.2
    assert should_delta_flush(usage(100_000, 200_000), previous, 0.3) is True  # +60k
    assert should_delta_flush(usage(99_000, 200_000), previous, 0.3) is False


def test_delta_keeps_re_arming_above_the_ceiling() -> None:
    previous = usage_fraction(usage(600_000, 1_000_000))
    assert previous == 2.0
    assert should_delta_flush(usage(630_000, 1_000_000), previous, 0.1) is True
    assert should_delta_flush(usage(620_000, 1_000_000), previous, 0.1) is False


# ----------------------------------------------------------------------------- hysteresis


def test_after_a_budget_flush_that_stays_over_the_level_it_waits_for_real_growth() -> None:
    """Past the knee every tool turn used to flush (and rewrite the cached prompt) for a few hundred tokens."""
    level, step = BudgetLevel(), round(REARM_SHARE * 200_000)  # 4,000 tokens
    assert level.due(usage(150_000, 200_000), 0.735)
    level.flushed(usage(150_000, 200_000), 0.735, tokens_after=149_000)  # the flush could not get under 147k
    assert not level.due(usage(149_500, 200_000), 0.735), "a few hundred tokens more: no flush"
    assert not level.due(usage(149_000 + step - 1, 200_000), 0.735)
    assert level.due(usage(149_000 + step, 200_000), 0.735), "grown by 2% of the window since: flush"


def test_well_under_the_level_it_fires_at_the_level_again() -> None:
    level = BudgetLevel()
    level.flushed(usage(150_000, 200_000), 0.735, tokens_after=149_000)
    assert not level.due(usage(147_500, 200_000), 0.735)
    assert not level.due(usage(143_000 - 1, 200_000), 0.735), "fell 2% of the window under the level: rearmed"
    assert level.due(usage(147_000, 200_000), 0.735)
