"""Pi's compaction leaves out of the context everything before its first kept entry: condense must not
summarise those outputs (a paid call for text no request carries), stub their reads, nor compress their
chains; it works on the part the model still reads."""

from __future__ import annotations

from typing import Any

from condense.chains.model import chain_records
from condense.compaction_cut import CompactionCut, Cut
from condense.occurrence import occ_key
from condense.records import SUMMARY
from tests.support.memory_host import Driver, MemoryHost, make

BIG = "line of output\n" * 200  # 3,000 characters: every batch is summarised


async def task(drive: Driver, n: int, ts: int) -> None:
    await drive.prompt(f"request {n}", ts)
    await drive.tool_turn(ts + 10, [(f"c{n}", f"module {n}\n{BIG}")])
    await drive.final(ts + 50, f"reply {n}")


def compact_before(host: MemoryHost, request: str) -> None:
    """A compaction whose first kept entry is the user message `request`, as Pi writes it."""
    kept = next(e for e in host.entries if e.get("type") == "message" and e["message"]["role"] == "user"
                and e["message"]["content"][0]["text"] == request)
    host.memory.append("compaction", {"summary": "what came before", "firstKeptEntryId": kept["id"],
                                      "tokensBefore": 50_000})


def summarised_ids(host: MemoryHost) -> set[str]:
    return {ref["toolCallId"] for e in host.entries if e.get("customType") == SUMMARY
            for ref in e["details"]["toolCallRefs"]}


async def test_a_flush_after_a_compaction_summarises_only_what_the_context_still_holds() -> None:
    host, engine, drive = make({"prune_on": "on-demand", "min_batch_chars": 0,
                                "chain_compression": {"rolling_window": 0}})
    for n in range(4):
        await task(drive, n, 1_000 * (n + 1))
    compact_before(host, "request 2")
    await engine.flush("manual")
    assert summarised_ids(host) == {"c2", "c3"}
    chains = chain_records(host.entries)
    assert chains and all(chain.start_user_timestamp >= 3_000 for chain in chains)


async def test_a_read_the_compaction_left_out_is_not_stubbed_as_superseded() -> None:
    host, engine, drive = make({"prune_on": "on-demand", "min_batch_chars": 0, "superseded_reads": True})
    await drive.prompt("request 0", 1_000)
    await drive.tool_turn(1_010, [("r0", "def f(): pass\n" * 200)])  # read of r0.py
    await drive.final(1_050)
    await drive.prompt("request 1", 2_000)
    await drive.edit(2_010, "r0.py")
    await drive.tool_turn(2_100, [("c1", BIG)])
    compact_before(host, "request 1")
    await engine.flush("manual")
    assert not engine.index.is_summarized(occ_key("r0", 1_011)), "an output no request carries stays as it was"
    assert "c1" in summarised_ids(host)


def test_the_cut_follows_the_newest_compaction_as_the_branch_grows() -> None:
    branch: list[dict[str, Any]] = [
        {"type": "message", "id": "u1", "message": {"role": "user"}},
        {"type": "message", "id": "a1", "message": {"role": "assistant"}},
        {"type": "message", "id": "u2", "message": {"role": "user"}},
        {"type": "message", "id": "a2", "message": {"role": "assistant"}},
    ]
    cut = CompactionCut()
    assert cut.of(branch) == Cut()
    branch.append({"type": "compaction", "id": "k1", "firstKeptEntryId": "u2"})
    assert cut.of(branch) == Cut(2, 1)
    branch.append({"type": "compaction", "id": "k2", "firstKeptEntryId": "gone"})  # a line skipped on load
    assert cut.of(branch) == Cut(5, 2)
    assert CompactionCut().of(branch[:3]) == Cut()


async def test_the_frontier_gap_counts_only_what_the_context_still_holds() -> None:
    host, engine, drive = make({"prune_on": "on-demand", "min_batch_chars": 0})
    for n in range(4):
        await task(drive, n, 1_000 * (n + 1))
    every_output = engine.context_metrics().frontier_gap_tokens  # four outputs of one size, none flushed yet
    compact_before(host, "request 2")
    assert engine.context_metrics().frontier_gap_tokens * 2 == every_output, "c0 and c1 no request carries"
    await engine.flush("manual")
    assert engine.context_metrics().frontier_gap_tokens == 0
