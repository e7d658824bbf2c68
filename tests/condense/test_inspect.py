"""The read-only inspection API: what condense did on a branch, as the screens show it."""

from __future__ import annotations

from condense import CallMark, ChainMark, call_mark, chain_marks, prune_tree, unknown_refs
from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from tests.support.memory_host import SCENARIO_SETTINGS, Driver, MemoryHost, make

BIG = "x" * 1500  # over min_batch_chars
CHAIN_DATA = {"blockId": "b1", "startUserTimestamp": 100, "finalAssistantTimestamp": 200, "toolRefs": ["t1"],
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


async def test_a_stubbed_call_is_marked_with_its_ref_and_a_new_one_is_raw() -> None:
    _host, engine, drive = await _summarised()
    assert call_mark(engine, "c2", 112) == CallMark("stubbed", "t2")
    await drive.tool_turn(300, [("c3", "fresh")])
    assert call_mark(engine, "c3", 301) == CallMark("raw")
    assert call_mark(engine, "c2", 999) == CallMark("raw"), "a later result reusing the id is not the pruned one"


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
    assert call_mark(engine, "c9", 311) == CallMark("stubbed", "t1", deduped=True)
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
    assert call_mark(engine, "c1", 111).chain == "b1" and call_mark(engine, "c2", 112).chain == ""


async def test_unknown_refs_names_only_what_the_recovery_tool_cannot_find() -> None:
    _host, engine, _ = await _summarised()
    assert unknown_refs(engine, ["t1", "c2", "c1@111", "t7", "nope"]) == ["t7", "nope"]
