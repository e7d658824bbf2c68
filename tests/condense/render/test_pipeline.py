"""Phase-1 scenarios of src/pruner.test.ts: stub replacement, spill stubs, render-time protection, recovery
grace, occurrence keys, and the orphan sweep at the end of the pipeline. Chain and error-purge scenarios live
with condense II. The reference's mock indexer is replaced by the real one.
"""

from __future__ import annotations

from typing import Any

from condense.diagnostics import DiagnosticSink
from condense.index import ToolCallIndexer
from condense.protect import is_protected
from condense.records import ToolCallRecord
from condense.render.pipeline import RenderOptions, prune_messages
from tests.support.memory_host import assistant, call, result, user
from tests.support.reference import sweep_orphans
from tests.support.typed import plain

entries: list[tuple[str, Any]] = []


def append(kind: str, data: Any) -> None:
    entries.append((kind, data))


def index_of(*records: ToolCallRecord) -> ToolCallIndexer:
    index = ToolCallIndexer()
    index.add_batch(list(records), append)
    index.register_summary_refs(index.allocate_summary_refs(list(records)))
    return index


def record(call_id: str, ts: int | None, text: str = "RAW", name: str = "read", **extra: Any) -> ToolCallRecord:
    return ToolCallRecord(call_id, name, extra.pop("args", {"path": f"{call_id}.py"}), text, False, 0, 1, ts,
                          **extra)


def render(messages: list[Any], index: ToolCallIndexer, *, paths: list[str] | None = None,
           tools: list[str] | None = None, grace: int = 3, sink: DiagnosticSink | None = None) -> list[Any]:
    sink = sink or DiagnosticSink(append)

    def protected(name: str, args: dict[str, Any]) -> bool:
        return is_protected(name, args, tools or [], paths or [])

    def report(swept: list[str]) -> None:
        from condense.render.orphans import sweep_dedup_key, sweep_detail
        sink.report("orphan-sweep", sweep_dedup_key(swept), sweep_detail(swept))

    return prune_messages(messages, index, RenderOptions(protected, grace, True, 2, 500, report))


def turn(call_id: str, ts: int, text: str = "RAW", name: str = "read") -> list[dict[str, Any]]:
    return plain([assistant(ts, call(call_id, name)), result(call_id, text, ts + 50, name)])


def text_of(message: dict[str, Any]) -> str:
    text: str = message["content"][0]["text"]
    return text


def test_stub_replaces_a_summarized_tool_result() -> None:
    messages = [user("go", 1), *turn("tc1", 100)]
    out = render(messages, index_of(record("tc1", 150)))
    assert "`t1`" in text_of(out[2]) and "context_tree_query" in text_of(out[2])
    assert out[2]["isError"] is False and out[2]["timestamp"] == 150 and out[2]["toolCallId"] == "tc1"
    assert messages[2]["content"][0]["text"] == "RAW", "the input is never mutated"


def test_returns_original_array_reference_when_nothing_is_summarized_or_compressed() -> None:
    messages = [user("go", 1), *turn("tc1", 100)]
    assert render(messages, ToolCallIndexer()) is messages


def test_spill_stub_tolerates_absent_spill_bytes_and_result_preview() -> None:
    messages = [user("go", 1), *turn("tc1", 100)]
    out = render(messages, index_of(record("tc1", 150, "", spill_path="/blobs/tc1_150.txt")))
    text = text_of(out[2])
    assert "/blobs/tc1_150.txt" in text and "?" in text and "Summarized in pruner summary" not in text


def test_emits_a_mechanical_spill_stub_for_a_spilled_record() -> None:
    messages = [user("go", 1), *turn("tc1", 100)]
    spilled = record("tc1", 150, "", spill_path="/blobs/x.txt", spill_bytes=1048576, result_preview="PREVIEW-HEAD")
    text = text_of(render(messages, index_of(spilled))[2])
    # ARCHITECTURE decision: the design document's spill stub shape
    assert text.startswith("[Spilled: read (1048576 bytes). Head preview:\nPREVIEW-HEAD\n")
    assert text.endswith("Full output: /blobs/x.txt. Use context_tree_query(t1) to retrieve.]")


def test_leaves_a_summarized_record_verbatim_once_its_path_matches_protected_paths() -> None:
    messages = [user("go", 1), *turn("tc1", 100)]
    index = index_of(record("tc1", 150, args={"path": "/h/skills/x/SKILL.md"}))
    assert render(messages, index, paths=["**/skills/**/*.md"]) is messages


def test_still_stubs_when_no_protection_config_is_passed() -> None:
    messages = [user("go", 1), *turn("tc1", 100)]
    index = index_of(record("tc1", 150, args={"path": "/h/skills/x/SKILL.md"}))
    assert "`t1`" in text_of(render(messages, index)[2])


def ctq_session(later_users: int) -> list[dict[str, Any]]:
    return plain([user("go", 1), *turn("q1", 100, name="context_tree_query"),
                  *(user(f"u{i}", 200 + i) for i in range(later_users))])


def test_renders_a_context_tree_query_recovery_output_verbatim_at_age_0_within_grace() -> None:
    messages = ctq_session(0)
    assert render(messages, index_of(record("q1", 150, name="context_tree_query"))) is messages


def test_stubs_a_context_tree_query_recovery_output_aged_past_the_grace_window() -> None:
    out = render(ctq_session(4), index_of(record("q1", 150, name="context_tree_query")), grace=3)
    assert "`t1`" in text_of(out[2])


def test_stubs_at_age_0_when_recovery_grace_turns_is_0() -> None:
    out = render(ctq_session(0), index_of(record("q1", 150, name="context_tree_query")), grace=0)
    assert "`t1`" in text_of(out[2])


def test_does_not_apply_the_grace_window_to_non_context_tree_query_outputs() -> None:
    out = render([user("go", 1), *turn("tc1", 100)], index_of(record("tc1", 150)))
    assert "`t1`" in text_of(out[2])


def test_is_protected_precedence_a_protected_context_tree_query_output_stays_verbatim_even_with_grace_off() -> None:
    messages = ctq_session(5)
    index = index_of(record("q1", 150, name="context_tree_query"))
    assert render(messages, index, tools=["context_tree_query"], grace=0) is messages


def test_renders_a_spilled_context_tree_query_recovery_output_verbatim_at_age_0_within_grace() -> None:
    messages = ctq_session(0)
    spilled = record("q1", 150, "", name="context_tree_query", spill_path="/b/q1.txt", spill_bytes=9)
    assert render(messages, index_of(spilled)) is messages


def test_stubs_a_spilled_context_tree_query_output_aged_past_the_grace_window_to_the_spill_pointer_stub() -> None:
    spilled = record("q1", 150, "", name="context_tree_query", spill_path="/b/q1.txt", spill_bytes=9)
    text = text_of(render(ctq_session(4), index_of(spilled))[2])
    assert "/b/q1.txt" in text and "Spilled" in text


def test_stubs_the_summarized_occurrence_and_leaves_the_live_one_verbatim() -> None:
    messages = [user("a", 1), *turn("bash_23", 1100, "OLD"), user("b", 3000), *turn("bash_23", 3100, "LIVE")]
    out = render(messages, index_of(record("bash_23", 1150, "OLD")))
    assert "`t1`" in text_of(out[2]) and text_of(out[5]) == "LIVE"


def test_fail_closed_a_timestamped_result_with_no_occurrence_record_is_never_stubbed() -> None:
    messages = [user("a", 1), *turn("bash_23", 3100, "LIVE")]
    assert render(messages, index_of(record("bash_23", 1150, "OLD"))) is messages


def test_fail_closed_a_mixed_legacy_and_occurrence_bare_id_does_not_stub_a_live_later_occurrence() -> None:
    index = index_of(record("bash_23", None, "LEGACY"), record("bash_23", 1150, "OLD"))
    messages = [user("a", 1), *turn("bash_23", 3100, "LIVE")]
    assert render(messages, index) is messages


def test_legacy_bare_id_records_still_stub() -> None:
    messages = [user("a", 1), *turn("bash_7", 500)]
    out = render(messages, index_of(record("bash_7", None)))
    assert "`t1`" in text_of(out[2])


def test_accepted_limitation_a_pure_legacy_summarized_id_stubs_a_live_colliding_result() -> None:
    messages = [user("a", 1), *turn("bash_7", 9000, "LIVE")]
    out = render(messages, index_of(record("bash_7", None, "OLD")))
    assert "`t1`" in text_of(out[2])  # pinned by the reference: pre-upgrade sessions only


def test_a_graced_occurrence_does_not_protect_a_different_occurrence_of_the_same_reused_bare_id() -> None:
    messages = [user("a", 1), *turn("reused", 1450, name="context_tree_query"),
                *turn("reused", 9450, "B", name="bash")]
    index = index_of(record("reused", 1500, name="context_tree_query"), record("reused", 9500, "B", name="bash"))
    out = render(messages, index)
    assert text_of(out[2]) == "RAW" and "`t2`" in text_of(out[4])


def test_a_clean_render_returns_the_identical_array_reference() -> None:
    messages = [user("go", 1), *turn("tc1", 100)]
    assert render(messages, ToolCallIndexer()) is messages


def test_sweeps_an_orphan_and_reports_the_diagnostic_once_across_repeated_renders_of_the_same_input() -> None:
    written: list[tuple[str, Any]] = []
    sink = DiagnosticSink(lambda kind, data: written.append((kind, data)))
    messages = [user("go", 1), result("ghost", "boo", 5)]
    out = render(messages, ToolCallIndexer(), sink=sink)
    render(messages, ToolCallIndexer(), sink=sink)
    assert [m["role"] for m in out] == ["user"]
    assert len(written) == 1
    assert "ghost" in written[0][1]["detail"] and "swept 1 orphan" in written[0][1]["detail"]


def test_bounds_the_sweep_dedup_key_and_truncation_marker_for_a_large_orphan_set() -> None:
    written: list[tuple[str, Any]] = []
    sink = DiagnosticSink(lambda kind, data: written.append((kind, data)))
    messages = [user("go", 1), *(result(f"g{i}", "x", 10 + i) for i in range(12))]
    render(messages, ToolCallIndexer(), sink=sink)
    detail = written[0][1]["detail"]
    assert detail.startswith("swept 12 orphan") and detail.endswith("... +7 more")
    assert detail.count(", ") == 4


def zero_sweep(messages: list[Any], out: list[Any]) -> None:
    again, swept = sweep_orphans(out)
    assert swept == [] and again is out


def test_zero_orphan_sweeps_stub_replace() -> None:
    messages = [user("go", 1), *turn("tc1", 100)]
    zero_sweep(messages, render(messages, index_of(record("tc1", 150))))


def test_zero_orphan_sweeps_legacy_bare_id_stub() -> None:
    messages = [user("go", 1), *turn("bash_7", 500)]
    zero_sweep(messages, render(messages, index_of(record("bash_7", None))))


def test_zero_orphan_sweeps_occurrence_keyed_stub_and_live() -> None:
    messages = [user("a", 1), *turn("bash_23", 1100, "OLD"), user("b", 3000), *turn("bash_23", 3100, "LIVE")]
    zero_sweep(messages, render(messages, index_of(record("bash_23", 1150, "OLD"))))


def test_zero_orphan_sweeps_spill_stub() -> None:
    messages = [user("go", 1), *turn("tc1", 100)]
    zero_sweep(messages, render(messages, index_of(record("tc1", 150, "", spill_path="/b/x.txt"))))
