"""Budget triggers: flush when the context is full enough, or grew too much in one turn.

Both read the host's context usage, which is `tokens = None` right after a provider-side compaction:
then neither trigger fires (a null is "unknown", not zero). The 300k ceiling keeps the level trigger
reachable on very large windows, where a share such as 0.9 of 1M tokens would never be reached.
"""

from __future__ import annotations

from condense.host import ContextUsage

MAX_BUDGET_WINDOW = 300_000


def _fraction(value: float | None) -> float | None:
    """The value when it is a usable share of the window, in (0, 1]; None (trigger off) otherwise."""
    return value if value is not None and 0 < value <= 1 else None


def should_budget_flush(usage: ContextUsage | None, threshold: float | None) -> bool:
    """Fire when tokens reach `min(300k, threshold * window)`: the share, or the ceiling if lower."""
    share = _fraction(threshold)
    if share is None or usage is None or usage.tokens is None or usage.context_window <= 0:
        return False
    return usage.tokens >= min(MAX_BUDGET_WINDOW, share * usage.context_window)


def usage_fraction(usage: ContextUsage | None) -> float | None:
    """Tokens over the window capped at 300k. Not clamped to 1: above the ceiling it must keep growing,
    or the delta trigger would stop re-arming there."""
    if usage is None or usage.tokens is None or usage.context_window <= 0:
        return None
    return usage.tokens / min(usage.context_window, MAX_BUDGET_WINDOW)


def should_delta_flush(
    usage: ContextUsage | None, previous_fraction: float | None, delta: float | None
) -> bool:
    """Fire when the fraction grew by at least `delta` since the previous evaluated turn."""
    current, step = usage_fraction(usage), _fraction(delta)
    if step is None or previous_fraction is None or current is None:
        return False
    return current - previous_fraction >= step
