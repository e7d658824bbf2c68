"""The prune frontier: where the last flush attempt stopped, so nothing before it is attempted again.

It advances on every attempt that processed a batch, including skips (oversized, trivial, deduplicated):
otherwise the same batch would be re-sent to the summarizer, and skipped again, on every flush. It is
persisted as `context-prune-frontier` entries; the last valid one on the branch wins.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeGuard, get_args

from condense.record_bursts import records_of
from condense.records import FRONTIER, Batch

BatchOutcome = Literal["summarized", "skipped-oversized", "skipped-trivial", "skipped-deduped"]

_WIRE_NAMES = {
    "last_attempted_tool_call_id": "lastAttemptedToolCallId",
    "last_attempted_tool_name": "lastAttemptedToolName",
    "last_attempted_turn_index": "lastAttemptedTurnIndex",
    "last_attempted_timestamp": "lastAttemptedTimestamp",
    "attempted_batch_count": "attemptedBatchCount",
    "attempted_tool_call_count": "attemptedToolCallCount",
    "raw_char_count": "rawCharCount",
    "summary_char_count": "summaryCharCount",
    "outcome": "outcome",
}


def _is_outcome(value: object) -> TypeGuard[BatchOutcome]:
    return value in get_args(BatchOutcome)


def _int(value: Any) -> int:
    is_number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return int(value) if is_number else 0


@dataclass(frozen=True)
class Frontier:
    last_attempted_tool_call_id: str  # as the flush wrote it: a bare id or an occurrence key
    last_attempted_tool_name: str = "unknown"
    last_attempted_turn_index: int = 0
    last_attempted_timestamp: int = 0
    attempted_batch_count: int = 0
    attempted_tool_call_count: int = 0
    raw_char_count: int = 0
    summary_char_count: int = 0
    outcome: BatchOutcome = "summarized"

    def to_json(self) -> dict[str, Any]:
        return {wire: getattr(self, name) for name, wire in _WIRE_NAMES.items()}

    @classmethod
    def from_json(cls, data: Any) -> Frontier | None:
        """None for an entry without a tool call id; missing fields take defaults, unknown ones (such as
        the retired `thinkingStripBoundaryTimestamp`) are ignored."""
        if not isinstance(data, Mapping):
            return None
        call_id = data.get("lastAttemptedToolCallId")
        if not isinstance(call_id, str) or not call_id:
            return None
        name = data.get("lastAttemptedToolName")
        outcome = data.get("outcome")
        return cls(
            last_attempted_tool_call_id=call_id,
            last_attempted_tool_name=name if isinstance(name, str) else "unknown",
            last_attempted_turn_index=_int(data.get("lastAttemptedTurnIndex")),
            last_attempted_timestamp=_int(data.get("lastAttemptedTimestamp")),
            attempted_batch_count=_int(data.get("attemptedBatchCount")),
            attempted_tool_call_count=_int(data.get("attemptedToolCallCount")),
            raw_char_count=_int(data.get("rawCharCount")),
            summary_char_count=_int(data.get("summaryCharCount")),
            outcome=outcome if _is_outcome(outcome) else "summarized",
        )


def reconstruct(branch_entries: Sequence[Mapping[str, Any]]) -> Frontier | None:
    """The last valid frontier entry of the branch (an invalid later one does not erase it)."""
    frontier = None
    for data in records_of(branch_entries, FRONTIER):
        frontier = Frontier.from_json(data) or frontier
    return frontier


def trim_batch(batch: Batch, frontier: Frontier | None, is_summarized: Callable[[str], bool]) -> Batch | None:
    """The part of a batch still to attempt, or None when nothing is left.

    Calls already summarized (by occurrence key) go; then a batch of an earlier turn than the frontier's
    goes entirely, a later one stays, and in the frontier's own turn only the calls after the last
    attempted one stay (all of them if that call is not in the batch). An untouched batch is returned as
    the very same object.
    """
    calls = [call for call in batch.tool_calls if not is_summarized(call.key)]
    if frontier is not None and calls:
        if batch.turn_index < frontier.last_attempted_turn_index:
            return None
        if batch.turn_index == frontier.last_attempted_turn_index:
            last = frontier.last_attempted_tool_call_id
            ids = [(call.tool_call_id, call.key) for call in calls]
            position = next((i for i, names in enumerate(ids) if last in names), None)
            calls = calls if position is None else calls[position + 1 :]
    if not calls:
        return None
    return batch if len(calls) == len(batch.tool_calls) else replace(batch, tool_calls=calls)
