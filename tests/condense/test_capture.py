"""Scenarios of src/batch-capture.test.ts.

The serialisation scenarios (and the head+tail input window, ARCHITECTURE.md "Summariser input per
result") come first; the capture scenarios follow below them.
"""

from __future__ import annotations

from typing import Any

from condense.capture import capture_batch, capture_unindexed, group_batches
from condense.records import Batch, ToolCallRecord
from condense.summarize.serialize import serialize_batch, window_text


def _call(call_id: str, tool: str, args: dict[str, Any] | None = None, result: str = "ok",
          is_error: bool = False) -> ToolCallRecord:
    return ToolCallRecord(call_id, tool, args or {}, result, is_error, 0, 0)


# ----- serialize_batch (serializeBatchForSummarizer) -----


def test_prefixes_each_tool_block_with_n_toolname_in_order() -> None:
    text = serialize_batch(Batch(0, 0, "", [_call("a", "read", {"path": "a.ts"}), _call("b", "bash")]))
    assert "[[1:read]] Tool: read(" in text
    assert "[[2:bash]] Tool: bash(" in text
    assert text.index("[[1:read]]") < text.index("[[2:bash]]")


def test_numbering_is_contiguous_1_n_regardless_of_tool_call_id_values() -> None:
    calls = [_call("zzz", "read"), _call("aaa", "read"), _call("mmm", "write")]
    text = serialize_batch(Batch(0, 0, "", calls))
    assert "[[1:read]]" in text and "[[2:read]]" in text and "[[3:write]]" in text


def test_serialized_batch_layout() -> None:
    # Our exact layout: assistant text, a blank line, then the calls separated by `---` lines,
    # arguments as indented JSON, and the result status.
    calls = [_call("a", "read", {"path": "ü.py"}, "body"), _call("b", "bash", {}, "boom", is_error=True)]
    assert serialize_batch(Batch(0, 0, "Let me look.", calls)) == (
        "Assistant said: Let me look.\n\n"
        '[[1:read]] Tool: read({\n  "path": "ü.py"\n})\nResult (OK): body\n'
        "---\n"
        "[[2:bash]] Tool: bash({})\nResult (ERROR): boom"
    )
    assert serialize_batch(Batch(0, 0, "", calls[:1])).startswith("[[1:read]]")


def test_results_up_to_8000_chars_are_shown_whole() -> None:
    text = "a" * 8000
    assert window_text(text) is text


def test_longer_results_keep_4000_head_and_4000_tail_around_an_elision_marker() -> None:
    text = "H" * 4000 + "M" * 1234 + "T" * 4000
    assert window_text(text) == "H" * 4000 + " ...[1234 chars elided]... " + "T" * 4000
    just_over = "x" * 8001
    assert window_text(just_over) == "x" * 4000 + " ...[1 chars elided]... " + "x" * 4000
    serialized = serialize_batch(Batch(0, 0, "", [_call("a", "bash", {}, text)]))
    assert serialized.endswith("Result (OK): " + window_text(text))


# ----- capture scenarios: below this line -----


def _entry(message: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message", "timestamp": "2026-01-01T00:00:00.000Z", "message": message}


def _tc(call_id: str) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": "bash", "arguments": {"command": "ls"}}


def _asst(ts: int, *calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(calls), "stopReason": "toolUse", "timestamp": ts}


def _res(call_id: str, text: str, ts: int) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": ts}


def test_capture_batch_records_the_matched_results_timestamp() -> None:
    batch = capture_batch(_asst(2100, _tc("bash_23")), [_res("bash_23", "out", 2150)], 3, 9999)
    assert batch.tool_calls[0].result_timestamp == 2150
    assert batch.tool_calls[0].timestamp == 9999 and batch.turn_index == 3


def test_capture_batch_omits_result_timestamp_when_no_result_matched() -> None:
    batch = capture_batch(_asst(2100, _tc("bash_23")), [], 3, 9999)
    record = batch.tool_calls[0]
    assert record.result_timestamp is None and "resultTimestamp" not in record.to_json()
    assert record.result_text == "(no result)"


def test_rescan_pairs_each_assistant_with_the_results_of_its_own_turn_when_ids_repeat() -> None:
    branch = [_entry(_asst(1100, _tc("bash_23"))), _entry(_res("bash_23", "FIRST", 1150)),
              _entry(_asst(2100, _tc("bash_23"))), _entry(_res("bash_23", "SECOND", 2150))]
    batches = capture_unindexed(branch, lambda key: False, lambda name, args: False)
    assert [(b.tool_calls[0].result_text, b.tool_calls[0].result_timestamp) for b in batches] == [
        ("FIRST", 1150), ("SECOND", 2150)]
    assert [b.turn_index for b in batches] == [0, 1], "session-wide assistant index"


def test_rescan_asks_is_summarized_with_the_occurrence_key_not_the_bare_id() -> None:
    asked: list[str] = []
    branch = [_entry(_asst(1100, _tc("bash_23"))), _entry(_res("bash_23", "FIRST", 1150))]
    def is_summarized(key: str) -> bool:
        asked.append(key)
        return False

    capture_unindexed(branch, is_summarized, lambda name, args: False)
    assert asked == ["bash_23@1150"]


def test_rescan_still_skips_a_call_whose_result_has_not_arrived() -> None:
    branch = [_entry(_asst(1100, _tc("bash_23")))]
    assert capture_unindexed(branch, lambda key: False, lambda name, args: False) == []


def test_rescan_does_not_pair_a_result_that_falls_outside_its_own_assistants_turn_window() -> None:
    final = {"role": "assistant", "content": [{"type": "text", "text": "done"}], "timestamp": 1200}
    branch = [_entry(_asst(1100, _tc("bash_23"))), _entry(final), _entry(_res("bash_23", "LATE", 1300))]
    assert capture_unindexed(branch, lambda key: False, lambda name, args: False) == []


def test_agent_message_mode_merges_batches_of_one_user_turn() -> None:
    user = {"role": "user", "content": "go", "timestamp": 1}
    branch = [_entry(user), _entry(_asst(1100, _tc("a"))), _entry(_res("a", "A", 1150)),
              _entry(_asst(1200, _tc("b"))), _entry(_res("b", "B", 1250)),
              _entry(user), _entry(_asst(2100, _tc("c"))), _entry(_res("c", "C", 2150))]
    batches = capture_unindexed(branch, lambda key: False, lambda name, args: False)
    grouped = group_batches(batches, "agent-message")
    assert [[r.tool_call_id for r in b.tool_calls] for b in grouped] == [["a", "b"], ["c"]]
    assert group_batches(batches, "turn") is batches
