"""The flush pipeline through the engine: what is persisted, in which order, and what the model then sees."""

from __future__ import annotations

from typing import Any

import pytest

from condense.commands import run_command
from condense.host import ContextUsage
from condense.record_bursts import expanded
from tests.support.memory_host import make, stubbed

BIG = "x" * 1500  # over min_batch_chars


async def test_final_reply_flushes_summary_then_index_and_stubs_render() -> None:
    host, engine, drive = make()
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    kinds = [e.get("customType") for e in expanded(host.entries) if e["type"] != "message"]
    assert kinds[0] == "context-prune-summary" and "context-prune-index" not in kinds, "the summary is its index"
    assert "context-prune-frontier" in kinds and "context-prune-flush-metrics" in kinds
    rendered = drive.render()
    assert stubbed(rendered) == ["c1"]
    assert "`t1`" in rendered[2]["content"][0]["text"]
    summary = host.custom("context-prune-summary")[0]
    assert "`t1`" in summary and "**Summarized tool refs**: `t1`" in summary
    assert engine.status().startswith("prune: ON · ")


async def test_no_op_render_returns_the_same_list() -> None:
    host, engine, drive = make()
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", "small")])
    messages = host.messages()
    assert engine.render(messages) is messages


async def test_trivial_batch_is_skipped_and_frontier_still_advances() -> None:
    host, engine, drive = make()
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", "tiny output")])
    await drive.final(200)
    assert host.custom("context-prune-summary") == []
    assert host.custom("context-prune-index") == []
    assert host.custom("context-prune-frontier")[-1]["outcome"] == "skipped-trivial"
    assert host.prompts == [], "no model call for a trivial batch"
    assert host.notices == [], "routine: no toast"
    await run_command(engine, "status")
    assert ("last flush:   1 batch too small for a summary of their own (a compressed chain may still hold them)"
            in host.notices[-1][1])
    metrics = len(host.custom("context-prune-flush-metrics"))
    await drive.prompt("again", 300)
    await drive.final(400)
    assert len(host.custom("context-prune-flush-metrics")) == metrics, "not reconsidered: an empty flush"


async def test_failed_summary_leaves_work_pending_and_writes_no_index() -> None:
    host, engine, drive = make(answer=lambda prompt: None)
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    assert host.custom("context-prune-index") == [] and host.custom("context-prune-summary") == []
    assert stubbed(drive.render()) == []
    assert any(level == "warning" and "pending" in text for level, text in host.notices)
    host.answer = lambda prompt: "[[1:read]] fine now"
    await engine.flush("manual")
    assert stubbed(drive.render()) == ["c1"]


async def test_a_failed_summary_write_never_leaves_stubs_behind() -> None:
    host, engine, drive = make()
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    host.fail_appends = True
    await drive.final(200)
    host.fail_appends = False
    assert stubbed(drive.render()) == []
    assert len(engine.index) == 0
    assert engine.pending, "the batch waits for the next flush"


async def test_oversized_summary_is_skipped() -> None:
    host, _engine, drive = make(answer=lambda prompt: "[[1:read]] " + "y" * 5000)
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    assert host.custom("context-prune-summary") == []
    assert host.custom("context-prune-frontier")[-1]["outcome"] == "skipped-oversized"
    assert stubbed(drive.render()) == []


async def test_identical_output_is_aliased_without_a_model_call() -> None:
    host, engine, drive = make()
    await drive.prompt("one", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    calls = len(host.prompts)
    await drive.prompt("two", 300)
    await drive.tool_turn(310, [("c2", BIG + "\n")])
    await drive.final(400)
    assert len(host.prompts) == calls
    assert host.custom("context-prune-dedup-alias")[0]["originalToolCallId"] == "c1"
    rendered = drive.render()
    assert stubbed(rendered) == ["c1", "c2"]
    text, _ = engine.query(["c2"])
    assert BIG in text


async def test_each_batch_gets_its_own_summary_and_refs() -> None:
    host, _engine, drive = make(answer=lambda prompt: "[[1:read]] one\n[[2:read]] two")
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG), ("c2", BIG + "b")])
    await drive.tool_turn(120, [("c3", BIG + "c")])
    await drive.final(200)
    summaries = host.custom("context-prune-summary")
    assert len(summaries) == 2
    assert "`t1`" in summaries[0] and "`t2`" in summaries[0] and "`t3`" in summaries[1]


async def test_on_demand_mode_waits_for_pruner_now() -> None:
    host, engine, drive = make({"prune_on": "on-demand"})
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    assert host.custom("context-prune-summary") == []
    assert engine.status() == "prune: ON"
    result = await engine.flush("manual", sequential=True)
    assert result.outcome == "summarized"


async def test_disabled_engine_renders_nothing_and_captures_nothing() -> None:
    host, engine, drive = make({"enabled": False})
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    assert host.custom("context-prune-summary") == []
    messages = host.messages()
    assert engine.render(messages) is messages
    assert engine.status() == "prune: OFF"


async def test_budget_trigger_flushes_mid_run_but_never_the_outputs_the_model_has_not_read() -> None:
    host, _engine, drive = make()
    await drive.prompt("go", 100)
    host.usage = ContextUsage(150_000, 200_000)  # 75% of the window: over 0.735
    await drive.tool_turn(110, [("c1", BIG)])
    assert host.custom("context-prune-flush-metrics") == [], "c1 is the newest turn: the model has not read it"
    assert stubbed(drive.render()) == []
    await drive.tool_turn(120, [("c2", BIG + "2")])
    assert host.custom("context-prune-flush-metrics")[-1]["trigger"] == "budget"
    assert stubbed(drive.render()) == ["c1"], "the model read c1 in the request that made turn 2; c2 waits"
    await drive.final(200)
    assert stubbed(drive.render()) == ["c1", "c2"], "the final reply's flush takes what the budget flush left"


async def test_keep_recent_zero_lets_the_budget_trigger_flush_the_newest_turn_too() -> None:
    host, _engine, drive = make({"keep_recent": 0})
    await drive.prompt("go", 100)
    host.usage = ContextUsage(150_000, 200_000)
    await drive.tool_turn(110, [("c1", BIG)])
    assert host.custom("context-prune-flush-metrics")[-1]["trigger"] == "budget"
    assert stubbed(drive.render()) == ["c1"]


async def test_delta_trigger_flushes_on_a_jump_leaving_the_newest_turn() -> None:
    host, _engine, drive = make({"auto_budget_threshold": None})
    await drive.prompt("go", 100)
    host.usage = ContextUsage(10_000, 200_000)
    await drive.tool_turn(110, [("c1", BIG)])
    assert host.custom("context-prune-flush-metrics") == []
    host.usage = ContextUsage(20_000, 200_000)  # +5% in one turn: over the 0.04 delta
    await drive.tool_turn(120, [("c2", BIG + "2")])
    assert host.custom("context-prune-flush-metrics")[-1]["trigger"] == "delta"
    assert stubbed(drive.render()) == ["c1"]


async def test_errored_and_aborted_final_replies_do_not_flush() -> None:
    host, engine, drive = make()
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    aborted: dict[str, Any] = {"role": "assistant", "content": [], "stopReason": "aborted", "timestamp": 150}
    await engine.on_message_end(aborted)  # type: ignore[arg-type]  # only the fields the engine reads
    assert host.custom("context-prune-flush-metrics") == []


async def test_protected_tools_are_never_captured() -> None:
    host, _engine, drive = make({"protected_tools": ["read"]})
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    assert host.custom("context-prune-summary") == []
    assert stubbed(drive.render()) == []


@pytest.mark.parametrize("copies", [True, False], ids=["pi-condense's records", "compact"])
async def test_a_crash_between_summary_and_index_is_repaired_on_reload_without_a_second_summary(copies: bool) -> None:
    """Compact, the summary is its outputs' index record: there is nothing to repair."""
    host, engine, drive = make({"index_copies": copies})
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    # simulate the crash: drop everything written after the summary
    at = next(i for i, e in enumerate(host.entries) if e.get("customType") == "context-prune-summary")
    del host.entries[at + 1:]
    engine.on_session_start()
    assert bool(host.custom("context-prune-index")) == copies, "the promised index records are rebuilt and persisted"
    assert stubbed(drive.render()) == ["c1"]
    calls = len(host.prompts)
    await engine.flush("manual")
    assert len(host.prompts) == calls and len(host.custom("context-prune-summary")) == 1
