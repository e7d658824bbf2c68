"""Compact records: what condense writes leaves to the session what the session tells again, a reopened
session renders the same bytes and answers every output, a file written in pi-condense's full format (or
by earlier pi-tui) reads the same, and `index_copies` keeps writing what pi-condense reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.fold import FOLD
from condense.record_bursts import expanded
from condense.records import CHAIN, INDEX, RECORDS
from tests.support.memory_host import SCENARIO_SETTINGS, Driver, MemoryHost, assistant, make

SMALL = "x = 1\n" * 40  # below min_batch_chars: no summary covers it, its chain gets a deterministic body
WINDOW = {"chain_compression": {"rolling_window": 0}}
BIG = "def total(cart):\n    return sum(line.price for line in cart)\n" * 60


async def _pruned(config: dict[str, Any]) -> tuple[MemoryHost, CondenseEngine, Driver]:
    """Two closed chains (one summarised, one too small for a summary) compressed, then a third open."""
    host, engine, drive = make({**WINDOW, **config})
    await drive.prompt("read the cart", 100)
    await drive.tool_turn(110, [("c1", BIG), ("c2", BIG.upper())])
    await drive.final(200)
    await drive.prompt("and the settings", 300)
    await drive.tool_turn(310, [("c3", SMALL)], name="bash")
    await drive.final(400)
    assert len(host.custom(CHAIN)) == 2
    return host, engine, drive


def _reopened(host: MemoryHost) -> CondenseEngine:
    """The session opened again with the default format (compact records)."""
    engine = CondenseEngine(host, CondenseConfig.model_validate({**SCENARIO_SETTINGS, **WINDOW}))
    engine.on_session_start()
    return engine


async def test_compact_entries_leave_the_dropped_outputs_and_a_deterministic_body_to_the_branch() -> None:
    host, engine, _ = await _pruned({})
    for chain in host.custom(CHAIN):
        assert "droppedToolCallIds" not in chain and "droppedOccurrenceKeys" not in chain
        assert "compressedAt" not in chain, "the time of the newest message before it"
    assert [c["toolRefs"] for c in host.custom(CHAIN)] == ["t1-t2", "t3"]
    assert [c.compressed_at for c in _reopened(host).chains] == [c.compressed_at for c in engine.chains] == [200, 400]
    assert [c.get("bodyNames") for c in host.custom(CHAIN)] == [None, engine.config.summary_names]
    assert "rangeSummaryText" not in host.custom(CHAIN)[1] and "bodySource" not in host.custom(CHAIN)[1]
    assert [c.body_source for c in _reopened(host).chains] == [None, "deterministic"], "said by its names"
    for data in host.custom(INDEX):
        for record in data["toolCalls"]:
            assert isinstance(record, str) or not {"resultText", "args", "toolName", "isError"} & set(record)


async def test_a_reopened_compact_session_renders_the_same_bytes_and_answers_every_output() -> None:
    host, engine, drive = await _pruned({})
    before = drive.render()
    reopened = _reopened(host)
    assert reopened.render(host.messages()) == before
    assert [c.range_summary_text for c in reopened.chains] == [c.range_summary_text for c in engine.chains]
    assert [c.dropped_occurrence_keys for c in reopened.chains] == [c.dropped_occurrence_keys for c in engine.chains]
    for ref, output in (("t1", BIG), ("t2", BIG.upper()), ("t3", SMALL)):
        assert reopened.query([ref])[0].endswith("\n\n" + output)


async def test_index_copies_writes_what_pi_condense_reads() -> None:
    host, _, _ = await _pruned({"index_copies": True})
    for chain in host.custom(CHAIN):
        assert chain["droppedToolCallIds"] and chain["droppedOccurrenceKeys"] and chain["toolRefs"]
    assert host.custom(CHAIN)[1]["rangeSummaryText"].startswith("Deterministic chain compression")
    records = [record for data in host.custom(INDEX) for record in data["toolCalls"]]
    assert {r["resultText"] for r in records} == {BIG, BIG.upper(), SMALL}
    assert all({"toolName", "isError", "turnIndex", "timestamp", "args"} <= set(r) for r in records)
    assert all(isinstance(ref, dict) and ref["toolCallId"] for data in host.custom(INDEX)
               for ref in data.get("refs", []))


async def test_a_file_in_the_full_format_reopens_as_it_was_written() -> None:
    """pi-condense's entries, and earlier pi-tui's (index records without the output's text)."""
    host, _, drive = await _pruned({"index_copies": True})
    before = drive.render()
    assert _reopened(host).render(host.messages()) == before
    for data in host.custom(INDEX):  # what pi-tui wrote before compact records: a reference, every field
        for record in data["toolCalls"]:
            del record["resultText"], record["args"]
    reopened = _reopened(host)
    assert reopened.render(host.messages()) == before
    for ref, output in (("t1", BIG), ("t2", BIG.upper()), ("t3", SMALL)):
        assert reopened.query([ref])[0].endswith("\n\n" + output)


async def test_a_fold_leaves_its_block_to_its_requests_and_reads_back_the_same() -> None:
    host, engine, drive = make({"fold_keep_turns": 1, "fold_min_chars": 1})
    for n in range(4):
        await drive.prompt(f"request {n}", 1000 * (n + 1))
        await drive.tool_turn(1000 * (n + 1) + 10, [(f"r{n}", BIG + str(n))])
        await drive.final(1000 * (n + 1) + 500)
    assert host.custom(FOLD) and all("text" not in fold for fold in host.custom(FOLD))
    assert [f.text for f in _reopened(host).history_fold.folds] == [f.text for f in engine.history_fold.folds]
    assert _reopened(host).render(host.messages()) == drive.render()


async def test_a_summary_and_a_chain_stand_for_the_index_records_of_their_outputs() -> None:
    """The summary names its outputs by call id and result time, the chain its range: an index record
    naming them again (by their entries' ids) was a sixth of what `/pruner now` added to pi-large."""
    host, engine, drive = await _pruned({})
    assert host.custom(INDEX) == []
    assert [c.get("backfilled") for c in host.custom(CHAIN)] == [None, "t3"], "the output no summary covered"
    reopened = _reopened(host)
    assert reopened.render(host.messages()) == drive.render()
    assert [r.key for r in reopened.index.records()] == [r.key for r in engine.index.records()]
    assert reopened.index.lookup_by_content("read", BIG) == "c1@111", "a summarised output stays the original"


async def test_a_file_with_an_entry_per_record_reopens_as_it_was_written() -> None:
    """pi-tui's compact records before bursts: one entry each, a chain's refs listed, its time said."""
    host, engine, drive = await _pruned({})
    before = drive.render()
    entries = [dict(entry) for entry in expanded(host.entries)]
    for number, entry in enumerate(entries):  # every record an entry of its own, with an id of its own
        if entry.get("type") == "custom":
            entry["id"] = f"record{number}"
        entry["parentId"] = entries[number - 1]["id"] if number else None
    for data, chain in zip([e["data"] for e in entries if e.get("customType") == CHAIN], engine.chains, strict=True):
        data.update(toolRefs=list(chain.tool_refs), compressedAt=chain.compressed_at)
    host.entries[:] = entries
    assert RECORDS not in [e.get("customType") for e in host.entries]
    reopened = _reopened(host)
    assert reopened.render(host.messages()) == before
    for ref, output in (("t1", BIG), ("t2", BIG.upper()), ("t3", SMALL)):
        assert reopened.query([ref])[0].endswith("\n\n" + output)


async def test_a_file_in_the_previous_compact_format_reopens_as_it_was_written() -> None:
    """pi-tui's first compact records named their output by call id and result time."""
    host, _, drive = await _pruned({})
    before = drive.render()
    results = {entry["id"]: entry["message"] for entry in host.branch()
               if entry.get("type") == "message" and entry["message"]["role"] == "toolResult"}
    for data in host.custom(INDEX):
        turn = {"turnIndex": data.pop("turnIndex")} if "turnIndex" in data else {}
        data["toolCalls"] = [{"toolCallId": results[r]["toolCallId"], **turn,
                              "resultTimestamp": results[r]["timestamp"]} for r in data["toolCalls"]]
    reopened = _reopened(host)
    assert reopened.render(host.messages()) == before
    for ref, output in (("t1", BIG), ("t2", BIG.upper()), ("t3", SMALL)):
        assert reopened.query([ref])[0].endswith("\n\n" + output)


async def test_a_chain_compressed_before_its_final_reply_is_on_the_branch_keeps_its_index_record() -> None:
    """A host that persists the reply after telling extensions of it: a rebuild could not find the chain's
    outputs from the chain record at that point, so their index record is written as before."""
    host, engine, drive = make(WINDOW)
    await drive.prompt("and the settings", 300)
    await drive.tool_turn(310, [("c3", SMALL)], name="bash")
    reply = assistant(400, text="done")
    await engine.on_message_end(reply)
    host.add_message(reply)
    [chain] = host.custom(CHAIN)
    assert "backfilled" not in chain
    assert [data.get("refs") for data in host.custom(INDEX)] == ["t1"]
    reopened = _reopened(host)
    assert reopened.render(host.messages()) == engine.render(host.messages())
    assert reopened.query(["t1"]) == engine.query(["t1"])


async def test_a_file_pruned_before_summaries_and_chains_stood_for_their_records_reopens_the_same() -> None:
    """Written by pi-tui at ff17038 (a summary's and a chain's outputs each with an index record, a chain's
    final time and block id said, `/tree` carrying copies): it renders and answers as it did then."""
    written = json.loads((Path(__file__).parent / "data" / "pruned_by_ff17038.json").read_text())
    host = MemoryHost()
    host.entries[:] = written["entries"]
    engine = CondenseEngine(host, CondenseConfig.model_validate(
        {**SCENARIO_SETTINGS, **WINDOW, "superseded_reads": True}))
    engine.on_session_start()
    assert engine.render(host.messages()) == written["render"]
    assert {ref: engine.query([ref])[0] for ref in written["answers"]} == written["answers"]
