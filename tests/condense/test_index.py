"""Scenarios of the reference's `src/indexer.test.ts`: occurrence keying, fail-closed bare ids, rebuild
from session entries, chain backfill."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest

from condense.dedup import content_hash
from condense.index import ToolCallIndexer
from condense.records import DEDUP_ALIAS, INDEX, SUMMARY, SummaryRef, ToolCallRecord
from condense.spill import spill_record
from tests.support.reference import summary_body_for
from tests.support.typed import present


class Log:
    """An append callback that remembers what was persisted, as the session would."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, Any]] = []

    def __call__(self, custom_type: str, data: Any) -> None:
        self.entries.append((custom_type, data))

    def as_branch(self) -> list[dict[str, Any]]:
        return [{"type": "custom", "customType": kind, "data": data} for kind, data in self.entries]


def ignore(_custom_type: str, _data: Any) -> None:
    pass


def call(call_id: str, text: str, ts: int | None = None, *, turn: int = 0, batch_ts: int = 1000,
         name: str = "bash") -> ToolCallRecord:
    return ToolCallRecord(call_id, name, {"cmd": "ls"}, text, False, turn, batch_ts, ts)


def indexed(*records: ToolCallRecord) -> ToolCallIndexer:
    """One add_batch per record, as separate flushes would do."""
    indexer = ToolCallIndexer()
    for record in records:
        indexer.add_batch([record], ignore)
    return indexer


FIRST = call("bash_23", "FIRST", 1150, turn=0, batch_ts=1000)
SECOND = call("bash_23", "SECOND", 2150, turn=1, batch_ts=2000)


def index_entry(*tool_calls: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "custom", "customType": INDEX, "data": {"toolCalls": list(tool_calls), **extra}}


def raw_record(call_id: str, text: str, ts: int | None = None, **extra: Any) -> dict[str, Any]:
    data = {"toolCallId": call_id, "toolName": "bash", "args": {}, "resultText": text, "isError": False,
            "turnIndex": 0, "timestamp": 1000, **extra}
    if ts is not None:
        data["resultTimestamp"] = ts
    return data


def summary_entry(refs: list[dict[str, Any]], content: Any = "summary text") -> dict[str, Any]:
    return {"type": "custom_message", "customType": SUMMARY, "content": content, "display": False,
            "details": {"toolCallRefs": refs, "toolNames": ["bash"] * len(refs), "turnIndex": 0,
                        "timestamp": 1000}}


def alias_entry(**data: Any) -> dict[str, Any]:
    return {"type": "custom", "customType": DEDUP_ALIAS, "data": data}


def rebuilt(*entries: dict[str, Any]) -> ToolCallIndexer:
    indexer = ToolCallIndexer()
    indexer.rebuild(list(entries))
    return indexer


# ----- occurrence keying -----


def test_two_batches_reusing_one_provider_id_keep_both_records() -> None:
    indexer = indexed(FIRST, SECOND)
    assert present(indexer.get_record("bash_23@1150")).result_text == "FIRST"
    assert present(indexer.get_record("bash_23@2150")).result_text == "SECOND"


def test_is_summarized_is_keyed_by_occurrence_so_a_live_reused_id_is_not_summarized() -> None:
    indexer = indexed(FIRST)
    assert indexer.is_summarized("bash_23@1150")
    assert not indexer.is_summarized("bash_23@3150")


def test_get_records_for_id_returns_every_occurrence_of_a_bare_id_chronologically() -> None:
    indexer = indexed(SECOND, FIRST)
    found = indexer.get_records_for_id("bash_23")
    assert [record.result_text for _, record in found] == ["FIRST", "SECOND"]
    assert [label for label, _ in found] == ["bash_23@1150", "bash_23@2150"]


def test_get_records_for_id_on_an_occurrence_key_or_short_ref_returns_exactly_one() -> None:
    indexer = indexed(FIRST, SECOND)
    indexer.register_summary_refs([SummaryRef("t1", "bash_23", 1150)])
    assert [r.result_text for _, r in indexer.get_records_for_id("bash_23@1150")] == ["FIRST"]
    assert [r.result_text for _, r in indexer.get_records_for_id("t1")] == ["FIRST"]


def test_short_refs_resolve_per_occurrence() -> None:
    indexer = indexed(FIRST, SECOND)
    indexer.register_summary_refs([SummaryRef("t1", "bash_23", 1150), SummaryRef("t2", "bash_23", 2150)])
    assert present(indexer.get_record("t1")).result_text == "FIRST"
    assert present(indexer.get_record("t2")).result_text == "SECOND"
    assert indexer.get_short_ref("bash_23@2150") == "t2"


def test_allocate_summary_refs_mints_refs_carrying_the_occurrence_timestamp() -> None:
    indexer = ToolCallIndexer()
    refs = indexer.allocate_summary_refs([FIRST])
    assert [ref.to_json() for ref in refs] == [
        {"shortId": "t1", "toolCallId": "bash_23", "resultTimestamp": 1150}
    ]
    # minting burns the number even though nothing was registered
    assert indexer.allocate_summary_refs([SECOND])[0].short_id == "t2"
    assert indexer.get_record("t1") is None


def test_content_dedup_does_not_alias_across_batches_that_merely_share_an_id() -> None:
    indexer = indexed(FIRST, SECOND)
    assert indexer.lookup_by_content("bash", "FIRST") == "bash_23@1150"
    assert indexer.lookup_by_content("bash", "SECOND") == "bash_23@2150"
    assert indexer.lookup_by_content("bash", "UNSEEN") is None


def test_register_duplicate_persists_both_occurrence_sides_and_reuses_the_short_ref() -> None:
    indexer = indexed(call("bash_23", "SAME", 1150))
    indexer.register_summary_refs([SummaryRef("t1", "bash_23", 1150)])
    log = Log()
    indexer.register_duplicate("bash_99@4150", "bash_23@1150", log)
    assert log.entries == [(DEDUP_ALIAS, {"newToolCallId": "bash_99", "newResultTimestamp": 4150,
                                          "originalToolCallId": "bash_23", "originalResultTimestamp": 1150})]
    assert indexer.is_summarized("bash_99@4150")
    assert present(indexer.get_record("bash_99@4150")).result_text == "SAME"
    assert indexer.get_short_ref("bash_99@4150") == "t1"


def test_get_records_for_id_includes_a_dedup_alias_occurrence_labelled_with_its_own_timestamp() -> None:
    indexer = indexed(call("bash_23", "SAME", 1150))
    indexer.register_duplicate("bash_23@9150", "bash_23@1150", ignore)
    found = indexer.get_records_for_id("bash_23")
    assert [r.result_text for _, r in found] == ["SAME", "SAME"]
    assert [r.result_timestamp for _, r in found] == [1150, 9150]
    assert [label for label, _ in found] == ["bash_23@1150", "bash_23@9150"]


def test_summary_body_lookups_are_occurrence_keyed() -> None:
    indexer = ToolCallIndexer()
    indexer.register_summary_body(["bash_23@1150"], "summary of FIRST")
    assert summary_body_for(indexer, "bash_23@1150") == "summary of FIRST"
    assert summary_body_for(indexer, "bash_23@3150") is None
    assert summary_body_for(indexer, "bash_23") is None
    assert indexer.summaries_covering(["bash_23@3150", "bash_23@1150"]) == ["summary of FIRST"]


# ----- fail-closed asymmetry: is_summarized vs bare-id resolution -----


def test_single_occurrence_bare_id_is_strictly_not_summarized_but_resolve_and_get_record_fall_back() -> None:
    indexer = indexed(FIRST)
    assert not indexer.is_summarized("bash_23")
    assert indexer.resolve_tool_call_id("bash_23") == "bash_23@1150"
    assert present(indexer.get_record("bash_23")).result_text == "FIRST"


def test_two_occurrences_bare_id_resolution_is_ambiguous_get_records_for_id_expands_both() -> None:
    indexer = indexed(FIRST, SECOND)
    assert indexer.resolve_tool_call_id("bash_23") is None
    assert indexer.get_record("bash_23") is None
    assert [r.result_text for _, r in indexer.get_records_for_id("bash_23")] == ["FIRST", "SECOND"]


def test_mixed_legacy_and_new_occurrence_has_no_legacy_bare_record_and_lists_both() -> None:
    indexer = indexed(call("bash_23", "OLD", batch_ts=1000), call("bash_23", "NEW", 2150, batch_ts=2000))
    assert not indexer.has_legacy_bare_record("bash_23")
    found = indexer.get_records_for_id("bash_23")
    assert [r.result_text for _, r in found] == ["OLD", "NEW"]
    assert [label for label, _ in found] == ["bash_23", "bash_23@2150"]


def test_has_legacy_bare_record_true_for_pure_legacy_false_for_pure_occurrence_false_for_mixed() -> None:
    assert indexed(call("bash_1", "OLD")).has_legacy_bare_record("bash_1")
    assert not indexed(call("bash_2", "NEW", 1150)).has_legacy_bare_record("bash_2")
    mixed = indexed(call("bash_3", "OLD"), call("bash_3", "NEW", 2150))
    assert not mixed.has_legacy_bare_record("bash_3")


def test_rebuild_is_order_independent_alias_before_its_summary_still_inherits_the_short_ref() -> None:
    indexer = rebuilt(
        index_entry(raw_record("bash_23", "FIRST", 1150)),
        alias_entry(newToolCallId="bash_99", newResultTimestamp=4150, originalToolCallId="bash_23",
                    originalResultTimestamp=1150),
        summary_entry([{"shortId": "t1", "toolCallId": "bash_23", "resultTimestamp": 1150}]),
    )
    assert indexer.get_short_ref("bash_99@4150") == "t1"


# ----- session rebuild -----


def test_rebuilds_occurrence_records_both_short_refs_and_the_dedup_alias() -> None:
    indexer = rebuilt(
        index_entry(raw_record("bash_23", "FIRST", 1150), raw_record("bash_23", "SECOND", 2150)),
        summary_entry([{"shortId": "t1", "toolCallId": "bash_23", "resultTimestamp": 1150},
                       {"shortId": "t2", "toolCallId": "bash_23", "resultTimestamp": 2150}]),
        alias_entry(newToolCallId="bash_99", newResultTimestamp=4150, originalToolCallId="bash_23",
                    originalResultTimestamp=1150),
    )
    assert present(indexer.get_record("t1")).result_text == "FIRST"
    assert present(indexer.get_record("t2")).result_text == "SECOND"
    assert present(indexer.get_record("bash_99@4150")).result_text == "FIRST"
    assert indexer.get_short_ref("bash_99@4150") == "t1"
    assert summary_body_for(indexer, "bash_23@2150") == "summary text"
    assert indexer.next_ref_number == 3


def test_legacy_entries_without_result_timestamp_keep_bare_id_keys() -> None:
    indexer = rebuilt(
        index_entry(raw_record("bash_7", "OLD")),
        alias_entry(newToolCallId="bash_8", originalToolCallId="bash_7"),
        # legacy summary details named outputs by id only: no short ref is minted for them
        {"type": "custom_message", "customType": SUMMARY,
         "content": [{"type": "text", "text": "old summary"}],
         "details": {"toolCallIds": ["bash_7"]}},
    )
    assert present(indexer.get_record("bash_7")).result_text == "OLD"
    assert indexer.has_legacy_bare_record("bash_7")
    assert not indexer.has_legacy_bare_record("bash_23")
    assert indexer.is_summarized("bash_8")
    assert indexer.get_short_ref("bash_7") is None
    assert summary_body_for(indexer, "bash_7") == "old summary"


# ----- backfill_chain_records -----


def backfill_record(call_id: str, ts: int, text: str | None = None) -> ToolCallRecord:
    return ToolCallRecord(call_id, "bash", {"command": "ls"}, text or f"out-{call_id}", False, -1, ts, ts)


def test_happy_path_indexes_records_returns_refs_persists_one_entry() -> None:
    indexer = ToolCallIndexer()
    log = Log()
    refs = indexer.backfill_chain_records([backfill_record("a", 1), backfill_record("b", 2)], log, None)
    assert [ref.short_id for ref in refs] == ["t1", "t2"]
    assert present(indexer.get_record("a")).tool_call_id == "a"
    assert indexer.resolve_tool_call_id(refs[0].short_id) == "a@1"
    assert len(log.entries) == 1
    kind, data = log.entries[0]
    assert kind == INDEX
    assert data["backfilled"] is True
    assert len(data["refs"]) == 2
    assert len(data["toolCalls"]) == 2


def test_dedup_exclusion_backfilled_records_never_seed_content_dedup() -> None:
    indexer = ToolCallIndexer()
    indexer.backfill_chain_records([backfill_record("a", 1)], ignore, None)
    assert indexer.lookup_by_content("bash", "out-a") is None


def test_append_failure_aborts_atomically_no_partial_index_state() -> None:
    def failing(_custom_type: str, _data: Any) -> None:
        raise OSError("append failed")

    indexer = ToolCallIndexer()
    with pytest.raises(OSError, match="append failed"):
        indexer.backfill_chain_records([backfill_record("a", 1)], failing, None)
    assert len(indexer) == 0
    assert indexer.get_short_ref("a@1") is None
    assert indexer.get_record("t1") is None


def test_spill_large_result_text_is_written_to_a_sidecar_blob(tmp_path: Path) -> None:
    indexer = ToolCallIndexer()
    log = Log()
    big = "x" * 200_001
    spill = partial(spill_record, threshold=200_000, preview_bytes=500, blobs_dir=tmp_path / "sid-blobs")
    indexer.backfill_chain_records([backfill_record("a", 1, big)], log, spill)
    persisted = log.entries[0][1]["toolCalls"][0]
    assert persisted["spillPath"]
    assert persisted["resultText"] == ""
    assert persisted["resultPreview"]
    assert persisted["contentHash"]
    assert Path(persisted["spillPath"]).read_text() == big


def test_reconstruction_round_trip_backfilled_entry_replays_without_seeding_dedup() -> None:
    indexer = ToolCallIndexer()
    log = Log()
    refs = indexer.backfill_chain_records([backfill_record("a", 1)], log, None)
    again = rebuilt(*log.as_branch())
    assert present(again.get_record("a")).tool_call_id == "a"
    assert again.resolve_tool_call_id(refs[0].short_id) == "a@1"
    assert again.lookup_by_content("bash", "out-a") is None
    assert again.next_ref_number == 2


def test_legacy_round_trip_unchanged_pre_change_entries_no_backfilled_refs_still_seed_dedup() -> None:
    indexer = rebuilt(index_entry(backfill_record("a", 1).to_json()))
    assert indexer.lookup_by_content("bash", "out-a") == "a@1"


def test_full_legacy_session_round_trip_chain_and_index_entries_reconstruct_to_identical_state() -> None:
    # The reference's indexer also holds the chain registry; ours does not (the chains package owns it),
    # so this checks that a chain entry in the branch leaves the index's state exactly as without it.
    index = index_entry(
        {"toolCallId": "tc1", "toolName": "bash", "args": {"cmd": "ls"}, "resultText": "listing",
         "isError": False, "turnIndex": 0, "timestamp": 100, "resultTimestamp": 110},
        {"toolCallId": "tc2", "toolName": "read", "args": {"path": "f"}, "resultText": "file contents",
         "isError": False, "turnIndex": 0, "timestamp": 100, "resultTimestamp": 210},
    )
    summary = summary_entry([{"shortId": "t1", "toolCallId": "tc1", "resultTimestamp": 110},
                             {"shortId": "t2", "toolCallId": "tc2", "resultTimestamp": 210}],
                            "summarized tc1 and tc2")
    chain = {"type": "custom", "customType": "context-prune-chain", "data": {
        "blockId": "b1", "startUserTimestamp": 50, "droppedToolCallIds": ["tc1", "tc2"],
        "droppedOccurrenceKeys": ["tc1@110", "tc2@210"], "finalAssistantTimestamp": 300,
        "toolRefs": ["t1", "t2"], "compressedAt": 12345,
        "rangeSummaryText": "fused range summary of tc1+tc2"}}
    with_chain, without_chain = rebuilt(index, summary, chain), rebuilt(index, summary)
    assert vars(with_chain) == vars(without_chain)
    assert present(with_chain.get_record("t1")).result_text == "listing"
    assert present(with_chain.get_record("t2")).result_text == "file contents"
    assert with_chain.resolve_tool_call_id("t1") == "tc1@110"
    assert with_chain.resolve_tool_call_id("t2") == "tc2@210"
    assert with_chain.lookup_by_content("bash", "listing") == "tc1@110"
    assert with_chain.lookup_by_content("read", "file contents") == "tc2@210"


# ----- beyond the reference: atomicity of the other writes, and hostile entries -----


def test_add_batch_persists_one_entry_first_and_a_failed_append_leaves_memory_unchanged() -> None:
    log = Log()
    indexer = ToolCallIndexer()
    indexer.add_batch([FIRST, SECOND], log)
    assert log.entries == [(INDEX, {"toolCalls": [FIRST.to_json(), SECOND.to_json()]})]

    def failing(_custom_type: str, _data: Any) -> None:
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        indexer.add_batch([call("other", "TEXT", 5)], failing)
    with pytest.raises(RuntimeError):
        indexer.register_duplicate("dup@9", "bash_23@1150", failing)
    assert len(indexer) == 2
    assert not indexer.is_summarized("other@5")
    assert not indexer.is_summarized("dup@9")
    assert indexer.lookup_by_content("bash", "TEXT") is None


def test_rebuild_uses_the_persisted_content_hash_and_first_seen_wins() -> None:
    full_body_hash = content_hash("bash", "BIG BODY")
    spilled = raw_record("big", "", 10, contentHash=full_body_hash, spillPath="/x/big_10.txt")
    indexer = rebuilt(index_entry(spilled, raw_record("b", "same", 20), raw_record("c", "same", 30)))
    assert indexer.lookup_by_content("bash", "BIG BODY") == "big@10"  # not the hash of the emptied text
    assert indexer.lookup_by_content("bash", "") is None
    assert indexer.lookup_by_content("bash", "same") == "b@20"


def test_rebuild_replaces_previous_state_and_skips_malformed_entries() -> None:
    indexer = indexed(FIRST)
    indexer.rebuild([
        "not a dict",
        {"type": "custom", "customType": INDEX, "data": None},
        index_entry({"toolCallId": 7}, "junk", raw_record("ok", "fine", 1)),  # type: ignore[arg-type]  # malformed
        {"type": "custom_message", "customType": SUMMARY, "content": "s",
         "details": {"toolCallRefs": [{"shortId": 3}]}},
        alias_entry(newToolCallId="", originalToolCallId="ok"),
        {"type": "message", "message": {"role": "user", "content": "hi", "timestamp": 1}},
    ])
    assert len(indexer) == 1
    assert not indexer.is_summarized("bash_23@1150")
    assert present(indexer.get_record("ok")).result_text == "fine"


def test_reserved_refs_follow_call_order_whichever_output_is_indexed_first() -> None:
    indexer = ToolCallIndexer()
    early, late = call("a", "A", 1100), call("b", "B", 1200)
    indexer.reserve_refs([early.key, late.key])
    [late_ref] = indexer.allocate_summary_refs([late])  # a stale read indexed before the summary of `a`
    [early_ref] = indexer.allocate_summary_refs([early])
    assert (early_ref.short_id, late_ref.short_id) == ("t1", "t2")
    [fresh] = indexer.allocate_summary_refs([call("c", "C", 1300)])
    assert fresh.short_id == "t3"
