"""Opt-in `min_flush_chars`: a final reply flushes only once enough tool output is pending, because
under Anthropic's cache rule every flush re-writes the cached prompt from the first stub on."""

from __future__ import annotations

from condense.host import ContextUsage
from tests.support.memory_host import make, stubbed

BIG = "x" * 1500


async def test_a_final_reply_waits_until_enough_output_is_pending_then_flushes_all_of_it() -> None:
    _, _, drive = make({"min_flush_chars": 4000})
    await drive.prompt("first", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    assert stubbed(drive.render()) == [], "1,500 characters pending: not worth a rewrite yet"
    await drive.prompt("second", 300)
    await drive.tool_turn(310, [("c2", BIG), ("c3", BIG)])
    await drive.final(400)
    assert stubbed(drive.render()) == ["c1", "c2", "c3"]


async def test_the_budget_trigger_still_flushes_below_the_minimum() -> None:
    host, _, drive = make({"min_flush_chars": 1_000_000})
    await drive.prompt("go", 100)
    host.usage = ContextUsage(190_000, 200_000)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.tool_turn(120, [("c2", BIG + "2")])
    assert stubbed(drive.render()) == ["c1"], "c2, the newest turn, stays for the model to read"


async def test_off_by_default_every_final_reply_flushes() -> None:
    _, _, drive = make()
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    assert stubbed(drive.render()) == ["c1"]
