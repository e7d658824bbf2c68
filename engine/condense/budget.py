"""Budget triggers: flush when the context is full enough, or grew too much in one turn.

Both read the host's context usage, which is `tokens = None` right after a provider-side compaction:
then neither trigger fires (a null is "unknown", not zero). The 300k ceiling keeps the level trigger
reachable on very large windows, where a share such as 0.9 of 1M tokens would never be reached.

The level trigger has hysteresis (`BudgetLevel`): once a budget flush could not bring the context back
under the level, the next one waits until the context grew by `REARM_SHARE` of the budget window past
what that flush left (or fell `REARM_SHARE` under the level), so a long session past the knee does not
flush, and rewrite its cached prompt, at every tool turn for a few hundred tokens.

Past the point where even the pruned request no longer fits the window (less Pi's `COMPACTION_RESERVE`
for the reply, or the reply's own max_tokens: `compaction_limit`), pruning cannot help: the engine falls
back to Pi's compaction, through a host that can.
"""

from __future__ import annotations

from condense.host import ContextUsage

MAX_BUDGET_WINDOW = 300_000
REARM_SHARE = 0.02  # of the budget window: 4,000 tokens of a 200k window
COMPACTION_RESERVE = 16_384  # Pi's reserveTokens: what a reply may need; Pi compacts when the context passes the rest


def compaction_limit(usage: ContextUsage) -> int:
    """The tokens a request may carry before the fallback compaction: the window less Pi's reserve for
    the reply, or less what the request keeps for its reply (`reply_tokens`, the host's max_tokens: a 32k
    model answering in 4k) or half the window, where those are smaller (a 16k model would otherwise be
    told at every turn that 1.6k tokens do not fit)."""
    window = usage.context_window
    reserve = min(COMPACTION_RESERVE, window // 2, usage.reply_tokens or COMPACTION_RESERVE)
    return window - reserve


def _fraction(value: float | None) -> float | None:
    """The value when it is a usable share of the window, in (0, 1]; None (trigger off) otherwise."""
    return value if value is not None and 0 < value <= 1 else None


def budget_level(usage: ContextUsage | None, threshold: float | None) -> float | None:
    """`min(300k, threshold * window)`: the share, or the ceiling if lower; None when it cannot fire."""
    share = _fraction(threshold)
    if share is None or usage is None or usage.tokens is None or usage.context_window <= 0:
        return None
    return min(MAX_BUDGET_WINDOW, share * usage.context_window)


class BudgetLevel:
    """The level trigger: fire when tokens reach the budget level; with hysteresis after a budget flush
    (see the module's docstring)."""

    def __init__(self) -> None:
        self._next: float | None = None  # tokens at which it fires again; None: at the level

    def due(self, usage: ContextUsage | None, threshold: float | None) -> bool:
        level = budget_level(usage, threshold)
        if level is None or usage is None or usage.tokens is None:
            return False
        step = REARM_SHARE * min(usage.context_window, MAX_BUDGET_WINDOW)
        if self._next is not None and usage.tokens < level - step:
            self._next = None  # fell well under the level: armed at the level again
        return usage.tokens >= (level if self._next is None else self._next)

    def flushed(self, usage: ContextUsage | None, threshold: float | None, tokens_after: int) -> None:
        """A budget flush left the next request at `tokens_after` tokens."""
        level = budget_level(usage, threshold)
        if level is not None and usage is not None:
            step = REARM_SHARE * min(usage.context_window, MAX_BUDGET_WINDOW)
            self._next = max(level, tokens_after + step)


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
