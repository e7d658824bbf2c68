"""Scenarios of the reference's `src/query-tool.test.ts`, plus sidecar read-back, the truncation line and
hostile input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from condense.index import ToolCallIndexer
from condense.paging import FIRST_PAGE, MAX_BYTES, Page
from condense.query import (
    QUERY_TOOL_DESCRIPTION,
    QUERY_TOOL_NAME,
    QUERY_TOOL_PARAMETERS,
    QueryArguments,
    QueryError,
    run_query,
)
from condense.records import SummaryRef, ToolCallRecord


def ignore(_custom_type: str, _data: Any) -> None:
    pass


def capture(indexer: ToolCallIndexer, call_id: str, ts: int | None, text: str, turn: int, *,
            batch_ts: int | None = None, **extra: Any) -> None:
    when = batch_ts if batch_ts is not None else (ts or 0) - 50
    record = ToolCallRecord(call_id, "bash", {"cmd": "ls"}, text, False, turn, when, ts, **extra)
    indexer.add_batch([record], ignore)


def query(indexer: ToolCallIndexer, *ids: str) -> str:
    return run_query(indexer, list(ids))[0]


def test_a_bare_id_with_two_occurrences_returns_both_blocks_chronologically() -> None:
    indexer = ToolCallIndexer()
    capture(indexer, "bash_23", 2150, "SECOND", 1)
    capture(indexer, "bash_23", 1150, "FIRST", 0)
    text = query(indexer, "bash_23")
    assert text.count("## toolRef:") == 2
    assert -1 < text.index("FIRST") < text.index("SECOND")


def test_an_occurrence_key_returns_exactly_one_block() -> None:
    indexer = ToolCallIndexer()
    capture(indexer, "bash_23", 1150, "FIRST", 0)
    capture(indexer, "bash_23", 2150, "SECOND", 1)
    text = query(indexer, "bash_23@2150")
    assert text.count("## toolRef:") == 1
    assert "SECOND" in text and "FIRST" not in text


def test_an_unknown_id_still_reports_not_found_once() -> None:
    text, details = run_query(ToolCallIndexer(), ["nope"])
    assert text == "## toolRef: nope\n(not found in index — may not have been summarized yet)"
    assert details == {"results": {}}


def test_a_single_match_still_labels_with_the_caller_s_input_and_has_no_at_suffix() -> None:
    indexer = ToolCallIndexer()
    capture(indexer, "bash_23", 1150, "FIRST", 0)
    text, details = run_query(indexer, ["bash_23"])
    assert text == '## toolRef: bash_23\nTool: bash\nArgs: {\n  "cmd": "ls"\n}\nStatus: OK\nTurn: 0\n\nFIRST'
    assert list(details["results"]) == ["bash_23"]
    assert details["results"]["bash_23"]["resultTimestamp"] == 1150
    capture(indexer, "bash_7", None, "OLD", 0, batch_ts=500)
    assert query(indexer, "bash_7").startswith("## toolRef: bash_7\nTool: bash\n")  # no legacy note alone


def test_g5_conformance_a_content_deduplicated_bare_id_collision_still_returns_both_occurrences() -> None:
    indexer = ToolCallIndexer()
    capture(indexer, "bash_23", 1150, "SAME", 0)
    indexer.register_duplicate("bash_23@9150", "bash_23@1150", ignore)
    assert len(indexer.get_records_for_id("bash_23")) == 2
    text = query(indexer, "bash_23")
    assert text.count("## toolRef:") == 2
    assert "## toolRef: bash_23@1150\n" in text
    assert "## toolRef: bash_23@9150\n" in text


def test_g4_c1_colliding_short_refs_each_resolve_to_their_own_batch() -> None:
    indexer = ToolCallIndexer()
    capture(indexer, "bash_23", 1150, "FIRST", 0)
    capture(indexer, "bash_23", 2150, "SECOND", 1)
    indexer.register_summary_refs([SummaryRef("t1", "bash_23", 1150), SummaryRef("t2", "bash_23", 2150)])
    first, second = query(indexer, "t1"), query(indexer, "t2")
    assert first.count("## toolRef:") == 1 and "FIRST" in first and "SECOND" not in first
    assert second.count("## toolRef:") == 1 and "SECOND" in second and "FIRST" not in second
    assert first.startswith("## toolRef: t1\n")


def test_mixed_legacy_new_occurrence_under_the_same_bare_id_legacy_record_labels_with_the_bare_id() -> None:
    indexer = ToolCallIndexer()
    capture(indexer, "bash_23", None, "OLD", 0, batch_ts=1000)
    capture(indexer, "bash_23", 2150, "NEW", 1)
    text = query(indexer, "bash_23")
    assert text.count("## toolRef:") == 2
    assert "## toolRef: bash_23\nOccurrence: legacy (no resultTimestamp)\nTool: bash\n" in text
    assert "## toolRef: bash_23@2150\nTool: bash\n" in text
    assert "None" not in text and "@legacy" not in text
    assert text.count("Occurrence: legacy") == 1


def test_backfilled_record_turn_index_minus_1_renders_turn_minus_1() -> None:
    indexer = ToolCallIndexer()
    record = ToolCallRecord("bash_bf", "bash", {"command": "ls"}, "backfilled-output", False, -1, 1, 1)
    indexer.backfill_chain_records([record], ignore, None)
    assert "Turn: -1\n" in query(indexer, "bash_bf@1")


# ----- beyond the reference -----


def test_blocks_are_joined_by_a_rule_and_errors_show_their_status() -> None:
    indexer = ToolCallIndexer()
    error = ToolCallRecord("e1", "edit", {"path": "a.py", "note": "é"}, "boom", True, 3, 10, 11)
    indexer.add_batch([error], ignore)
    text = query(indexer, "e1@11", "missing")
    first, second = text.split("\n\n---\n\n")
    assert first == '## toolRef: e1@11\nTool: edit\nArgs: {\n  "path": "a.py",\n  "note": "é"\n}\n' \
                    "Status: ERROR\nTurn: 3\n\nboom"
    assert second.startswith("## toolRef: missing\n(not found in index")


def test_spilled_output_is_read_back_from_its_sidecar(tmp_path: Path) -> None:
    sidecar = tmp_path / "big.txt"
    sidecar.write_text("FULL BODY\n" * 3)
    indexer = ToolCallIndexer()
    capture(indexer, "big", 10, "", 0, spill_path=str(sidecar), result_preview="FULL")
    assert query(indexer, "big").endswith("Turn: 0\n\n" + "FULL BODY\n" * 3)


def test_a_missing_sidecar_falls_back_to_the_preview_or_says_so(tmp_path: Path) -> None:
    indexer = ToolCallIndexer()
    capture(indexer, "a", 10, "", 0, spill_path=str(tmp_path / "gone-a.txt"), result_preview="HEAD OF A")
    capture(indexer, "b", 20, "", 0, spill_path=str(tmp_path / "gone-b.txt"))
    assert query(indexer, "a").endswith("\n\nHEAD OF A")
    assert query(indexer, "b").endswith("\n\n(spilled output unavailable — sidecar file missing)")


def test_long_output_is_cut_to_2000_whole_lines_with_the_truncation_line() -> None:
    indexer = ToolCallIndexer()
    capture(indexer, "long", 10, "\n".join(f"line {n}" for n in range(1, 2501)), 0)
    body = query(indexer, "long").split("\n\n", 1)[1]
    lines = body.split("\n")
    assert lines[:2] == ["line 1", "line 2"]
    assert lines[-2:] == ["line 2000", '[Output truncated: 2000/2500 lines shown. Continue with '
                                       'context_tree_query({"toolCallIds": ["long"], "offset": 2001})]']


def test_wide_output_is_cut_at_50_kb_keeping_whole_lines() -> None:
    indexer = ToolCallIndexer()
    row = "é" * 499  # 998 bytes + newline = 999 bytes per line
    capture(indexer, "wide", 10, "\n".join([row] * 100), 0)
    body = query(indexer, "wide").split("\n\n", 1)[1]
    kept, notice = body.rsplit("\n", 1)
    # 51 * 999 - 1 <= 51200 < 52 * 999 - 1
    assert notice.startswith("[Output truncated: 51/100 lines shown. Continue with ")
    assert kept == "\n".join([row] * 51)


def test_a_first_line_over_the_byte_limit_is_cut_inside_and_says_where_the_rest_starts() -> None:
    """Pi's head truncation showed nothing of such an output (`0/2 lines shown`)."""
    indexer = ToolCallIndexer()
    capture(indexer, "huge", 10, "x" * 60_000 + "\nsecond", 0)
    assert query(indexer, "huge").endswith(
        "Turn: 0\n\n" + "x" * MAX_BYTES + "\n[Output truncated: line 1 of 2, characters 1-51200 of 60000 shown. "
        'Continue with context_tree_query({"toolCallIds": ["huge"], "offset": 1, "column": 51201})]')


def test_output_exactly_at_the_limits_is_not_truncated() -> None:
    indexer = ToolCallIndexer()
    text = "\n".join(["y"] * 2000) + "\n"
    capture(indexer, "edge", 10, text, 0)
    assert query(indexer, "edge").endswith("\n\n" + text)


def test_hostile_ids_are_reported_not_found_without_touching_the_disk(tmp_path: Path) -> None:
    indexer = ToolCallIndexer()
    capture(indexer, "real", 10, "REAL", 0)
    hostile = ["../../etc/passwd", "", "a\0b", "x" * 4000, "t999", "real@", "@10", "real@10@10"]
    text, details = run_query(indexer, hostile)
    assert text.count("(not found in index") == len(hostile)
    assert details == {"results": {}}
    assert list(tmp_path.iterdir()) == []


def test_tool_metadata_names_refs_occurrences_and_gives_an_example() -> None:
    assert QUERY_TOOL_NAME == "context_tree_query"
    assert "t12" in QUERY_TOOL_DESCRIPTION and "id@timestamp" in QUERY_TOOL_DESCRIPTION
    assert 'context_tree_query({"toolCallIds": [' in QUERY_TOOL_DESCRIPTION
    assert QUERY_TOOL_PARAMETERS["required"] == ["toolCallIds"]
    assert QUERY_TOOL_PARAMETERS["properties"]["toolCallIds"]["items"]["type"] == "string"
    json.dumps(QUERY_TOOL_PARAMETERS)  # plain JSON, ready for any provider


def test_a_sidecar_whose_recorded_path_went_stale_is_read_from_the_session_s_blobs_folder(tmp_path: Path) -> None:
    """Older stores recorded the path relative to the writer's folder; any store may have moved since."""
    blobs = tmp_path / "sid-blobs"
    blobs.mkdir()
    (blobs / "bash_7.txt").write_text("SPILLED BODY")
    indexer = ToolCallIndexer()
    capture(indexer, "bash_7", None, "", 0, spill_path="elsewhere/sid-blobs/bash_7.txt", result_preview="HEAD")
    assert run_query(indexer, ["bash_7"], blobs)[0].endswith("SPILLED BODY")
    assert run_query(indexer, ["bash_7"])[0].endswith("HEAD")  # no folder to look in: the preview


def test_a_page_applies_to_each_output_and_its_notice_names_that_output() -> None:
    indexer = ToolCallIndexer()
    capture(indexer, "bash_1", 1150, "\n".join(f"first {n}" for n in range(1, 11)), 0)
    capture(indexer, "bash_1", 2150, "\n".join(f"second {n}" for n in range(1, 11)), 1)
    text, _ = run_query(indexer, ["bash_1"], page=Page(offset=4, limit=2))
    first, second = text.split("\n\n---\n\n")
    assert first.endswith('first 4\nfirst 5\n[Output truncated: lines 4-5 of 10 shown. Continue with '
                          'context_tree_query({"toolCallIds": ["bash_1@1150"], "offset": 6, "limit": 2})]')
    assert second.endswith('second 5\n[Output truncated: lines 4-5 of 10 shown. Continue with '
                           'context_tree_query({"toolCallIds": ["bash_1@2150"], "offset": 6, "limit": 2})]')


def test_the_schema_and_the_validation_accept_the_same_arguments() -> None:
    properties = QUERY_TOOL_PARAMETERS["properties"]
    assert set(properties) == set(QueryArguments.model_fields)
    assert {name for name, field in QueryArguments.model_fields.items() if field.is_required()} == {"toolCallIds"}
    for name in ("offset", "column", "limit"):
        assert properties[name]["minimum"] == 1
        assert QueryArguments.model_validate({"toolCallIds": [], name: 1}) is not None
        with pytest.raises(ValidationError):
            QueryArguments.model_validate({"toolCallIds": [], name: 0})
    assert QueryArguments.model_validate({"toolCallIds": ["t3"]}).page() == FIRST_PAGE
    assert "offset" in QUERY_TOOL_DESCRIPTION and "pattern" in QUERY_TOOL_DESCRIPTION


@pytest.mark.parametrize("field", ["offset", "column", "limit"])
def test_true_or_false_is_no_number(field: str) -> None:
    """`{"offset": true}` was read as line 1."""
    with pytest.raises(QueryError) as refused:
        QueryArguments.checked({"toolCallIds": ["t1"], field: True})
    assert str(refused.value) == f"{field}: input should be a number, not true or false (got true)"
    digits = QueryArguments.checked({"toolCallIds": ["t1"], field: "3"})
    assert digits.page() != FIRST_PAGE, "a string of digits still is"
