"""condense's records written one entry per burst: a flush's records share one session entry (each record
an entry of its own paid Pi's envelope, a third of a pruned file's growth), summaries still come before
the records that stub their outputs, a reopened session reads them as it read one entry per record, and
no record is lost when a flush is cut short or the session cannot be written for a while."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.record_bursts import expanded
from condense.records import FLUSH_METRICS, FRONTIER, INDEX, RECORDS, SUMMARY
from tests.support.memory_host import SCENARIO_SETTINGS, Driver, MemoryHost, make
from tests.support.session_checks import index_records

BIG = "line of output\n" * 100  # over min_batch_chars
SETTINGS: dict[str, Any] = {"chain_compression": {"rolling_window": 0}, "superseded_reads": True}
WAITING: dict[str, Any] = {"chain_compression": {"rolling_window": 3}}


def _kinds(entries: Any) -> list[Any]:
    return [e.get("customType") for e in entries if e["type"] in ("custom", "custom_message")]


def _reopened(host: MemoryHost, config: dict[str, Any] | None = None) -> CondenseEngine:
    engine = CondenseEngine(host, CondenseConfig.model_validate({**SCENARIO_SETTINGS, **SETTINGS, **(config or {})}))
    engine.on_session_start()
    return engine


async def _two_batches(drive: Driver) -> None:
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG + "1")])
    await drive.tool_turn(120, [("c2", BIG + "2")])
    await drive.final(200)


async def _stale_read_then_a_batch(drive: Driver) -> None:
    """A read made stale by an edit (indexed before any summary), then an output to summarise."""
    await drive.prompt("fix r1.py", 100)
    await drive.tool_turn(110, [("r1", BIG + "r1")])
    await drive.edit(120, "r1.py")
    await drive.tool_turn(130, [("c1", BIG + "c1")])
    await drive.final(200)


async def test_a_flush_writes_its_records_in_one_entry_each_after_the_summary_before_it() -> None:
    host, engine, drive = make(SETTINGS)
    await _two_batches(drive)
    assert _kinds(host.entries) == [SUMMARY, SUMMARY, RECORDS]  # each summary stands for its outputs' record
    assert _kinds(expanded(host.entries)) == [SUMMARY, SUMMARY, FRONTIER, "context-prune-stats",
                                              "context-prune-chain", "context-prune-stats", FLUSH_METRICS]
    reopened = _reopened(host)
    assert reopened.render(host.messages()) == drive.render()
    assert [reopened.query([ref]) for ref in ("t1", "t2", "b1")] == [engine.query([ref]) for ref in ("t1", "t2", "b1")]


async def test_index_copies_writes_every_record_as_an_entry_of_its_own_as_pi_condense_reads_them() -> None:
    host, _, drive = make({**SETTINGS, "index_copies": True})
    await _two_batches(drive)
    assert _kinds(host.entries) == _kinds(expanded(host.entries))
    assert RECORDS not in _kinds(host.entries)


async def test_a_flush_cancelled_while_the_summariser_runs_still_writes_the_records_it_made() -> None:
    host, _engine, drive = make(SETTINGS)

    def cancelled(prompt: str) -> str:
        raise asyncio.CancelledError  # the flush's task cancelled at its await (pi-tui quitting mid-flush)

    host.answer = cancelled
    with pytest.raises(asyncio.CancelledError):
        await _stale_read_then_a_batch(drive)
    assert host.custom(SUMMARY) == []
    assert [record.get("supersededBy") for records in index_records(host.entries) for record in records] == ["edit"]
    assert _reopened(host).render(host.messages()) == drive.render()


async def test_records_a_failed_write_kept_are_written_with_the_next_and_none_is_lost(
        caplog: pytest.LogCaptureFixture) -> None:
    host, engine, drive = make({"superseded_reads": True})  # no chain compressed: the output waits for a summary
    host.fail_appends = True  # a full disk, for a host whose append raises
    await _stale_read_then_a_batch(drive)
    host.fail_appends = False
    assert _kinds(host.entries) == []
    assert "4 records: disk full; they are kept and written with the next write" in caplog.text
    live = drive.render()
    assert _reopened(host, WAITING).render(host.messages()) != live, "the stale read's record is held"
    await engine.flush("manual")
    assert _reopened(host, WAITING).render(host.messages()) == drive.render()
    assert len(host.custom(SUMMARY)) == 1 and len(host.custom(INDEX)) == 1, "the summary stands for its own"


async def test_records_of_one_type_in_a_row_share_one_item_of_the_entry() -> None:
    """A compression of many chains wrote `["chain", {...}]` for each: the type is said once per run."""
    host, engine, drive = make(WAITING)
    for n in range(3):
        await drive.prompt(f"task {n}", 1000 * (n + 1))
        await drive.tool_turn(1000 * (n + 1) + 10, [(f"c{n}", "tiny")])
        await drive.final(1000 * (n + 1) + 500)
    assert await engine.compact() == ["b1", "b2", "b3"]
    items = [e["data"] for e in host.entries if e.get("customType") == RECORDS][-1]
    assert [item[0] for item in items] == ["chain", "stats"] and len(items[0]) == 4, "three chains"
    reopened = _reopened(host, WAITING)
    assert [chain.block_id for chain in reopened.chains] == ["b1", "b2", "b3"]
    assert reopened.render(host.messages()) == drive.render()
