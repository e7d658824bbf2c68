"""OpenHands' `LLMSummarizingCondenser` over a growing history (its defaults: `max_size` 120 events,
`keep_first` 4).

When the view the agent would send holds more than `max_size` events, it keeps the first `keep_first`
events and the newest `max_size // 2 - keep_first - 1`, and one summary (of the previous summary and
everything between) takes the place of the rest. The view then grows again until the next
condensation. Here one message is one event, and the kept tail never starts with a tool result (it
would lose its call). The summary is extractive, sized like a model's (see `baselines`).
"""

from __future__ import annotations

from typing import Any

from condense.simulate.baselines import Compaction, extractive_compaction

OPENHANDS_MAX_SIZE = 120
OPENHANDS_KEEP_FIRST = 4


class SummarizingCondenser:
    def __init__(self, max_size: int = OPENHANDS_MAX_SIZE, keep_first: int = OPENHANDS_KEEP_FIRST) -> None:
        self.max_size = max_size
        self.keep_first = keep_first
        self.keep_last = max_size // 2 - keep_first - 1
        self.summary: dict[str, Any] | None = None
        self.tail_start = keep_first  # history index of the first event kept after the summary

    def context(self, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if self.summary is None:
            return history
        return [*history[: self.keep_first], self.summary, *history[self.tail_start:]]

    def maybe_compact(self, history: list[dict[str, Any]], time_ms: int) -> Compaction | None:
        """Condense before a request whose view is over `max_size` events; returns what was folded."""
        if len(self.context(history)) <= self.max_size:
            return None
        start = len(history) - self.keep_last
        while start > self.tail_start and history[start].get("role") == "toolResult":
            start -= 1
        if start <= self.tail_start:
            return None
        folded = history[self.tail_start:start]
        previous = self.summary["summary"] if self.summary is not None else None
        text = extractive_compaction(previous, folded)
        read = ([self.summary] if self.summary is not None else []) + folded
        self.summary = {"role": "compactionSummary", "summary": text, "timestamp": time_ms}
        self.tail_start = start
        return Compaction(read, text)
