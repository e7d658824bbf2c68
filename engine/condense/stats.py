"""What pruning cost and what it saved: summarizer spend, chain counts, and the footer's reclaim ratio.

The spend is persisted as full snapshots (`context-prune-stats`, last one wins), so totals survive a
reload. The snapshot found at reload is also the baseline of `session_delta`: spend reported to the
user as "this session" must not count what earlier runs already paid, nor forget what this run paid
when `/tree` moves to a branch whose snapshot is older (the money is spent all the same).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from condense.diagnostics import DiagnosticKind, status_suffix
from condense.plural import counted
from condense.record_bursts import records_of
from condense.records import STATS

if TYPE_CHECKING:
    from condense.chains.model import ChainEntry

_WIRE_NAMES = {
    "total_input_tokens": "totalInputTokens",
    "total_output_tokens": "totalOutputTokens",
    "total_cost": "totalCost",
    "call_count": "callCount",
    "chains_compressed": "chainsCompressed",
    "ranges_summarized": "rangesSummarized",
}


@dataclass(frozen=True)
class Reclaim:
    """What the model reads of the last rendered context before and after pruning, in characters."""

    before_chars: int
    after_chars: int

    @property
    def saved_tokens(self) -> int:
        """What pruning keeps out of the request, in the host's estimate for unreported text (chars/4)."""
        return max(0, _round((self.before_chars - self.after_chars) / 4))


@dataclass(frozen=True)
class CostDelta:
    total_cost: float
    input_tokens: int
    output_tokens: int


def _number(value: Any) -> float:
    """A persisted or reported number; anything else (missing, a string, NaN) counts as nothing."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if is_number else 0.0


@dataclass
class PruneStats:
    """One per engine, shared by whoever spends or saves (the flush, the renderer); `reconstruct`
    reloads it in place on session start and tree navigation."""

    total_input_tokens: int = 0
    total_output_tokens: int = 0
    total_cost: float = 0.0
    call_count: int = 0
    chains_compressed: int = 0
    ranges_summarized: int = 0
    _baseline: CostDelta = field(default=CostDelta(0.0, 0, 0), init=False, compare=False, repr=False)
    _reclaim: Reclaim | None = field(default=None, init=False, compare=False, repr=False)

    def add_call(self, usage: Mapping[str, Any]) -> None:
        """Count one summarizer call from its Pi-shaped usage (`input`, `output`, `cost.total`)."""
        cost = usage.get("cost")
        self.total_input_tokens += int(_number(usage.get("input")))
        self.total_output_tokens += int(_number(usage.get("output")))
        self.total_cost += _number(cost.get("total")) if isinstance(cost, Mapping) else 0.0
        self.call_count += 1

    def add_chains_compressed(self, count: int) -> None:
        self.chains_compressed += count

    def add_ranges_summarized(self, count: int) -> None:
        self.ranges_summarized += count

    def session_delta(self) -> CostDelta:
        """Spend since this session was loaded (all of it, for a new session)."""
        return CostDelta(
            self.total_cost - self._baseline.total_cost,
            self.total_input_tokens - self._baseline.input_tokens,
            self.total_output_tokens - self._baseline.output_tokens,
        )

    def keep_spent(self, spent: CostDelta) -> None:
        """After a reload onto another branch: `spent` (this run's spend so far) stays this run's."""
        self._baseline = CostDelta(self.total_cost - spent.total_cost, self.total_input_tokens - spent.input_tokens,
                                   self.total_output_tokens - spent.output_tokens)

    def set_live_reclaim(self, before_chars: int, after_chars: int) -> None:
        self._reclaim = Reclaim(before_chars, after_chars)

    def live_reclaim(self) -> Reclaim | None:
        """Sizes of the last render that pruned something; None until one did. Never persisted."""
        return self._reclaim

    def to_json(self) -> dict[str, Any]:
        return {wire: getattr(self, name) for name, wire in _WIRE_NAMES.items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PruneStats:
        """Missing or non-numeric fields count as 0; the snapshot becomes the session's baseline."""
        stats = cls()
        stats._load(data)
        return stats

    def reconstruct(self, branch: Sequence[Mapping[str, Any]]) -> None:
        """Reload from the last `context-prune-stats` entry of the branch (each is a full snapshot)."""
        snapshots = [data for data in records_of(branch, STATS) if isinstance(data, Mapping)]
        self._load(snapshots[-1] if snapshots else {})
        self._reclaim = None  # measured on another branch (or another run): the next render measures anew

    def _load(self, data: Mapping[str, Any]) -> None:
        for name, wire in _WIRE_NAMES.items():
            value = _number(data.get(wire))
            setattr(self, name, value if name == "total_cost" else int(value))
        self._baseline = CostDelta(self.total_cost, self.total_input_tokens, self.total_output_tokens)

    def describe(self, chains: Sequence[ChainEntry]) -> str:
        """The `/pruner stats` block; `chains`: the compressed chains in effect on the branch, which the
        counters (a snapshot of the branch's own work) miss once `/tree` brought them from another branch."""
        session = self.session_delta()
        fused = sum(1 for chain in chains if chain.range_summary_text)
        return "\n".join([
            f"summarizer:   {counted(self.call_count, 'call')} on this branch, "
            f"{format_compact_count(self.total_input_tokens)} tokens in, "
            f"{format_compact_count(self.total_output_tokens)} out, {format_cost(self.total_cost)} "
            f"({format_cost(session.total_cost)} this session)",
            f"chains:       {len(chains)} compressed, {fused} with a fused summary",
        ])


def _round(value: float) -> int:
    """Half up, like the footer of the reference (Python's round() goes to even)."""
    return math.floor(value + 0.5)


def _fixed(value: float, places: int) -> str:
    """Ties away from zero on the exact value, as Pi's footer does: 1250 tokens read 1.3k, not 1.2k."""
    return str(Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def format_compact_count(count: int) -> str:
    if count >= 1_000_000:
        return f"{_fixed(count / 1_000_000, 1)}M"
    if count >= 1_000:
        return f"{_fixed(count / 1_000, 1)}k"
    return str(count)


def format_tokens(count: int) -> str:
    """Pi's footer units (999, 1.2k, 12k, 1.2M, 12M): the status line's figures sit beside its context figure."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{_fixed(count / 1000, 1)}k"
    if count < 1_000_000:
        return f"{_round(count / 1000)}k"
    if count < 10_000_000:
        return f"{_fixed(count / 1_000_000, 1)}M"
    return f"{_round(count / 1_000_000)}M"


def format_cost(dollars: float) -> str:
    return "<$0.001" if 0 < dollars < 0.001 else f"${_fixed(dollars, 3)}"


def status_text(enabled: bool, reclaim: Reclaim | None, diag_counts: Mapping[DiagnosticKind, int] | None,
                reads_tokens: int | None = None) -> str:
    """The footer segment: `prune: ON · reads 8.6k · saves 1.3k (-13%) · diag u2/o1`.

    `reads_tokens` is what the model reads now, in the tokens of the footer's context figure (the host's
    count); the saving is measured on the same text, so the two add up to what it would read unpruned.
    Without a count from the host, the reading is the pruned text's own chars/4 estimate.
    """
    if not enabled:
        return "prune: OFF"
    suffix = status_suffix(diag_counts or {})
    if reclaim is None or reclaim.before_chars <= 0:
        return f"prune: ON{suffix}"
    saved = reclaim.saved_tokens
    reads = _round(reclaim.after_chars / 4) if reads_tokens is None else max(0, reads_tokens)
    whole = reads + saved
    percent = _round(saved / whole * 100) if whole else 0
    return f"prune: ON · reads {format_tokens(reads)} · saves {format_tokens(saved)} (-{percent}%){suffix}"


def status_line(text: str) -> str:
    """Every footer state, progress strings included, gets one leading bar: the footer joins segments
    with a space, so a trailing bar would double up with the next segment's."""
    return f"│ {text}"
