"""The model-free summariser: labelled bullets that carry the telling lines of each output."""

from __future__ import annotations

import copy
from typing import Any

from condense.records import Batch, SummaryRef, ToolCallRecord
from condense.summarize.extractive import extractive_range, extractive_summary
from condense.summarize.refs import build_short_refs, build_summary_content


def call(call_id: str, tool: str, args: dict[str, Any], result: str, is_error: bool = False) -> ToolCallRecord:
    return ToolCallRecord(call_id, tool, args, result, is_error, 3, 100)


def big_test_run() -> str:
    """About 40 KB of passing test lines with a failure near the end and a verdict as the last line."""
    lines = [f"tests/unit/test_module_{i:04d}.py::test_behaviour_{i} PASSED   [{i % 100:3d}%]"
             for i in range(600)]
    lines[-40] = "FAILED tests/unit/test_parser.py::test_unicode - AssertionError: 'é' != 'e'"
    lines.append("Command exited with code 1")
    return "\n".join(lines)


BATCH = Batch(3, 100, "Running the tests.", [
    call("x9", "bash", {"command": "pytest -q tests/unit"}, big_test_run(), is_error=True),
    call("a1", "read", {"path": "src/parser.py"},
         "import re\n\n\ndef parse(text: str) -> list[str]:\n    ...\n"),
    call("b2", "edit", {"path": "src/parser.py", "oldText": "x", "newText": "y"},
         "Successfully replaced text in src/parser.py."),
    call("c3", "write", {"path": "docs/notes.md", "content": "# Notes\n"},
         "Successfully wrote 8 bytes to docs/notes.md"),
])


def test_every_call_gets_one_labelled_bullet_that_inline_refs_substitute() -> None:
    text = extractive_summary(BATCH)
    lines = text.split("\n")
    labels = [line.split(" ", 2)[1] for line in lines]
    assert labels == ["[[1:bash]]", "[[2:read]]", "[[3:edit]]", "[[4:write]]"]
    refs, _ = build_short_refs(BATCH.tool_calls, 7)
    content = build_summary_content(text, refs, BATCH.tool_calls)
    body = content.split("\n\n---\n")[0]
    assert "[[" not in body
    assert [line.split(" ", 2)[1] for line in body.split("\n")] == ["`t7`", "`t8`", "`t9`", "`t10`"]


def test_error_lines_and_the_failure_are_kept() -> None:
    bullet = extractive_summary(BATCH).split("\n")[0]
    assert "`pytest -q tests/unit`" in bullet
    assert "failed" in bullet
    assert "FAILED tests/unit/test_parser.py::test_unicode - AssertionError: 'é' != 'e'" in bullet
    assert "Command exited with code 1" in bullet


def test_traceback_lines_are_kept_and_the_last_line_closes_a_read() -> None:
    output = "Traceback (most recent call last):\n  File \"app.py\", line 3\nKeyError: 'name'"
    failing = call("t", "bash", {"command": "python app.py"}, output, is_error=True)
    bullet = extractive_summary(Batch(0, 0, "", [failing]))
    assert "Traceback (most recent call last):" in bullet
    assert "KeyError: 'name'" in bullet
    read = extractive_summary(BATCH).split("\n")[1]
    assert "first: import re" in read and "last: ..." in read


def test_a_40_kb_output_shrinks_to_a_bounded_bullet() -> None:
    raw = BATCH.tool_calls[0].result_text
    assert len(raw) >= 40_000
    bullet = extractive_summary(BATCH).split("\n")[0]
    assert len(bullet) <= 400


def test_a_bullet_never_exceeds_30_percent_of_an_output_over_1000_chars() -> None:
    output = "\n".join(f"src/pkg/module_{i}.py: error: something went wrong at line {i}" for i in range(17))
    assert 1_000 < len(output) < 1_333
    bullet = extractive_summary(Batch(0, 0, "", [call("g", "grep", {"pattern": "error"}, output)]))
    assert len(bullet) <= int(len(output) * 0.3)


def test_the_same_batch_always_gives_the_same_text() -> None:
    first = extractive_summary(BATCH)
    assert extractive_summary(copy.deepcopy(BATCH)) == first
    assert extractive_summary(BATCH) == first


def test_edit_and_write_calls_mention_the_path() -> None:
    lines = extractive_summary(BATCH).split("\n")
    assert lines[2].startswith("- [[3:edit]] edit `src/parser.py`:")
    assert lines[3].startswith("- [[4:write]] write `docs/notes.md`:")


def test_an_empty_output_is_said_to_be_empty() -> None:
    calls = [call("l", "ls", {"path": "build"}, ""), call("f", "find", {}, "", True)]
    text = extractive_summary(Batch(0, 0, "", calls))
    assert text == "- [[1:ls]] ls `build`: no output\n- [[2:find]] find: failed, no output"


def test_range_fusion_joins_bullets_under_one_list_of_refs() -> None:
    first = build_summary_content("- [[1:read]] read a.py", *_refs("t1", "read"))
    second = build_summary_content("- [[1:bash]] ran ls\n\n- plain note", *_refs("t2", "bash"))
    fused = extractive_range([first, second])
    assert fused == "- `t1` read a.py\n- `t2` ran ls\n- plain note\n**Summarized tool refs**: `t1`, `t2`."
    refolded = extractive_range([fused, first])  # a fused range can be fused again
    expected = [*fused.split("\n")[:3], "- `t1` read a.py", "**Summarized tool refs**: `t1`, `t2`."]
    assert refolded == "\n".join(expected)


def test_range_fusion_of_bodies_without_footers_keeps_them_as_they_are() -> None:
    assert extractive_range(["- `t1` a", "- `t2` b `b3`"]) == "- `t1` a\n- `t2` b `b3`"
    assert extractive_range([]) == ""


def _refs(short_id: str, tool: str) -> tuple[list[SummaryRef], list[ToolCallRecord]]:
    records = [call("id", tool, {}, "")]
    refs, _ = build_short_refs(records, int(short_id[1:]))
    return refs, records
