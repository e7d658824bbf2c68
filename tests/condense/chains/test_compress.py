"""Scenarios of src/chain-compressor.test.ts: the rolling window, compression decisions, fusion, grace,
occurrence keys, and the deterministic fallback for chains no summary covers.

The reference drives `compressEligible` with a mock indexer; here the index is the real
`ToolCallIndexer` primed the way a flush primes it, fusion goes through the real `Summarizer` over a
scripted host, and persistence is an in-memory session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from condense.chains import (
    ChainEntry,
    ChainRange,
    ChainRegistry,
    CompressResult,
    Skipped,
    compress_eligible,
    detect_chains,
    deterministic_body,
    extract_chain_records,
    select_eligible,
)
from condense.index import ToolCallIndexer
from condense.protect import is_protected
from condense.records import CHAIN, INDEX, QUERY_TOOL, STATS, SummaryRef, ToolCallRecord
from condense.stats import PruneStats
from condense.summarize import Summarizer
from tests.support.chains import (
    Reports,
    Session,
    Signal,
    SummarizerConfig,
    call,
    calls,
    final,
    result,
    user,
)
from tests.support.memory_host import MemoryHost
from tests.support.reference import in_grace_recovery_keys

Messages = list[dict[str, Any]]


def closed(start: int, ids: Sequence[str] | None = None) -> ChainRange:
    return ChainRange(start, start + 100, tuple(ids if ids is not None else [f"tc-{start}"]))


def empty_middle(start: int) -> ChainRange:
    return ChainRange(start, start + 100)


def open_chain(start: int) -> ChainRange:
    return ChainRange(start, None)


def todo_protected(name: str, args: dict[str, Any]) -> bool:
    return is_protected(name, args, {"todowrite"}, [])


def starts(chains: Sequence[ChainRange]) -> list[int]:
    return [chain.start_user_timestamp for chain in chains]


def rounds(*specs: tuple[int, Sequence[str | dict[str, Any]]]) -> Messages:
    """One closed round per (start, calls): user at start, calls at start+10, the n-th result at
    start+20+n, the reply at start+100. Plain-string calls are bash calls with that id."""
    messages: Messages = []
    for start, blocks in specs:
        messages += [user(start), calls(start + 10, *blocks)]
        for n, block in enumerate(blocks):
            call_id = block if isinstance(block, str) else block["id"]
            name = "bash" if isinstance(block, str) else block["name"]
            messages.append(result(start + 20 + n, call_id, f"output of {call_id}", name=name))
        messages.append(final(start + 100))
    return messages


def cover(index: ToolCallIndexer, session: Session, keys: Sequence[str], text: str) -> None:
    """What a flush leaves behind for a summarised batch: records, refs and the summary body."""
    records = []
    for key in keys:
        call_id, _, stamp = key.partition("@")
        records.append(ToolCallRecord(call_id, "bash", {}, f"output of {call_id}", False, 0, 0,
                                      int(stamp) if stamp else None))
    refs = index.allocate_summary_refs(records)
    index.add_batch(records, session.append)
    index.register_summary_refs(refs)
    index.register_summary_body(keys, text)


async def compress(chains: Sequence[ChainRange], k: int, messages: Messages | None = None, *,
                   index: ToolCallIndexer | None = None, registry: ChainRegistry | None = None,
                   session: Session | None = None, **options: Any) -> CompressResult:
    return await compress_eligible(
        chains, k, messages=messages or [], registry=ChainRegistry() if registry is None else registry,
        index=ToolCallIndexer() if index is None else index,
        append=(session or Session()).append, compressed_at=options.pop("compressed_at", 9999), **options)


def fuser(reply: str | None = "FUSED") -> tuple[Summarizer, MemoryHost]:
    host = MemoryHost(answer=lambda prompt: reply or "")
    return Summarizer(host, SummarizerConfig()), host


def two_summary_chain() -> tuple[Messages, ToolCallIndexer, Session]:
    messages = rounds((100, ["tc1", "tc2"]), (300, ["tc3"]), (500, ["tc4"]), (700, ["tc5"]))
    index, session = ToolCallIndexer(), Session()
    cover(index, session, ["tc1@120"], "s1")
    cover(index, session, ["tc2@121"], "s2")
    session.entries.clear()
    return messages, index, session


# ----- select_eligible -------------------------------------------------------------------------------


def test_empty_input_empty_output() -> None:
    assert select_eligible([], set(), 3) == []


def test_chains_length_less_than_k_empty() -> None:
    assert select_eligible([closed(100), closed(300)], set(), 3) == []


def test_chains_length_equal_k_empty_window_exactly_full() -> None:
    assert select_eligible([closed(100), closed(300), closed(500)], set(), 3) == []


def test_chains_length_k_plus_1_one_chain_oldest() -> None:
    chains = [closed(100), closed(300), closed(500), closed(700)]
    assert starts(select_eligible(chains, set(), 3)) == [100]


def test_chains_length_k_plus_3_three_chains_3_oldest_in_input_order() -> None:
    chains = [closed(t) for t in (100, 300, 500, 700, 900, 1100)]
    assert starts(select_eligible(chains, set(), 3)) == [100, 300, 500]


def test_open_chains_are_never_returned_regardless_of_position() -> None:
    chains = [closed(100), open_chain(200), closed(500), closed(700), closed(900)]
    assert starts(select_eligible(chains, set(), 3)) == [100]  # the open chain takes no window slot


def test_already_compressed_chains_are_excluded_and_dont_count_toward_window() -> None:
    chains = [closed(100), closed(300), closed(500), closed(700)]
    assert starts(select_eligible(chains, {100, 300}, 1)) == [500]


def test_k_0_all_closed_not_already_compressed_chains_returned() -> None:
    assert starts(select_eligible([closed(100), closed(300), closed(500)], set(), 0)) == [100, 300, 500]


def test_k_0_with_already_compressed_only_not_yet_compressed() -> None:
    assert starts(select_eligible([closed(100), closed(300), closed(500)], {100}, 0)) == [300, 500]


def test_empty_middle_chains_never_selected_regardless_of_k() -> None:
    chains = [empty_middle(100), empty_middle(200), closed(300, ["tc1", "tc2"]), closed(400, ["tc3"])]
    assert starts(select_eligible(chains, set(), 0)) == [300, 400]
    assert starts(select_eligible(chains, set(), 1)) == [300]


# ----- compress_eligible -----------------------------------------------------------------------------


async def test_compresses_eligible_chains_and_returns_entries() -> None:
    messages = rounds((100, ["tc1"]), (300, ["tc2"]), (500, ["tc3"]), (700, ["tc4"]))
    index, session = ToolCallIndexer(), Session()
    for key in ("tc1@120", "tc2@320", "tc3@520", "tc4@720"):
        cover(index, session, [key], f"summary {key}")
    session.entries.clear()
    registry = ChainRegistry()
    outcome = await compress(detect_chains(messages), 3, messages, index=index, registry=registry,
                             session=session, compressed_at=9999)
    [entry] = outcome.entries
    assert (entry.block_id, entry.start_user_timestamp, entry.compressed_at) == ("b1", 100, 9999)
    assert len(session.entries) == 1
    assert registry.entries() == [entry]


async def test_covered_path_chain_entry_pinned_shape() -> None:
    index, session = ToolCallIndexer(), Session()
    index.register_summary_refs([SummaryRef("t1", "tc1")])
    index.register_summary_body(["tc1"], "legacy summary")
    outcome = await compress([ChainRange(100, 200, ("tc1",))], 0, index=index, session=session,
                             compressed_at=42)
    pinned = {"blockId": "b1", "startUserTimestamp": 100, "droppedToolCallIds": ["tc1"],
              "finalAssistantTimestamp": 200, "toolRefs": ["t1"], "compressedAt": 42}
    assert outcome.entries[0].to_json() == pinned
    assert outcome.entries[0].body_source is None
    assert session.of(CHAIN) == [pinned]


async def test_no_coverage_deterministic_compression_not_a_permanent_skip() -> None:
    messages = rounds((100, ["tc1"]))
    outcome = await compress(detect_chains(messages), 0, messages)
    [entry] = outcome.entries
    assert entry.body_source == "deterministic"
    assert entry.range_summary_text is not None and entry.range_summary_text.startswith("Deterministic chain")
    assert outcome.skipped == []


async def test_reports_already_compressed_chains_in_skipped_list() -> None:
    registry = ChainRegistry()
    existing = await compress([closed(100)], 0, rounds((100, ["tc-100"])), registry=registry)
    assert len(existing.entries) == 1
    chains = [closed(100), closed(300), closed(500), closed(700)]
    outcome = await compress(chains, 3, registry=registry)
    assert outcome.entries == []
    assert outcome.skipped == [Skipped(100, "already-compressed")]


async def test_append_entry_is_called_with_custom_type_chain_as_the_type_argument() -> None:
    messages, index, session = two_summary_chain()
    await compress(detect_chains(messages), 3, messages, index=index, session=session)
    assert session.types == [CHAIN] == ["context-prune-chain"]


async def test_fuses_range_summary_when_2_per_batch_summaries_and_fuse_range_is_provided() -> None:
    messages, index, session = two_summary_chain()
    summarizer, host = fuser("FUSED")
    stats = PruneStats()
    outcome = await compress(detect_chains(messages), 3, messages, index=index, session=session,
                             fuser=summarizer, stats=stats)
    assert len(host.prompts) == 1 and "s1\n\ns2" in host.prompts[0]
    assert outcome.entries[0].range_summary_text == "FUSED"
    assert (stats.call_count, stats.ranges_summarized, stats.chains_compressed) == (1, 1, 1)
    assert session.types == [CHAIN, STATS]
    assert session.of(STATS)[0]["rangesSummarized"] == 1


async def test_a_fused_summary_keeps_the_names_lines_a_model_would_merge_away() -> None:
    messages = rounds((100, ["tc1", "tc2"]), (300, ["tc3"]), (500, ["tc4"]), (700, ["tc5"]))
    index, session = ToolCallIndexer(), Session()
    cover(index, session, ["tc1@120"], "- `t1` read a.ts\n- Names in `t1`: HookRunner, agent_end")
    cover(index, session, ["tc2@121"], "- `t2` ran grep\n- Names in `t2`: createJiti")
    summarizer, _ = fuser("Read a.ts and grepped for the loader.")
    outcome = await compress(detect_chains(messages), 3, messages, index=index, fuser=summarizer)
    assert outcome.entries[0].range_summary_text == ("Read a.ts and grepped for the loader.\n"
                                                      "- Names in `t1`: HookRunner, agent_end\n"
                                                      "- Names in `t2`: createJiti")


async def test_does_not_fuse_a_single_per_batch_summary() -> None:
    messages = rounds((100, ["tc1", "tc2"]))
    index, session = ToolCallIndexer(), Session()
    cover(index, session, ["tc1@120", "tc2@121"], "only-one")
    summarizer, host = fuser()
    outcome = await compress(detect_chains(messages), 0, messages, index=index, fuser=summarizer)
    assert host.prompts == []
    assert outcome.entries[0].range_summary_text is None


async def test_fusion_returning_null_falls_back_to_no_range_summary_text_still_compresses() -> None:
    messages, index, _ = two_summary_chain()
    summarizer, host = fuser(None)  # an empty answer: unusable, so no fused text
    outcome = await compress(detect_chains(messages), 3, messages, index=index, fuser=summarizer)
    assert len(host.prompts) == 1
    assert len(outcome.entries) == 1
    assert outcome.entries[0].range_summary_text is None


async def test_fusion_throwing_is_non_fatal_chain_still_compresses_via_fallback() -> None:
    messages, index, _ = two_summary_chain()
    summarizer, host = fuser()
    # an aborted signal makes the summariser raise before it calls the model
    outcome = await compress(detect_chains(messages), 3, messages, index=index, fuser=summarizer,
                             signal=Signal(aborted=True))
    assert host.prompts == []
    assert len(outcome.entries) == 1
    assert outcome.entries[0].range_summary_text is None


def protected_rounds() -> Messages:
    return rounds((100, [call("tc-read", "read"), call("tc-todo", "todowrite")]))


async def test_copies_protected_tool_call_ids_from_the_range_onto_the_entry_when_non_empty() -> None:
    messages = protected_rounds()
    index, session = ToolCallIndexer(), Session()
    cover(index, session, ["tc-read@120"], "read summary")
    chains = detect_chains(messages, todo_protected)
    outcome = await compress(chains, 0, messages, index=index, session=session)
    assert outcome.entries[0].protected_tool_call_ids == ("tc-todo",)
    assert session.of(CHAIN)[0]["protectedToolCallIds"] == ["tc-todo"]


async def test_omits_protected_tool_call_ids_field_entirely_when_range_has_none() -> None:
    messages = protected_rounds()
    index, session = ToolCallIndexer(), Session()
    cover(index, session, ["tc-read@120", "tc-todo@121"], "summary")
    await compress(detect_chains(messages), 0, messages, index=index, session=session)
    assert "protectedToolCallIds" not in session.of(CHAIN)[0]


async def test_no_fuse_range_provided_no_range_summary_text_concat_fallback_at_render() -> None:
    messages, index, _ = two_summary_chain()
    outcome = await compress(detect_chains(messages), 3, messages, index=index, fuser=None)
    assert outcome.entries[0].range_summary_text is None
    assert index.summaries_covering(outcome.entries[0].dropped_occurrence_keys) == ["s1", "s2"]


# ----- recovery grace -------------------------------------------------------------------------------


def recovery_rounds() -> Messages:
    """Round 100 holds a recovery (`context_tree_query`) result; round 300 does not."""
    return rounds((100, [call("q1", QUERY_TOOL, {"toolCallIds": ["t1"]})]), (300, ["tc2"]))


async def test_defers_a_chain_whose_span_holds_an_in_grace_recovery_id() -> None:
    messages = recovery_rounds()
    outcome = await compress(detect_chains(messages), 0, messages, grace_keys={"q1@120"})
    assert [entry.start_user_timestamp for entry in outcome.entries] == [300]


async def test_compresses_normally_when_no_in_grace_recovery_id_is_present() -> None:
    messages = recovery_rounds()
    outcome = await compress(detect_chains(messages), 0, messages, grace_keys={"q9@999", "q1@7777"})
    assert [entry.start_user_timestamp for entry in outcome.entries] == [100, 300]


def test_defers_only_the_grace_chain_without_shrinking_the_rolling_window_buffer() -> None:
    chains = [ChainRange(t, t + 50, (f"c{t}",), (f"c{t}@{t + 20}",)) for t in (100, 200, 300, 400, 500)]
    # the window (K=2) keeps 400 and 500 raw; the graced chain 400 is inside it, so nothing shifts
    assert starts(select_eligible(chains, set(), 2, {"c400@420"})) == [100, 200, 300]
    assert starts(select_eligible(chains, set(), 2, {"c200@220"})) == [100, 300]


# ----- occurrence keys ------------------------------------------------------------------------------


async def test_summary_tool_ref_lookups_receive_occurrence_keys_not_bare_ids() -> None:
    messages = rounds((1000, ["bash_23"]))  # its result is bash_23@1020
    index, session = ToolCallIndexer(), Session()
    index.register_summary_refs([SummaryRef("t1", "bash_23")])  # a legacy record of another occurrence
    index.register_summary_body(["bash_23"], "WRONG: the legacy occurrence")
    cover(index, session, ["bash_23@1020"], "RIGHT: this occurrence")
    outcome = await compress(detect_chains(messages), 0, messages, index=index)
    [entry] = outcome.entries
    assert entry.tool_refs == ("t2",)
    assert index.summaries_covering(entry.lookup_keys) == ["RIGHT: this occurrence"]


async def test_persists_dropped_occurrence_keys_alongside_dropped_tool_call_ids() -> None:
    messages = rounds((1000, ["bash_23"]))
    index, session = ToolCallIndexer(), Session()
    cover(index, session, ["bash_23@1020"], "summary")
    await compress(detect_chains(messages), 0, messages, index=index, session=session)
    data = session.of(CHAIN)[0]
    assert (data["droppedToolCallIds"], data["droppedOccurrenceKeys"]) == (["bash_23"], ["bash_23@1020"])


async def test_a_chain_without_middle_occurrence_keys_falls_back_to_bare_ids() -> None:
    index, session = ToolCallIndexer(), Session()
    index.register_summary_refs([SummaryRef("t4", "tc1")])
    index.register_summary_body(["tc1"], "legacy summary")
    outcome = await compress([ChainRange(100, 200, ("tc1",))], 0, index=index, session=session)
    assert outcome.entries[0].tool_refs == ("t4",)
    assert "droppedOccurrenceKeys" not in session.of(CHAIN)[0]


async def test_does_not_compress_a_chain_whose_recovery_query_result_is_still_in_grace() -> None:
    messages = [*recovery_rounds(), *rounds((500, ["tc3"]))]
    grace = in_grace_recovery_keys(messages, 3)
    assert grace == {"q1@120"}
    outcome = await compress(detect_chains(messages), 0, messages, grace_keys=grace)
    assert [entry.start_user_timestamp for entry in outcome.entries] == [300, 500]


# ----- extract_chain_records -------------------------------------------------------------------------


def test_happy_path_2_middle_calls_2_records() -> None:
    messages = rounds((100, [call("c1", "bash", {"cmd": "ls"}), call("c2", "read", {"path": "f"})]))
    [chain] = detect_chains(messages)
    records = extract_chain_records(messages, chain, lambda _key: False)
    assert records == [
        ToolCallRecord("c1", "bash", {"cmd": "ls"}, "output of c1", False, -1, 120, 120),
        ToolCallRecord("c2", "read", {"path": "f"}, "output of c2", False, -1, 121, 121),
    ]


def test_excludes_protected_and_already_indexed_occurrence_keys() -> None:
    messages = rounds((100, ["c1", call("c2", "todowrite"), "c3"]))
    [chain] = detect_chains(messages, todo_protected)
    records = extract_chain_records(messages, chain, lambda key: key == "c3@122")
    assert [record.key for record in records] == ["c1@120"]


def test_falls_back_to_block_args_when_block_input_is_absent() -> None:
    block = {"type": "toolCall", "id": "c1", "name": "bash", "args": {"cmd": "pwd"}}
    messages = rounds((100, [block]))
    [chain] = detect_chains(messages)
    [record] = extract_chain_records(messages, chain, lambda _key: False)
    assert record.args == {"cmd": "pwd"}


# ----- deterministic_body ----------------------------------------------------------------------------

T0 = 1_700_000_000_000  # 2023-11-14T22:13:20.000Z


def record(call_id: str, tool: str, args: dict[str, Any], result_ts: int | None,
           ts: int = T0) -> ToolCallRecord:
    return ToolCallRecord(call_id, tool, args, "out", False, -1, ts, result_ts)


def test_full_grammar_pin() -> None:
    records = [record("c1", "bash", {"cmd": "ls"}, T0), record("c2", "bash", {"cmd": "pwd"}, T0 + 900),
               record("c3", "read", {"path": "f"}, T0 + 2000)]
    assert deterministic_body(records, ["t1", "t2", "t3"]).split("\n") == [
        "Deterministic chain compression (no per-batch summary existed for this span; raw outputs "
        "recoverable via context_tree_query).",
        "Calls: 3",
        "Tools: bash x2, read x1",
        "Span: 2023-11-14T22:13:20.000Z -> 2023-11-14T22:13:22.000Z (2s)",
        'First: bash {"cmd":"ls"}',
        'Last: read {"path":"f"}',
        "Refs: t1, t2, t3",
    ]


def test_sorts_spans_by_result_timestamp_when_it_differs_from_timestamp() -> None:
    late = record("c1", "bash", {"cmd": "late"}, T0 + 5500, ts=T0)
    early = record("c2", "read", {"path": "early"}, T0 + 1000, ts=T0 + 9000)
    lines = deterministic_body([late, early], ["t1", "t2"]).split("\n")
    assert lines[3] == "Span: 2023-11-14T22:13:21.000Z -> 2023-11-14T22:13:25.500Z (5s)"  # 4.5 s rounds up
    assert lines[4:6] == ['First: read {"path":"early"}', 'Last: bash {"cmd":"late"}']


def test_empty_tool_refs_falls_back_to_bare_tool_call_ids_for_the_refs_line() -> None:
    body = deterministic_body([record("c1", "bash", {}, T0), record("c2", "bash", {}, T0)], [])
    assert body.split("\n")[-1] == "Refs: c1, c2"


def test_300_char_args_excerpt_is_capped_at_200_chars() -> None:
    body = deterministic_body([record("c1", "write", {"content": "x" * 300}, T0)], ["t1"])
    first = next(line for line in body.split("\n") if line.startswith("First: "))
    excerpt = first.removeprefix("First: write ")
    assert len(excerpt) == 203
    assert excerpt == ('{"content":"' + "x" * 300)[:200] + "..."


def test_empty_args_chain_still_produces_a_non_empty_body() -> None:
    body = deterministic_body([record("c1", "bash", {}, T0)], ["t1"])
    assert "First: bash {}" in body and "Calls: 1" in body


# ----- the deterministic branch of compress_eligible -------------------------------------------------


async def test_compresses_an_uncovered_chain_with_a_deterministic_body() -> None:
    messages = rounds((100, ["c1", call("c2", "todowrite"), call("c3", "read", {"path": "f"})]))
    index, session, reports = ToolCallIndexer(), Session(), Reports()
    summarizer, host = fuser()
    outcome = await compress(detect_chains(messages, todo_protected), 0, messages, index=index,
                             session=session, fuser=summarizer, diagnostics=reports)
    [entry] = outcome.entries
    assert entry.body_source == "deterministic"
    assert host.prompts == []  # no fusion for a mechanical body
    assert session.types == [INDEX, CHAIN]  # the records are durable before the chain is
    [backfill] = session.of(INDEX)
    assert backfill["backfilled"] is True
    assert [r["toolCallId"] for r in backfill["toolCalls"]] == ["c1", "c3"]
    assert entry.tool_refs == ("t1", "t2") == tuple(r["shortId"] for r in backfill["refs"])
    assert "c2@121" not in index and index.get_short_ref("c2@121") is None
    assert entry.range_summary_text is not None and "Refs: t1, t2" in entry.range_summary_text
    assert reports.items == []


async def test_covered_path_is_untouched_backfill_never_invoked_entry_matches_identity_pin() -> None:
    messages = rounds((100, ["tc1"]))
    index, session = ToolCallIndexer(), Session()
    cover(index, session, ["tc1@120"], "summary")
    session.entries.clear()
    outcome = await compress(detect_chains(messages), 0, messages, index=index, session=session,
                             compressed_at=42)
    assert session.types == [CHAIN]
    assert session.of(CHAIN)[0] == {
        "blockId": "b1", "startUserTimestamp": 100, "droppedToolCallIds": ["tc1"],
        "droppedOccurrenceKeys": ["tc1@120"], "finalAssistantTimestamp": 200, "toolRefs": ["t1"],
        "compressedAt": 42,
    }
    assert outcome.entries[0].body_source is None


async def test_fail_closed_backfill_chain_records_rejecting_keeps_the_no_summary_skip() -> None:
    messages = rounds((100, ["c1"]))
    index, registry, session = ToolCallIndexer(), ChainRegistry(), Session(fail_on={INDEX})
    outcome = await compress(detect_chains(messages), 0, messages, index=index, registry=registry,
                             session=session)
    assert outcome.entries == []
    assert outcome.skipped == [Skipped(100, "no-summary")]
    assert session.entries == [] and len(registry) == 0 and len(index) == 0


async def test_retry_discriminator_members_already_indexed_nothing_new_extracted_composes_from_index() -> None:
    messages = rounds((100, ["c1", "c2"]))
    [chain] = detect_chains(messages)
    index, session = ToolCallIndexer(), Session()
    earlier = index.backfill_chain_records(extract_chain_records(messages, chain, index.__contains__),
                                           session.append, None)  # a previous attempt got this far
    session.entries.clear()
    outcome = await compress([chain], 0, messages, index=index, session=session)
    assert session.types == [CHAIN]  # no second index entry
    [entry] = outcome.entries
    assert entry.body_source == "deterministic"
    assert entry.tool_refs == tuple(ref.short_id for ref in earlier)


async def test_retry_discriminator_genuine_span_mismatch_skip_backfill_empty_diagnostic() -> None:
    messages = rounds((1000, ["c1"]))
    [chain] = detect_chains(messages)
    reports, session = Reports(), Session()
    outcome = await compress([chain], 0, messages[:-1], session=session, diagnostics=reports)  # reply missing
    assert outcome.skipped == [Skipped(1000, "no-summary")]
    assert reports.items == [("backfill-empty", "1000", "middles=1")]
    assert session.entries == []


async def test_fully_protected_uncovered_chain_plain_no_summary_skip_no_backfill_empty_diagnostic() -> None:
    messages = rounds((100, [call("c1", "todowrite"), call("c2", "todowrite")]))
    reports, session = Reports(), Session()
    outcome = await compress(detect_chains(messages, todo_protected), 0, messages, session=session,
                             diagnostics=reports)
    assert outcome.skipped == [Skipped(100, "no-summary")]
    assert reports.items == [] and session.entries == []


async def test_empty_args_chain_compresses_with_a_non_empty_deterministic_body() -> None:
    messages = rounds((100, [call("c1", "bash", {})]))
    outcome = await compress(detect_chains(messages), 0, messages)
    body = outcome.entries[0].range_summary_text
    assert body is not None and "First: bash {}" in body and "Last: bash {}" in body


# ----- the persisted entry and the registry (beyond the reference scenarios) ---------------------------


def test_a_chain_entry_round_trips_with_every_optional_field() -> None:
    data = {"blockId": "b4", "startUserTimestamp": 100, "droppedToolCallIds": ["c1", "c2"],
            "droppedOccurrenceKeys": ["c1@120", "c2@121"], "protectedToolCallIds": ["c2"],
            "finalAssistantTimestamp": 200, "toolRefs": ["t7"], "compressedAt": 5,
            "rangeSummaryText": "Deterministic chain compression ...", "bodySource": "deterministic"}
    entry = ChainEntry.from_json(data)
    assert entry is not None and entry.to_json() == data
    assert ChainEntry.from_json({**data, "blockId": ""}) is None
    assert ChainEntry.from_json({**data, "startUserTimestamp": "100"}) is None


def test_registry_rebuild_keeps_the_last_entry_per_start_and_never_reissues_a_block_id() -> None:
    def chain_entry(block_id: str, start: int) -> dict[str, Any]:
        data = {"blockId": block_id, "startUserTimestamp": start, "droppedToolCallIds": [],
                "finalAssistantTimestamp": start + 1, "toolRefs": [], "compressedAt": 0}
        return {"type": "custom", "customType": CHAIN, "data": data}

    registry = ChainRegistry()
    registry.rebuild([chain_entry("b1", 100), chain_entry("b7", 300), {"type": "custom", "customType": CHAIN},
                      chain_entry("b2", 100), {"type": "message", "message": user(1)}])
    assert [(e.block_id, e.start_user_timestamp) for e in registry] == [("b2", 100), ("b7", 300)]
    assert 100 in registry and 200 not in registry
    assert registry.find_by_block_id("b1") is None
    assert registry.issue_block_id() == "b8"
