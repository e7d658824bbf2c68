"""A compressed chain's record in the compact format says its numbers by what it holds: its final reply's
time as an offset from its user message's, its block id only where a reader would issue another, its
body's source by the names it used; pi-condense's entries and earlier compact ones read the same."""

from __future__ import annotations

from typing import Any

from condense.chains.model import ChainEntry, chain_records
from condense.records import CHAIN


def _entry(block: str, start: int, final: int, **fields: Any) -> ChainEntry:
    return ChainEntry(block, start, (), final, ("t1", "t2"), final, **fields)


def _records(*data: dict[str, Any]) -> list[dict[str, Any]]:
    """A branch holding these chain records (one entry each) after a message at time 9,000."""
    message = {"type": "message", "id": "m", "message": {"role": "assistant", "timestamp": 9_000}}
    return [message, *({"type": "custom", "id": f"r{n}", "customType": CHAIN, "data": item}
                       for n, item in enumerate(data))]


def test_a_compact_record_says_its_final_reply_as_an_offset_and_leaves_out_the_block_id_a_reader_issues() -> None:
    data = _entry("b1", 1_700_000_000_000, 1_700_000_039_207).to_json(False, 9_000, "b1")
    assert "blockId" not in data and "finalAssistantTimestamp" not in data and data["finalAfter"] == 39_207
    [read] = chain_records(_records(data))
    assert (read.block_id, read.final_assistant_timestamp) == ("b1", 1_700_000_039_207)


def test_a_block_id_a_reader_would_not_issue_is_said_and_the_next_follows_the_highest_read() -> None:
    """A carried chain keeps the id it had on the branch left behind; the one after it continues from it."""
    first = _entry("b7", 100, 200).to_json(False, 9_000, "b1")
    second = _entry("b8", 300, 400).to_json(False, 9_000, "b8")
    assert first["blockId"] == "b7" and "blockId" not in second
    assert [chain.block_id for chain in chain_records(_records(first, second))] == ["b7", "b8"]


def test_a_deterministic_body_made_again_is_said_by_the_names_it_used() -> None:
    data = _entry("b1", 100, 200, body_source="deterministic", body_names=20,
                  range_summary_text="Deterministic chain compression").to_json(False, 9_000, "b1")
    assert data["bodyNames"] == 20 and "bodySource" not in data and "rangeSummaryText" not in data
    [read] = chain_records(_records(data))
    assert (read.body_source, read.body_names) == ("deterministic", 20)


def test_earlier_compact_records_and_pi_condenses_read_the_same() -> None:
    earlier = {"blockId": "b1", "startUserTimestamp": 100, "finalAssistantTimestamp": 200, "toolRefs": "t1-t2",
               "bodySource": "deterministic", "bodyNames": 20}
    full = _entry("b2", 300, 400, range_summary_text="body").to_json()
    assert "finalAfter" not in full and full["blockId"] == "b2" and full["droppedToolCallIds"] == []
    first, second = chain_records(_records(earlier, full))
    assert (first.block_id, first.final_assistant_timestamp, first.body_source) == ("b1", 200, "deterministic")
    assert (second.block_id, second.final_assistant_timestamp, second.compressed_at) == ("b2", 400, 400)
