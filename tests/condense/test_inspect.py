"""The read-only inspection API: what condense did on a branch, as the screens show it."""

from __future__ import annotations

from pathlib import Path

from condense import CallMark, ChainMark, call_mark, chain_marks, prune_tree, unknown_refs
from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from tests.support.memory_host import SCENARIO_SETTINGS, Driver, MemoryHost, make

BIG = "x" * 1500  # over min_batch_chars
CHAIN_DATA = {"blockId": "b1", "startUserTimestamp": 100, "finalAssistantTimestamp": 200, "toolRefs": ["t1"],
              "droppedToolCallIds": ["c1"], "droppedOccurrenceKeys": ["c1@111"],
              "rangeSummaryText": "Read both files.", "compressedAt": 300}


async def _summarised() -> tuple[MemoryHost, CondenseEngine, Driver]:
    host, engine, drive = make()
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG), ("c2", "y" * 1500)])
    await drive.final(200)
    return host, engine, drive


async def test_the_tree_lists_each_summary_with_the_calls_it_covers() -> None:
    host, engine, _ = await _summarised()
    tree = prune_tree(engine, host.branch())
    [summary] = tree.summaries
    assert summary.turn == 0 and summary.refs == ("t1", "t2")
    assert summary.text == host.custom("context-prune-summary")[0]
    first = summary.calls[0]
    assert (first.key, first.ref, first.tool, dict(first.args), first.size) == ("c1@111", "t1", "read",
                                                                                  {"path": "c1.py"}, 1500)
    assert first.recorded and not (first.error or first.spilled or first.deduped or first.protected)
    assert tree.chains == () and tree.spilled == () and tree.aliases == ()


async def test_a_summarised_call_is_marked_with_its_ref_a_new_one_pending_and_a_skipped_one_raw() -> None:
    _host, engine, drive = await _summarised()
    assert call_mark(engine, "c2", 112) == CallMark("summarized", "t2")
    await drive.prompt("more", 250)
    await drive.tool_turn(300, [("c3", "fresh")])
    assert call_mark(engine, "c3", 301) == CallMark("pending"), "captured, not flushed yet"
    assert call_mark(engine, "c2", 999) == CallMark("raw"), "a later result reusing the id is not the pruned one"
    await drive.final(400)
    assert call_mark(engine, "c3", 301) == CallMark("raw"), "too small to summarise: the model reads it whole"


async def test_work_a_failed_flush_kept_is_pending_not_summarised() -> None:
    host, engine, drive = make(answer=lambda prompt: None)  # every summariser call fails
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    assert host.custom("context-prune-summary") == []
    assert call_mark(engine, "c1", 111) == CallMark("pending")
    engine.on_session_start()  # a reload finds it still to flush
    assert call_mark(engine, "c1", 111) == CallMark("pending")


async def test_with_pruning_off_no_output_is_marked() -> None:
    _host, engine, _ = await _summarised()
    engine.set_config(engine.config.model_copy(update={"enabled": False}))
    assert call_mark(engine, "c1", 111) == CallMark("off")


async def test_a_read_a_later_edit_made_stale_is_marked_stale_with_its_ref() -> None:
    _host, engine, drive = make({"superseded_reads": True})
    await drive.prompt("fix c1.py", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.tool_turn(120, [("c2", "y" * 1500)])
    await drive.edit(130, "c1.py")
    await drive.final(200)
    assert call_mark(engine, "c1", 111) == CallMark("superseded", "t1")
    assert call_mark(engine, "c2", 121).state == "summarized"


async def test_a_spilled_output_is_marked_spilled(tmp_path: Path) -> None:
    _host, engine, drive = make({"spill_threshold": 1000}, blobs=tmp_path)
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    assert call_mark(engine, "c1", 111).state == "spilled"


async def test_an_output_before_a_history_fold_is_marked_folded() -> None:
    _host, engine, drive = make({"fold_keep_turns": 1, "fold_min_chars": 100})
    for turn in range(3):
        await drive.prompt(f"task {turn}", 1000 * turn + 100)
        await drive.tool_turn(1000 * turn + 110, [(f"c{turn}", f"{turn}" * 1500)])
        await drive.final(1000 * turn + 200)
    [fold] = engine.history_fold.folds
    assert call_mark(engine, "c0", 111) == CallMark("folded", "t1", fold.ref)
    assert call_mark(engine, "c2", 2111).state == "summarized"


async def test_a_protected_output_condense_never_captured_is_marked_protected() -> None:
    _host, engine, drive = make({"protected_tools": ["bash"]})
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)], name="bash")
    assert call_mark(engine, "c1", 111, "bash", {"command": "ls"}) == CallMark("protected")


async def test_a_call_protected_after_it_was_summarised_is_marked_protected() -> None:
    host, _engine, _ = await _summarised()
    config = CondenseConfig.model_validate({**SCENARIO_SETTINGS, "protected_tools": ["read"]})
    engine = CondenseEngine(host, config)
    engine.on_session_start()
    assert call_mark(engine, "c1", 111).state == "protected"
    assert all(call.protected for call in prune_tree(engine, host.branch()).summaries[0].calls)


async def test_a_repeated_output_is_marked_deduped_with_its_originals_ref() -> None:
    host, engine, drive = await _summarised()
    await drive.prompt("again", 300)
    await drive.tool_turn(310, [("c9", BIG)])
    await drive.final(400)
    assert call_mark(engine, "c9", 311) == CallMark("deduped", "t1")
    [alias] = prune_tree(engine, host.branch()).aliases
    assert (alias.key, alias.same_as, alias.deduped) == ("c9@311", "t1", True)


async def test_a_compressed_chain_holds_its_calls_and_marks_them() -> None:
    host, engine, _ = await _summarised()
    host.append_entry("context-prune-chain", CHAIN_DATA)
    engine.on_session_start()
    [chain] = prune_tree(engine, host.branch()).chains
    assert (chain.block, chain.refs, chain.text) == ("b1", ("t1",), "Read both files.")
    assert [call.key for call in chain.calls] == ["c1@111"]
    assert chain_marks(host.branch()) == {100: ChainMark("b1", ("t1",))}
    assert call_mark(engine, "c1", 111) == CallMark("chain", "t1", "b1")
    assert call_mark(engine, "c2", 112) == CallMark("summarized", "t2")


async def test_unknown_refs_names_only_what_the_recovery_tool_cannot_find() -> None:
    _host, engine, _ = await _summarised()
    assert unknown_refs(engine, ["t1", "c2", "c1@111", "t7", "nope"]) == ["t7", "nope"]


async def test_refs_are_numbered_in_call_order_when_a_later_read_is_stubbed_as_stale_first() -> None:
    _host, engine, drive = make({"superseded_reads": True})
    await drive.prompt("run it, then fix c2.py", 100)
    await drive.tool_turn(110, [("c1", BIG)], name="bash")
    await drive.tool_turn(120, [("c2", "y" * 1500)])
    await drive.edit(130, "c2.py")
    await drive.final(200)
    assert call_mark(engine, "c1", 111) == CallMark("summarized", "t1")
    assert call_mark(engine, "c2", 121) == CallMark("superseded", "t2")
