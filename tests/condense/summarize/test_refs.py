"""Scenarios of src/summary-refs.test.ts: inline `tN` refs from `[[N:tool]]` labels, the footer, ref lists."""

from __future__ import annotations

from condense.records import SummaryRef, ToolCallRecord
from condense.summarize.refs import (
    build_short_refs,
    build_summary_content,
    format_refs_footer,
    normalize_summary_refs,
    substitute_inline_refs,
)

REFS = [SummaryRef("t1", "a"), SummaryRef("t2", "b")]
NAMES = ["read", "bash"]


def sub(text: str) -> str:
    return substitute_inline_refs(text, REFS, NAMES)


def record(call_id: str, result_timestamp: int | None = None) -> ToolCallRecord:
    return ToolCallRecord(call_id, "bash", {}, "out", False, 0, 0, result_timestamp=result_timestamp)


# ----- substitute_inline_refs -----


def test_in_range_and_matching_name_rewrites_to_inline_ref() -> None:
    assert sub("- [[1:read]] Read a.ts") == "- `t1` Read a.ts"
    assert sub("- [[2:bash]] ran ls") == "- `t2` ran ls"


def test_does_not_add_extra_t_prefix() -> None:
    out = sub("[[1:read]] x")
    assert out == "`t1` x"
    assert "tt1" not in out


def test_name_match_is_trimmed_and_case_insensitive() -> None:
    assert sub("- [[1:Read]] x") == "- `t1` x"
    assert sub("- [[1: READ ]] x") == "- `t1` x"


def test_name_mismatch_strips_label() -> None:
    assert sub("- [[2:read]] x") == "- x"


def test_out_of_range_strips_label() -> None:
    assert sub("- [[9:read]] x") == "- x"


def test_absent_label_leaves_line_unchanged() -> None:
    assert sub("- plain bullet") == "- plain bullet"


def test_duplicate_labels_on_separate_lines_both_substituted() -> None:
    assert sub("- [[2:bash]] first\n- [[2:bash]] second") == "- `t2` first\n- `t2` second"


def test_single_bracket_lookalikes_are_untouched() -> None:
    text = "used argv[1] and items[0] here"
    assert sub(text) == text


def test_mid_line_well_formed_label_token_is_stripped_leak_guard() -> None:
    assert sub("used argv[1] and [[1:read]] mid") == "used argv[1] and mid"


def test_label_inside_fenced_code_block_is_untouched() -> None:
    text = "```\n[[1:read]] literal\n```"
    assert sub(text) == text


def test_wrapped_label_in_bold_is_stripped_no_raw_token_leaked() -> None:
    assert sub("- **[[1:read]]** x") == "- **** x"


def test_numbered_list_label_leak_guard_token_stripped_no_anchored_match() -> None:
    assert sub("1. [[1:read]] did x") == "1. did x"


def test_blockquote_label_leak_guard_token_stripped_no_anchored_match() -> None:
    assert sub("> [[1:read]] did x") == "> did x"


def test_fenced_non_first_line_label_is_still_exempt_from_catch_all_strip() -> None:
    text = "```\nfoo [[1:read]] bar\n```"
    assert sub(text) == text
    # and the exemption ends with the fence
    assert sub(text + "\n- [[1:read]] after") == text + "\n- `t1` after"


def test_range_fusion_inline_ref_survives_fusion_input_concatenation_across_batches() -> None:
    body = sub("- [[1:read]] did a thing")
    assert body == "- `t1` did a thing"
    fusion_input = "\n---\n".join([body, body])
    assert fusion_input.count("`t1`") == 2


def test_n_0_is_out_of_range_and_strips_label() -> None:
    assert sub("- [[0:read]] x") == "- x"


def test_empty_input_returns_empty_string() -> None:
    assert sub("") == ""


def test_collapses_multiple_trailing_spaces_to_one() -> None:
    assert sub("- [[1:read]]    x") == "- `t1` x"


def test_label_at_end_of_line_has_single_trailing_space_no_phantom_double() -> None:
    assert sub("- [[1:read]]") == "- `t1` "


def test_dotted_namespaced_tool_name_matches_and_validates() -> None:
    refs = [SummaryRef("t1", "a")]
    assert substitute_inline_refs("- [[1:server.tool]] did x", refs, ["server.tool"]) == "- `t1` did x"


def test_dotted_namespaced_tool_name_mismatch_strips_label_does_not_leak() -> None:
    refs = [SummaryRef("t1", "a")]
    assert substitute_inline_refs("- [[1:other.tool]] x", refs, ["server.tool"]) == "- x"


def test_composition_with_format_summary_tool_call_refs_footer() -> None:
    body = sub("- [[1:read]] a\n- [[2:bash]] b")
    footer = format_refs_footer(REFS)
    for ref in REFS:
        assert f"`{ref.short_id}`" in body
        assert f"`{ref.short_id}`" in footer
    # the footer of condense-reference 4.3, always appended by build_summary_content; the list ends with a
    # full stop (issue 12: it is a sentence)
    assert footer == (
        "\n\n---\n**Summarized tool refs**: `t1`, `t2`.\n"
        "Use `context_tree_query` with these refs to retrieve the original full outputs."
    )
    records = [ToolCallRecord(ref.tool_call_id, name, {}, "out", False, 0, 0)
               for ref, name in zip(REFS, NAMES, strict=True)]
    assert build_summary_content("- [[1:read]] a\n- [[2:bash]] b", REFS, records) == body + footer


# ----- occurrence-aware refs -----


def test_build_short_tool_call_refs_carries_result_timestamp_through() -> None:
    refs, next_index = build_short_refs([record("bash_23", 2150), record("bash_23", 3150)], 5)
    assert refs == [SummaryRef("t5", "bash_23", 2150), SummaryRef("t6", "bash_23", 3150)]
    assert next_index == 7


def test_build_short_tool_call_refs_omits_result_timestamp_when_absent() -> None:
    refs, _ = build_short_refs([record("bash_1")], 1)
    assert [ref.to_json() for ref in refs] == [{"shortId": "t1", "toolCallId": "bash_1"}]


def test_normalize_summary_tool_call_refs_preserves_a_numeric_result_timestamp() -> None:
    details = {"toolCallRefs": [{"shortId": "t1", "toolCallId": "bash_1", "resultTimestamp": 1150}]}
    assert normalize_summary_refs(details) == [SummaryRef("t1", "bash_1", 1150)]


def test_normalize_summary_tool_call_refs_drops_a_non_numeric_result_timestamp() -> None:
    details = {"toolCallRefs": [{"shortId": "t1", "toolCallId": "bash_1", "resultTimestamp": "nope"}]}
    refs = normalize_summary_refs(details)
    assert [ref.to_json() for ref in refs] == [{"shortId": "t1", "toolCallId": "bash_1"}]


def test_legacy_tool_call_ids_only_details_still_normalize() -> None:
    assert normalize_summary_refs({"toolCallIds": ["bash_1"]}) == [SummaryRef("bash_1", "bash_1")]
