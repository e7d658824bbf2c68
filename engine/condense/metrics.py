"""Context metrics: how much of the branch pruning cannot take back (yet), made visible.

A session that runs one long tool loop never closes a chain, so chain compression never touches it and
per-batch summaries are the only lever; without these numbers such a session looks healthy. All three
are estimates from the persisted branch (not the rendered context): characters of compact JSON, as
JavaScript's `JSON.stringify` writes them, divided by 4 and rounded half up (the footer's convention).

- Open-cycle thinking: thinking blocks after the last text-only assistant reply. Not windowed by the
  frontier, since a skipped flush advances the frontier without removing anything from the context.
- Largest chain share: the larger of the biggest chain (closed, or interrupted by a new user message)
  and the open segment, as a percentage of the whole branch. Near 100 for a single-chain session.
- Frontier gap: tool results past the frontier that a flush could still summarize (not summarized yet,
  not protected, not before a compaction's cut, which no request carries). 0 when there is nothing left
  to capture.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from condense.capture import call_args
from condense.entry_log import custom_message_of
from condense.frontier import Frontier
from condense.measure import json_chars
from condense.messages import tool_calls
from condense.occurrence import bare_id, message_key
from condense.prefix import Following
from condense.stats import format_compact_count

# Work a reload found on the branch, outside the pending count: said the same in the footer and the status.
REARMED = "earlier tool output not summarized yet (next flush)"

IsSummarized = Callable[[str], bool]
IsProtected = Callable[[str, dict[str, Any]], bool]


@dataclass(frozen=True)
class ContextMetrics:
    open_cycle_thinking_tokens: int = 0
    largest_chain_share_pct: int = 0
    frontier_gap_tokens: int = 0

    def to_json(self) -> dict[str, int]:
        """The `metrics` object of a `context-prune-flush-metrics` entry."""
        return {
            "openCycleThinkingTokens": self.open_cycle_thinking_tokens,
            "largestChainSharePct": self.largest_chain_share_pct,
            "frontierGapTokens": self.frontier_gap_tokens,
        }


def _tokens(chars: int) -> int:
    """chars / 4 rounded half up, in integers (Python's round() would round 2.5 to 2)."""
    return (chars + 2) // 4


def _percent(part: int, whole: int) -> int:
    """100 * part / whole rounded half up, in integers; 0 for an empty whole."""
    return (200 * part + whole) // (2 * whole) if whole else 0


def _is_text_only_assistant(message: Mapping[str, Any]) -> bool:
    return message.get("role") == "assistant" and not tool_calls(message)


def _thinking_chars(message: Mapping[str, Any]) -> int:
    content = message.get("content")
    if message.get("role") != "assistant" or not isinstance(content, list):
        return 0
    return sum(json_chars(block) for block in content if isinstance(block, dict) and block.get("type") == "thinking")


@dataclass(frozen=True)
class _Result:
    position: int
    call_id: str
    key: str
    tool_name: str
    args: dict[str, Any]  # of the nearest preceding call with its id
    size: int


class MetricsScan:
    """The branch's messages (`message` entries, and `custom_message` entries, the pruner's own summaries
    among them, which count toward the whole but never start or join a chain) measured as they come.
    Kept between flushes, a long branch is walked only where it grew; any other change starts over.

    Chains: a user message through the text-only assistant reply that closes it, or through the message
    before the next user message that interrupted it; the chain still open at the end lies inside the
    open segment (after the last text-only reply), which is measured on its own."""

    def __init__(self) -> None:
        self._seen = Following()  # the branch as measured
        self._reset()

    def _reset(self) -> None:
        self._count = 0
        self._total = 0
        self._largest_chain = 0
        self._chain: int | None = None  # size of the chain open now
        self._open = 0  # size of the open segment
        self._open_thinking = 0
        self._assistants: list[tuple[int, Mapping[str, Any]]] = []
        self._results: list[_Result] = []
        self._latest_args: dict[str, dict[str, Any]] = {}  # per id, the arguments of its latest call

    def of(self, branch_entries: list[dict[str, Any]]) -> MetricsScan:
        held = self._seen.follow(branch_entries)
        if not held:
            self._reset()
        for entry in branch_entries[held:]:
            kind = entry.get("type")
            if kind == "message" and isinstance(entry.get("message"), dict):
                self._add(entry["message"])
            elif kind == "custom_message":
                self._add(custom_message_of(entry))
        return self

    def _add(self, message: Mapping[str, Any]) -> None:
        position, size, role = self._count, json_chars(message), message.get("role")
        self._count += 1
        self._total += size
        if role == "user":
            if self._chain is not None:
                self._largest_chain = max(self._largest_chain, self._chain)
            self._chain = 0
        if self._chain is not None:
            self._chain += size
        if _is_text_only_assistant(message):
            if self._chain is not None:
                self._largest_chain = max(self._largest_chain, self._chain)
            self._chain = None
            self._open = self._open_thinking = 0
        else:
            self._open += size
            self._open_thinking += _thinking_chars(message)
        if role == "assistant":
            self._assistants.append((position, message))
            self._latest_args.update((str(call.get("id")), call_args(call)) for call in tool_calls(message))
        elif role == "toolResult":
            call_id = str(message.get("toolCallId"))
            self._results.append(_Result(position, call_id, message_key(message), str(message.get("toolName", "")),
                                         self._latest_args.get(call_id, {}), size))

    def metrics(self, frontier: Frontier | None, is_summarized: IsSummarized,
                is_protected: IsProtected, cut_turn: int = 0) -> ContextMetrics:
        if not self._count:
            return ContextMetrics()
        return ContextMetrics(
            open_cycle_thinking_tokens=_tokens(self._open_thinking),
            largest_chain_share_pct=_percent(max(self._largest_chain, self._open), self._total),
            frontier_gap_tokens=self._frontier_gap_tokens(frontier, is_summarized, is_protected, cut_turn),
        )

    def _turn_start(self, turn: int) -> int:
        """Where assistant turn `turn` (counted from 0 as capture counts them) starts; the end of the
        branch when there is no such turn yet."""
        if turn <= 0:
            return 0
        return self._assistants[turn][0] if turn < len(self._assistants) else self._count

    def _frontier_boundary(self, frontier: Frontier | None) -> tuple[int, int, frozenset[str]]:
        """Where counting starts: (first position to scan, end of the frontier's own turn, ids of that
        turn's calls up to and including the last attempted one). Exclusion is positional because ids
        are reused: a later turn's call with the same id still counts. When the frontier's turn or call
        is not on this branch the whole branch counts."""
        nothing = (0, 0, frozenset[str]())
        if frontier is None:
            return nothing
        turn = frontier.last_attempted_turn_index
        if not 0 <= turn < len(self._assistants):
            return nothing
        last = frontier.last_attempted_tool_call_id  # a bare id or an occurrence key
        position, message = self._assistants[turn]
        ids = [str(call.get("id")) for call in tool_calls(message)]
        found = next((i for i, call_id in enumerate(ids) if call_id in (last, bare_id(last))), None)
        if found is None:
            return nothing
        turn_end = self._assistants[turn + 1][0] if turn + 1 < len(self._assistants) else self._count
        return position + 1, turn_end, frozenset(ids[: found + 1])

    def _frontier_gap_tokens(self, frontier: Frontier | None, is_summarized: IsSummarized,
                             is_protected: IsProtected, cut_turn: int) -> int:
        scan_from, turn_end, attempted = self._frontier_boundary(frontier)
        scan_from = max(scan_from, self._turn_start(cut_turn))
        tokens = 0
        for result in self._results[bisect.bisect_left(self._results, scan_from, key=lambda r: r.position):]:
            if result.position < turn_end and result.call_id in attempted:
                continue
            if is_summarized(result.key) or is_protected(result.tool_name, result.args):
                continue
            tokens += _tokens(result.size)
        return tokens


def compute_context_metrics(branch_entries: list[dict[str, Any]], frontier: Frontier | None,
                            is_summarized: IsSummarized, is_protected: IsProtected,
                            scan: MetricsScan | None = None, cut_turn: int = 0) -> ContextMetrics:
    """The three metrics of the branch (session entries, root to leaf). Turn indexes count every
    assistant message from 0, as capture does, so the frontier's turn is found where the flush left it,
    and a compaction's cut (`cut_turn`, the first turn the context still holds) where the flusher has it.
    `scan` remembers the branch from one flush to the next (a fresh one measures everything)."""
    return (scan or MetricsScan()).of(branch_entries).metrics(frontier, is_summarized, is_protected, cut_turn)


def status_block(metrics: ContextMetrics | None, rearmed: bool) -> list[str]:
    """The `--- context ---` lines of `/pruner status` (none when metrics are unavailable), then
    a line saying so when a reload found tool output not summarized yet;
    that line does not depend on the metrics."""
    lines = []
    if metrics is not None:
        lines += [
            "--- context ---",
            f"thinking:     {format_compact_count(metrics.open_cycle_thinking_tokens)} tokens (open segment)",
            f"chain share:  {metrics.largest_chain_share_pct}% of the context is the largest chain (one task's work)",
            f"frontier gap: {format_compact_count(metrics.frontier_gap_tokens)} tokens",
        ]
    if rearmed:
        lines.append(REARMED)
    return lines
