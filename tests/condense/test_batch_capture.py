"""Scenarios of src/batch-capture.test.ts.

The serialisation scenarios (and the head+tail input window, ARCHITECTURE.md "Summariser input per
result") come first; the capture scenarios follow below them.
"""

from __future__ import annotations

from condense.records import Batch, ToolCallRecord
from condense.summarize.serialize import serialize_batch, window_text


def _call(call_id: str, tool: str, args: dict | None = None, result: str = "ok",
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
