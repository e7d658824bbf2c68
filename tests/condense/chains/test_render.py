"""Scenarios of src/chain-range-prune.test.ts: phase 3, rendering compressed chains by position.

The reference passes the body of each chain as a callback; here a chain's body is what the engine
uses: the entry's own `range_summary_text`, else the per-batch summaries the index holds for the
outputs the entry dropped. The reference's "same reference" checks become `is` checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from condense.chains import (
    ChainEntry,
    apply_chain_compressions,
    is_per_batch_summary,
    resolve_range,
    summary_overlaps_dropped,
    synthetic_chain_message,
    without_thinking,
)
from condense.frontier import reconstruct as reconstruct_frontier
from condense.index import ToolCallIndexer
from condense.records import FRONTIER, SUMMARY, SummaryRef, ToolCallRecord
from tests.support.chains import (
    Reports,
    call,
    calls,
    final,
    registry_of,
    render,
    result,
    summary_message,
    synthetics_of,
    text_of,
    user,
)
from tests.support.reference import sweep_orphans

Messages = list[dict[str, Any]]


def chain(block_id: str, start: int, dropped: list[str], final_ts: int | None, refs: tuple[str, ...] = (),
          body: str | None = "chain summary", **optional: Any) -> ChainEntry:
    return ChainEntry(block_id, start, tuple(dropped), final_ts, refs, start + 9999,
                      range_summary_text=body, **optional)


def apply(messages: Messages, *entries: ChainEntry, strip: bool = False, index: ToolCallIndexer | None = None,
          diagnostics: Reports | None = None) -> Messages:
    return apply_chain_compressions(messages, registry_of(*entries),
                                    ToolCallIndexer() if index is None else index,
                                    strip_final_thinking=strip, diagnostics=diagnostics)


def one_chain() -> Messages:
    return [user(100), calls(200, "tc1"), result(300, "tc1"), final(400)]


def two_rounds() -> Messages:
    return [*one_chain(), user(500), final(600)]


def block_ids(messages: Messages) -> list[str]:
    return [re.match(r'<compressed-chain id="([^"]+)"', text_of(m)).group(1)  # type: ignore[union-attr]
            for m in synthetics_of(messages)]


def has_summary(messages: Messages) -> bool:
    return any(is_per_batch_summary(m) for m in messages)


def plain(text: str, ts: int | None = None, role: str = "user") -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}]}
    if ts is not None:
        message["timestamp"] = ts
    return message


# ----- is_per_batch_summary ------------------------------------------------------------------------


def test_returns_true_for_context_prune_summary_custom_message() -> None:
    assert is_per_batch_summary({"role": "custom", "customType": SUMMARY}) is True


def test_returns_false_for_other_custom_messages() -> None:
    assert is_per_batch_summary({"role": "custom", "customType": "context-prune-index"}) is False


def test_returns_false_for_user_assistant_tool_result_roles() -> None:
    for role in ("user", "assistant", "toolResult"):
        assert is_per_batch_summary({"role": role, "customType": SUMMARY}) is False


# ----- summary_overlaps_dropped ---------------------------------------------------------------------


def test_returns_true_when_at_least_one_legacy_no_result_timestamp_tool_call_ref_is_in_the_dropped_bare_set() -> None:
    message = summary_message(999, [("tc1", None), ("tc2", None)])
    assert summary_overlaps_dropped(message, set(), {"tc1"}) is True


def test_returns_false_when_no_legacy_tool_call_refs_are_in_the_dropped_bare_set() -> None:
    assert summary_overlaps_dropped(summary_message(999, [("tc3", None)]), set(), {"tc1", "tc2"}) is False


def test_returns_false_when_details_is_missing() -> None:
    message = {"role": "custom", "customType": SUMMARY, "content": "x", "timestamp": 1}
    assert summary_overlaps_dropped(message, set(), {"tc1"}) is False


def test_an_occurrence_keyed_ref_matches_only_its_exact_occurrence_not_the_bare_id_of_a_different_one() -> None:
    message = summary_message(999, [("tc1", 3150)])
    assert summary_overlaps_dropped(message, {"tc1@2000"}, {"tc1"}) is False


def test_an_occurrence_keyed_ref_matches_its_exact_occurrence_in_dropped_occ_keys() -> None:
    assert summary_overlaps_dropped(summary_message(999, [("tc1", 2000)]), {"tc1@2000"}, set()) is True


# ----- without_thinking -----------------------------------------------------------------------------


def test_removes_thinking_blocks_keeps_text_blocks() -> None:
    stripped = without_thinking(final(100, thinking=True))
    assert [block["type"] for block in stripped["content"]] == ["text"]


def test_returns_copy_not_mutation() -> None:
    message = final(100, thinking=True)
    stripped = without_thinking(message)
    assert stripped is not message
    assert len(message["content"]) == 2


def test_no_op_when_no_thinking_blocks_present() -> None:
    message = final(100)
    assert without_thinking(message) is message  # nothing to strip: not even a copy


# ----- synthetic_chain_message ----------------------------------------------------------------------


def test_produces_a_user_role_message_with_f2_xml_wrapper() -> None:
    message = synthetic_chain_message(chain("b1", 100, ["tc1"], 400, ("t1",)), "the summary")
    assert message["role"] == "user"
    assert message["content"][0]["type"] == "text"
    text = text_of(message)
    assert 'id="b1"' in text and 'tools="t1"' in text and "the summary" in text


def test_uses_compressed_at_as_timestamp() -> None:
    entry = chain("b1", 100, ["tc1"], 400)
    assert synthetic_chain_message(entry, "summary")["timestamp"] == entry.compressed_at


def test_multiple_tool_refs_are_comma_joined() -> None:
    message = synthetic_chain_message(chain("b2", 200, ["tc1", "tc2"], 500, ("t1", "t2")), "summary")
    assert 'tools="t1,t2"' in text_of(message)


# ----- apply_chain_compressions ---------------------------------------------------------------------


def test_no_op_when_chain_entries_is_empty() -> None:
    messages = [user(100), final(200)]
    assert apply(messages) is messages


def test_drops_tool_result_message_whose_tool_call_id_is_in_dropped_tool_call_ids() -> None:
    out = apply(one_chain(), chain("b1", 100, ["tc1"], 400))
    assert "toolResult" not in [m["role"] for m in out]


def test_drops_assistant_message_whose_tool_call_blocks_include_a_dropped_id() -> None:
    out = apply(one_chain(), chain("b1", 100, ["tc1"], 400))
    assert [m["timestamp"] for m in out if m["role"] == "assistant"] == [400]


def test_inserts_synthetic_chain_message_immediately_after_the_start_user_message() -> None:
    out = apply(one_chain(), chain("b1", 100, ["tc1"], 400, ("t1",)))
    start = next(i for i, m in enumerate(out) if m["role"] == "user" and m["timestamp"] == 100)
    assert out[start + 1]["role"] == "user"
    assert text_of(out[start + 1]).startswith('<compressed-chain id="b1"')


def test_ordering_invariant_output_preserves_input_order_for_surviving_messages() -> None:
    messages = two_rounds()
    out = apply(messages, chain("b1", 100, ["tc1"], 400))
    real = [m for m in out if m not in synthetics_of(out)]
    assert real == [messages[0], messages[3], messages[4], messages[5]]
    assert [m["timestamp"] for m in real] == sorted(m["timestamp"] for m in real)


def test_suppresses_per_batch_summary_whose_tool_call_refs_overlap_dropped_tool_call_ids() -> None:
    messages = [user(100), calls(200, "tc1"), result(300, "tc1"), summary_message(350, [("tc1", None)]),
                final(400)]
    assert has_summary(apply(messages, chain("b1", 100, ["tc1"], 400))) is False


def test_does_not_suppress_per_batch_summary_whose_tool_call_refs_do_not_overlap() -> None:
    messages = [*one_chain(), summary_message(450, [("tc2", None)])]  # after the range, about tc2
    assert has_summary(apply(messages, chain("b1", 100, ["tc1"], 400))) is True


def test_a_live_turns_per_batch_summary_survives_even_when_it_reuses_a_compressed_chains_bare_id_occurrence_collision(
) -> None:
    messages = [*one_chain(), user(3000), calls(3100, "tc1"), result(3150, "tc1"),
                summary_message(3200, [("tc1", 3150)]), final(3300)]
    out = apply(messages, chain("b1", 100, ["tc1"], 400))
    assert has_summary(out) is True
    assert [m["timestamp"] for m in out if m["role"] == "toolResult"] == [3150]


def test_strips_thinking_blocks_from_final_assistant_when_strip_final_thinking_true() -> None:
    messages = [user(100), calls(200, "tc1"), result(300, "tc1"), final(400, thinking=True)]
    out = apply(messages, chain("b1", 100, ["tc1"], 400), strip=True)
    [reply] = [m for m in out if m["role"] == "assistant"]
    assert [block["type"] for block in reply["content"]] == ["text"]
    assert len(messages[3]["content"]) == 2  # the input is not touched


def test_keeps_thinking_blocks_on_final_assistant_when_strip_final_thinking_false() -> None:
    messages = [user(100), calls(200, "tc1"), result(300, "tc1"), final(400, thinking=True)]
    out = apply(messages, chain("b1", 100, ["tc1"], 400), strip=False)
    assert out[-1] is messages[3]


def test_idempotency_calling_twice_with_same_chain_entries_yields_same_output() -> None:
    entry = chain("b1", 100, ["tc1"], 400)
    first = apply(two_rounds(), entry, strip=True)
    second = apply(first, entry, strip=True)
    assert second is first


def test_idempotency_stable_with_block_summary_lookup_active() -> None:
    messages = [*one_chain(), user(500), calls(600, "tc2"), result(700, "tc2"), final(800)]
    entries = (chain("b1", 100, ["tc1"], 400, ("t1",), body="chain summary text"),
               chain("b2", 500, ["tc2"], 800, ("t2",), body="builds on {b1}"))
    first = apply(messages, *entries)
    assert "builds on chain summary text" in text_of(synthetics_of(first)[1])
    assert apply(first, *entries) is first


def test_multiple_chains_in_one_pass_each_behaves_independently() -> None:
    messages = [*one_chain(), user(500), calls(600, "tc2"), result(700, "tc2"), final(800),
                user(900), final(1000)]
    out = apply(messages, chain("b1", 100, ["tc1"], 400, ("t1",)), chain("b2", 500, ["tc2"], 800, ("t2",)))
    assert [m for m in out if m["role"] == "toolResult"] == []
    assert block_ids(out) == ["b1", "b2"]
    assert messages[8] in out and messages[9] in out  # the uncompressed round stays as it was


def test_summary_text_for_chain_callback_receives_the_correct_entry() -> None:
    index = ToolCallIndexer()
    index.register_summary_body(["tc2@700"], "per-batch summary of tc2")
    messages = [*one_chain(), user(500), calls(600, "tc2"), result(700, "tc2"), final(800)]
    entries = (chain("b1", 100, ["tc1"], 400, body="custom summary for b1"),
               chain("b2", 500, ["tc2"], 800, body=None, dropped_occurrence_keys=("tc2@700",)))
    first, second = synthetics_of(apply(messages, *entries, index=index))
    assert text_of(first) == '<compressed-chain id="b1" tools="">\ncustom summary for b1\n</compressed-chain>'
    assert text_of(second) == (
        '<compressed-chain id="b2" tools="">\nper-batch summary of tc2\n</compressed-chain>')


def test_block_summary_lookup_bn_in_summary_text_is_substituted() -> None:
    messages = [*one_chain(), user(500), calls(600, "tc2"), result(700, "tc2"), final(800)]
    out = apply(messages, chain("b1", 100, ["tc1"], 400, ("t1",), body="b1 summary text"),
                chain("b2", 500, ["tc2"], 800, ("t2",), body="see {b1} for details"))
    b1_text, b2_text = (text_of(m) for m in synthetics_of(out))
    assert "see b1 summary text for details" in b2_text and "{b1}" not in b2_text
    assert "b1 summary text" in b1_text


def protected_chain(*protected: tuple[str, str, str]) -> Messages:
    """user 1 -> one turn calling read `tc-read` and the protected tools -> their results -> reply 9."""
    turn = calls(2, call("tc-read", "read"), *(call(call_id, tool) for call_id, tool, _ in protected))
    results = [result(None, call_id, text, name=tool) for call_id, tool, text in protected]
    return [plain("go", 1), turn, result(None, "tc-read", "FILE", name="read"), *results, final(9)]


def test_relocates_protected_output_verbatim_into_the_compressed_chain_body_and_still_drops_it_from_position(
) -> None:
    entry = ChainEntry("b1", 1, ("tc-read", "tc-todo"), 9, ("t1", "t2"), 100,
                       protected_tool_call_ids=("tc-todo",), range_summary_text="SUMMARY")
    out = apply(protected_chain(("tc-todo", "todowrite", "PLAN-STATE")), entry)
    assert not any(m.get("toolCallId") == "tc-todo" for m in out)
    [block] = synthetics_of(out)
    assert '<protected-output tool="todowrite">' in text_of(block)
    assert "PLAN-STATE" in text_of(block)
    assert "FILE" not in text_of(block)


def test_renders_byte_identical_to_pre_feature_output_when_no_protected_ids() -> None:
    entry = ChainEntry("b1", 1, ("tc-read",), 9, ("t1",), 100, range_summary_text="SUMMARY")
    [block] = synthetics_of(apply(protected_chain(), entry))
    assert text_of(block) == '<compressed-chain id="b1" tools="t1">\nSUMMARY\n</compressed-chain>'


def test_relocates_multiple_protected_outputs_in_message_order_within_one_block() -> None:
    entry = ChainEntry("b1", 1, ("tc-read", "tc-a", "tc-b"), 9, ("t1",), 100,
                       protected_tool_call_ids=("tc-b", "tc-a"), range_summary_text="SUMMARY")
    out = apply(protected_chain(("tc-a", "todowrite", "FIRST"), ("tc-b", "todoread", "SECOND")), entry)
    assert text_of(synthetics_of(out)[0]) == (
        '<compressed-chain id="b1" tools="t1">\nSUMMARY'
        '\n\n<protected-output tool="todowrite">\nFIRST\n</protected-output>'
        '\n\n<protected-output tool="todoread">\nSECOND\n</protected-output>'
        "\n</compressed-chain>"
    )


def test_skips_a_protected_id_whose_tool_result_is_absent_from_input() -> None:
    entry = ChainEntry("b1", 1, ("tc-gone",), 9, ("t1",), 100, protected_tool_call_ids=("tc-gone",),
                       range_summary_text="SUMMARY")
    [block] = synthetics_of(apply([plain("go", 1), final(9)], entry))
    assert "<protected-output" not in text_of(block)


def test_block_summary_lookup_missing_lookup_leaves_placeholder_literal() -> None:
    out = apply(one_chain(), chain("b1", 100, ["tc1"], 400, ("t1",), body="refers to {b99} unknown"))
    assert "refers to {b99} unknown" in text_of(synthetics_of(out)[0])


# ----- resolve_range -------------------------------------------------------------------------------


def base() -> Messages:
    return [plain("go", 1000), calls(1100, "bash_1"), result(1150, "bash_1", "x"), final(1200)]


def test_resolves_the_unique_role_gated_boundaries() -> None:
    assert resolve_range(base(), 1000, 1200) == (0, 3)


def test_returns_null_when_final_assistant_timestamp_is_null() -> None:
    assert resolve_range(base(), 1000, None) is None


def test_returns_null_when_the_start_timestamp_matches_two_user_messages() -> None:
    assert resolve_range([*base(), plain("dup", 1000)], 1000, 1200) is None


def test_returns_null_when_a_boundary_message_is_absent() -> None:
    assert resolve_range(base(), 999, 1200) is None
    assert resolve_range(base(), 1000, 1300) is None


def test_returns_null_when_the_end_precedes_the_start() -> None:
    messages = [final(900, "early"), plain("go", 1000), final(1200)]
    assert resolve_range(messages, 1000, 900) is None


def test_ignores_a_tool_result_sharing_the_final_assistant_timestamp_role_gating() -> None:
    messages = base()
    messages[2] = {**messages[2], "timestamp": 1200}
    assert resolve_range(messages, 1000, 1200) == (0, 3)


def test_resolve_range_accepts_a_minimal_timestamp_pair_backfill_span_walk() -> None:
    assert resolve_range([plain("go", 5), final(6)], 5, 6) == (0, 1)


# ----- positional: the id-collision incident ---------------------------------------------------------


def incident() -> Messages:
    """Chains b5 (bash_18) and b7 (bash_23) are compressed; a live turn at 3000 reuses bash_23."""
    live_turn = calls(3100, call("bash_23"), call("gauntlet_setting_24", "gauntlet_setting"))
    return [
        plain("1", 1000), calls(1100, "bash_18"), result(1150, "bash_18", "a"), final(1200, "done 1"),
        plain("2", 2000), calls(2100, "bash_23"), result(2150, "bash_23", "b"), final(2200, "done 2"),
        plain("3", 3000), live_turn, result(3150, "bash_23", "LIVE"),
        result(3160, "gauntlet_setting_24", "LIVE2", name="gauntlet_setting"),
    ]


# synthetics stamped below 3000 so that "ts >= 3000" selects exactly the live turn
B5 = ChainEntry("b5", 1000, ("bash_18",), 1200, ("t1",), 1050, dropped_occurrence_keys=("bash_18@1150",),
                range_summary_text="summary b5")
B7 = ChainEntry("b7", 2000, ("bash_23",), 2200, ("t2",), 2050, dropped_occurrence_keys=("bash_23@2150",),
                range_summary_text="summary b7")
WIDE = ChainEntry("b8", 1000, (), 2200, (), 9002, range_summary_text="wide")
NESTED = ChainEntry("b9", 2000, (), 2200, (), 9003, range_summary_text="nested")


def test_the_live_turn_reusing_a_dropped_id_survives_with_both_of_its_results() -> None:
    out = apply(incident(), B5, B7)
    live = [m for m in out if m["timestamp"] >= 3000]
    assert len(live) == 4
    assert [m["toolCallId"] for m in live if m["role"] == "toolResult"] == ["bash_23", "gauntlet_setting_24"]


def test_drops_exactly_the_two_chain_interiors_and_inserts_both_synthetics() -> None:
    out = apply(incident(), B5, B7)
    assert len(out) == 12 - 4 + 2
    synthetics = synthetics_of(out)
    assert len(synthetics) == 2
    assert out.index(synthetics[0]) == 1


def test_no_tool_result_survives_without_its_tool_call() -> None:
    out = apply(incident(), B5, B7)
    assert sweep_orphans(out) == (out, [])


def test_an_unresolved_entry_drops_nothing_and_inserts_no_synthetic() -> None:
    reports = Reports()
    messages = incident()
    broken = ChainEntry("b5", 1000, ("bash_18",), None, ("t1",), 1050)
    assert apply(messages, broken, diagnostics=reports) is messages
    assert reports.kinds() == ["unresolved-range"]


def test_a_chain_that_ended_before_the_oldest_message_held_is_no_fault() -> None:
    """After a compaction the context starts later than chains the branch still records: those are not
    in the request to compress, and saying "unresolved" about them at every request would be noise. A
    chain whose start alone is missing is still reported."""
    reports = Reports()
    messages = incident()
    compacted = ChainEntry("b1", 100, ("bash_1",), 200, ("t9",), 150, range_summary_text="before")
    assert apply(messages, compacted, diagnostics=reports) is messages
    assert reports.kinds() == []
    straddling = ChainEntry("b2", 100, ("bash_18",), 1200, ("t1",), 150, range_summary_text="cut")
    assert apply(messages, straddling, diagnostics=reports) is messages
    assert reports.kinds() == ["unresolved-range"]


def test_re_applying_the_same_entries_is_a_no_op_synthetic_preserved() -> None:
    first = apply(incident(), B5, B7)
    assert apply(first, B5, B7) is first


def test_a_third_party_custom_message_inside_a_range_survives() -> None:
    messages = with_third_party(incident())
    out = apply(messages, B5, B7)
    assert messages[2] in out


def test_a_per_batch_summary_after_the_range_is_still_suppressed_agent_message_mode() -> None:
    messages = incident()
    messages.insert(4, summary_message(1300, [("bash_18", 1150)], "batch summary"))
    assert has_summary(apply(messages, B5, B7)) is False


def test_strips_thinking_at_the_resolved_end_index_only() -> None:
    messages = with_thinking(with_thinking(incident(), 3), 9)
    out = apply(messages, B5, B7, strip=True)
    end = next(m for m in out if m["timestamp"] == 1200)
    assert [block["type"] for block in end["content"]] == ["text"]
    assert messages[9] in out  # the live turn keeps its thinking


def test_reports_range_id_mismatch_when_the_range_drops_a_different_id_set() -> None:
    reports = Reports()
    skewed = ChainEntry("b5", 1000, ("bash_18", "ghost_1"), 1200, ("t1",), 1050, range_summary_text="s")
    out = apply(incident(), skewed, diagnostics=reports)
    assert reports.items == [("range-id-mismatch", "b5", "blockId=b5 recorded=2 actual=1")]
    assert [m["timestamp"] for m in out[:3]] == [1000, 1050, 1200]  # the range still decided


def test_skips_an_entry_whose_start_falls_strictly_inside_another_entrys_range() -> None:
    reports = Reports()
    out = apply(incident(), WIDE, NESTED, diagnostics=reports)
    assert block_ids(out) == ["b8"]
    assert reports.keys("unresolved-range") == ["overlap:b9"]
    assert sweep_orphans(out) == (out, [])


# reference name: "... both report unresolved-range but with distinct dedup keys" (shortened to fit a line)
def test_a_genuinely_unresolvable_boundary_and_a_benign_overlap_skip_both_report_unresolved_range_distinct_keys(
) -> None:
    reports = Reports()
    broken = ChainEntry("b11", 3000, ("bash_23",), None, ("t3",), 1050)
    apply(incident(), WIDE, NESTED, broken, diagnostics=reports)
    assert sorted(reports.keys("unresolved-range")) == ["b11", "overlap:b9"]
    assert "b8" in reports.detail("unresolved-range", "overlap:b9")
    boundary = reports.detail("unresolved-range", "b11")
    assert "start=" in boundary and "final=" in boundary


class Listed:
    """Compressed chains as a plain list, duplicates allowed. `ChainRegistry` keeps one entry per start
    timestamp, so it can never hand the renderer two; the renderer must cope anyway."""

    def __init__(self, *entries: ChainEntry) -> None:
        self._entries = list(entries)

    def entries(self) -> list[ChainEntry]:
        return list(self._entries)

    def find_by_block_id(self, block_id: str) -> ChainEntry | None:
        return next((entry for entry in self._entries if entry.block_id == block_id), None)


TWIN = ChainEntry("b10", 1000, ("bash_18",), 1200, ("t1",), 9004, range_summary_text="twin")


def apply_twins(diagnostics: Reports | None = None) -> Messages:
    return apply_chain_compressions(incident(), Listed(B5, TWIN), ToolCallIndexer(),
                                    strip_final_thinking=False, diagnostics=diagnostics)


def test_two_entries_resolving_to_the_same_start_index_insert_one_synthetic() -> None:
    reports = Reports()
    out = apply_twins(reports)
    assert block_ids(out) == ["b5"]
    assert reports.keys("unresolved-range") == ["overlap:b10"]
    assert "duplicates startIndex=0" in reports.detail("unresolved-range", "overlap:b10")


# ----- zero orphan sweeps ----------------------------------------------------------------------------


def with_third_party(messages: Messages) -> Messages:
    note = {"role": "custom", "customType": "other-extension", "content": "keepme", "timestamp": 1120}
    messages.insert(2, note)
    return messages


def with_thinking(messages: Messages, position: int) -> Messages:
    thinking = {"type": "thinking", "thinking": "hmm"}
    messages[position] = {**messages[position], "content": [thinking, *messages[position]["content"]]}
    return messages


def with_summary_after_cycle(messages: Messages) -> Messages:
    messages.insert(8, summary_message(2300, [("bash_99", 2250)], "unrelated summary"))
    return messages


ZERO_SWEEP: list[tuple[str, Callable[[], Messages]]] = [
    ("the live turn reusing a dropped id survives with both of its results",
     lambda: apply(incident(), B5, B7)),
    ("drops exactly the two chain interiors and inserts both synthetics", lambda: apply(incident(), B5, B7)),
    ("re-applying the same entries is a no-op", lambda: apply(apply(incident(), B5, B7), B5, B7)),
    ("a third-party custom message inside a range survives",
     lambda: apply(with_third_party(incident()), B5, B7)),
    ("strips thinking at the resolved endIndex only",
     lambda: apply(with_thinking(incident(), 3), B5, B7, strip=True)),
    ("skips an entry whose start falls strictly inside another entry's range",
     lambda: apply(incident(), WIDE, NESTED)),
    ("two entries resolving to the same startIndex insert one synthetic",
     apply_twins),
    ("single dropped chain, ordering invariant fixture",
     lambda: apply(two_rounds(), chain("b1", 100, ["tc1"], 400))),
    ("multiple chains in one pass",
     lambda: apply([*one_chain(), user(500), calls(600, "tc2"), result(700, "tc2"), final(800), user(900),
                    final(1000)], chain("b1", 100, ["tc1"], 400), chain("b2", 500, ["tc2"], 800))),
    ("protected output relocation",
     lambda: apply(protected_chain(("tc-todo", "todowrite", "PLAN-STATE")),
                   ChainEntry("b1", 1, ("tc-read", "tc-todo"), 9, ("t1",), 100,
                              protected_tool_call_ids=("tc-todo",), range_summary_text="SUMMARY"))),
    ("a context-prune-summary after a completed cycle",
     lambda: apply(with_summary_after_cycle(incident()), B5)),
]


@pytest.mark.parametrize("run", [run for _, run in ZERO_SWEEP], ids=[name for name, _ in ZERO_SWEEP])
def test_zero_orphan_sweeps(run: Callable[[], Messages]) -> None:
    out = run()
    swept, swept_ids = sweep_orphans(out)
    assert swept_ids == []
    assert swept is out


def test_the_summary_after_a_completed_cycle_survives() -> None:
    out = apply(with_summary_after_cycle(incident()), B5)
    assert [m["content"] for m in out if is_per_batch_summary(m)] == ["unrelated summary"]


# ----- the fifth frontier scenario (src/frontier.test.ts), which needs the whole render pipeline -----


def test_a_legacy_frontier_entry_with_thinking_strip_boundary_timestamp_resumes_without_error_and_strips_nothing(
) -> None:
    legacy = {"lastAttemptedToolCallId": "tc-stub", "lastAttemptedToolName": "bash",
              "lastAttemptedTurnIndex": 1, "lastAttemptedTimestamp": 600, "outcome": "summarized",
              "thinkingStripBoundaryTimestamp": 450}
    frontier = reconstruct_frontier([{"type": "custom", "customType": FRONTIER, "data": legacy}])
    assert frontier is not None and frontier.last_attempted_tool_call_id == "tc-stub"
    index = ToolCallIndexer()
    index.add_batch([ToolCallRecord("tc-stub", "bash", {}, "RAW STUB OUTPUT", False, 1, 600, 700)],
                    lambda *_: None)
    index.register_summary_refs([SummaryRef("t1", "tc-stub", 700)])
    messages = [
        user(100), calls(200, "tc-chain", thinking=True), result(300, "tc-chain"), final(400, thinking=True),
        user(500), calls(600, "tc-stub", thinking=True), result(700, "tc-stub", "RAW STUB OUTPUT"),
        final(800, thinking=True),
        user(900), final(1000, thinking=True), user(1100), final(1200, thinking=True),
    ]
    registry = registry_of(chain("b1", 100, ["tc-chain"], 400))
    out = render(messages, index, registry, strip_final_thinking=False)
    stub = next(m for m in out if m.get("toolCallId") == "tc-stub")
    assert "`t1`" in text_of(stub) and "RAW STUB OUTPUT" not in text_of(stub)
    assert text_of(out[1]).startswith("<compressed-chain")
    assistants = [m for m in out if m["role"] == "assistant"]
    assert len(assistants) == 5
    assert all(any(block["type"] == "thinking" for block in m["content"]) for m in assistants)
