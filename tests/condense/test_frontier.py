"""The prune frontier (`src/frontier.test.ts`) and the frontier trim of a batch (`trimBatchToPendingRange`).

The reference's fifth scenario ("a legacy frontier entry with thinkingStripBoundaryTimestamp resumes
without error and strips nothing") runs the whole render pipeline and is covered with it.
"""

from __future__ import annotations

from typing import Any

from condense.frontier import Frontier, reconstruct, trim_batch
from condense.records import FRONTIER, Batch, ToolCallRecord

FULL = {
    "lastAttemptedToolCallId": "tc1",
    "lastAttemptedToolName": "bash",
    "lastAttemptedTurnIndex": 3,
    "lastAttemptedTimestamp": 1000,
    "attemptedBatchCount": 1,
    "attemptedToolCallCount": 2,
    "rawCharCount": 500,
    "summaryCharCount": 100,
    "outcome": "summarized",
}


def frontier_entry(data: Any) -> dict[str, Any]:
    return {"type": "custom", "id": "0a1b2c3d", "parentId": None, "customType": FRONTIER, "data": data}


def call(call_id: str, result_ts: int | None = None) -> ToolCallRecord:
    args = {"command": "ls"}
    return ToolCallRecord(call_id, "bash", args, "out", False, 3, 900, result_timestamp=result_ts)


def batch(turn_index: int, *calls: ToolCallRecord) -> Batch:
    return Batch(turn_index=turn_index, timestamp=900, assistant_text="", tool_calls=list(calls))


def at(turn_index: int, last_call: str) -> Frontier:
    return Frontier(last_attempted_tool_call_id=last_call, last_attempted_turn_index=turn_index)


def nothing_summarized(_key: str) -> bool:
    return False


# --------------------------------------------------------------------------------- from_json


def test_round_trips_a_full_frontier() -> None:
    frontier = Frontier.from_json(FULL)
    assert frontier is not None
    assert frontier.last_attempted_turn_index == 3
    assert frontier.outcome == "summarized"
    assert frontier.to_json() == FULL


def test_ignores_an_entry_with_no_last_attempted_tool_call_id() -> None:
    assert Frontier.from_json({k: v for k, v in FULL.items() if k != "lastAttemptedToolCallId"}) is None
    assert Frontier.from_json({**FULL, "lastAttemptedToolCallId": ""}) is None
    assert Frontier.from_json(None) is None


def test_tolerates_a_legacy_entry_carrying_the_removed_thinking_strip_boundary_timestamp() -> None:
    frontier = Frontier.from_json({**FULL, "thinkingStripBoundaryTimestamp": 777})
    assert frontier is not None
    assert frontier.to_json() == FULL  # the field is dropped


def test_missing_fields_take_defaults() -> None:
    frontier = Frontier.from_json({"lastAttemptedToolCallId": "tc9", "outcome": "exploded"})
    assert frontier == Frontier(last_attempted_tool_call_id="tc9")
    assert (frontier.last_attempted_tool_name, frontier.outcome) == ("unknown", "summarized")


# ------------------------------------------------------------------------------- reconstruct


def test_reconstructs_from_a_persisted_frontier_entry() -> None:
    later = {**FULL, "lastAttemptedToolCallId": "tc7", "lastAttemptedTurnIndex": 5}
    later["outcome"] = "skipped-trivial"
    branch = [
        {"type": "message", "id": "00000001", "message": {"role": "user", "content": "hi", "timestamp": 1}},
        frontier_entry(FULL),
        {"type": "custom", "id": "00000002", "customType": "context-prune-stats", "data": {}},
        frontier_entry(later),
    ]
    assert reconstruct(branch) == Frontier.from_json(later)  # the last entry wins


def test_an_invalid_later_entry_does_not_erase_the_frontier() -> None:
    branch = [frontier_entry(FULL), frontier_entry({"outcome": "summarized"})]
    assert reconstruct(branch) == Frontier.from_json(FULL)


def test_no_frontier_entry_gives_none() -> None:
    assert reconstruct([]) is None


# ---------------------------------------------------------------------------------- the trim


def test_without_a_frontier_a_batch_is_kept_as_the_very_same_object() -> None:
    pending = batch(3, call("a", 10), call("b", 11))
    assert trim_batch(pending, None, nothing_summarized) is pending


def test_calls_already_summarized_are_dropped_by_occurrence_key() -> None:
    pending = batch(4, call("a", 10), call("a", 20))  # a reused id: only the first occurrence is done
    trimmed = trim_batch(pending, None, lambda key: key == "a@10")
    assert trimmed is not None and trimmed is not pending
    assert [c.key for c in trimmed.tool_calls] == ["a@20"]
    assert [c.key for c in pending.tool_calls] == ["a@10", "a@20"]  # the input is not mutated


def test_a_batch_whose_calls_are_all_summarized_is_dropped() -> None:
    assert trim_batch(batch(4, call("a", 10)), None, lambda key: True) is None


def test_a_batch_before_the_frontier_turn_is_dropped() -> None:
    assert trim_batch(batch(2, call("a", 10)), at(3, "x"), nothing_summarized) is None


def test_a_batch_after_the_frontier_turn_is_kept() -> None:
    pending = batch(4, call("a", 10))
    assert trim_batch(pending, at(3, "a"), nothing_summarized) is pending


def test_in_the_frontier_turn_only_calls_after_the_last_attempted_one_stay() -> None:
    pending = batch(3, call("a", 10), call("b", 11), call("c", 12))
    trimmed = trim_batch(pending, at(3, "b"), nothing_summarized)
    assert trimmed is not None
    assert [c.tool_call_id for c in trimmed.tool_calls] == ["c"]
    assert (trimmed.turn_index, trimmed.timestamp) == (3, 900)


def test_the_last_attempted_call_may_be_named_by_its_occurrence_key() -> None:
    trimmed = trim_batch(batch(3, call("a", 10), call("b", 11)), at(3, "a@10"), nothing_summarized)
    assert trimmed is not None
    assert [c.tool_call_id for c in trimmed.tool_calls] == ["b"]


def test_in_the_frontier_turn_an_unknown_last_call_keeps_every_call() -> None:
    pending = batch(3, call("a", 10), call("b", 11))
    assert trim_batch(pending, at(3, "zzz"), nothing_summarized) is pending


def test_in_the_frontier_turn_nothing_after_the_last_call_drops_the_batch() -> None:
    assert trim_batch(batch(3, call("a", 10), call("b", 11)), at(3, "b"), nothing_summarized) is None
