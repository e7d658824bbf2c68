"""The context figure a host shows (Pi's footer: tokens and share of the window) and the status line's
`reads`, decided in one place so the two never tell different stories.

The host reckons the context as Pi does (`condense.local_host.context_estimate`): the newest reply's
reported usage plus an estimate of what came after it. That count is true of the request the reply
answered, which carried the saving pruning had then. While pruning still saves exactly that much, the
host's count stands; once a flush changes the saving, what the next request carries is this engine's
own estimate of it, until a reply reports usage again. An unknown figure (after a compaction, until a
newer reply reports usage) stays unknown: no reply measured what the request now carries.
"""

from __future__ import annotations

from dataclasses import replace

from condense.host import ContextUsage
from condense.measure import estimate_from_chars
from condense.stats import PruneStats


class ContextFigure:
    """The one owner of the figure. The engine tells it what the host's count already holds (`count`);
    the host, its footer and `/pruner status` read it (`shown`, `reads`)."""

    def __init__(self, stats: PruneStats) -> None:
        self._stats = stats
        self._counted: int | None = None  # the saving the host's latest count already had; None: not known

    def reset(self) -> None:
        """A branch (re)loaded: what the host's count holds is unknown until the branch is measured."""
        self._counted = None

    @property
    def known(self) -> bool:
        """Whether the saving in the host's count is known (measured on load, or by a request since)."""
        return self._counted is not None

    def count(self, saved: int | None = None) -> None:
        """The host's count now holds `saved` tokens of saving (by default the saving pruning has now: a
        reply's usage counts what its request left out)."""
        self._counted = self.saving() if saved is None else saved

    def count_if_unknown(self) -> None:
        """The first measure since a (re)load with nothing measured on load: the last reply had it too."""
        if self._counted is None:
            self.count()

    def saving(self) -> int:
        reclaim = self._stats.live_reclaim()
        return reclaim.saved_tokens if reclaim is not None else 0

    def estimate(self) -> int | None:
        """The estimate of the next request, from the last measure of it (None before any)."""
        reclaim = self._stats.live_reclaim()
        return estimate_from_chars(reclaim.after_chars) if reclaim is not None else None

    def reads(self, usage: ContextUsage | None) -> int | None:
        """What the next request carries, in the host's tokens; None while the host has no count."""
        if usage is None or usage.tokens is None:
            return None
        if self.saving() == (self._counted or 0):
            return usage.tokens
        return self.estimate()

    def shown(self, usage: ContextUsage | None) -> ContextUsage | None:
        """The host's usage with the tokens of the next request: the figure a footer shows."""
        reads = self.reads(usage)
        return usage if usage is None or reads is None else replace(usage, tokens=reads)

    def status_reads(self, usage: ContextUsage | None) -> int | None:
        """The status line's `reads`: the figure, or with no count from the host still the estimate."""
        reads = self.reads(usage)
        return self.estimate() if reads is None else reads
