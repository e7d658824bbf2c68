"""Scenarios of src/reload-rearm.integration.test.ts: work left pending by a reload still flushes.

The reference boots its whole extension with a stubbed pi/ctx; here the real engine runs on an in-memory host.
Scenarios about context metrics and chain compression failures live with condense II's tests.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from condense.host import ContextUsage
from tests.support.memory_host import MemoryHost, assistant, call, make, result, stubbed, user

SETTINGS = {"prune_on": "agent-message", "batching_mode": "agent-message", "auto_budget_threshold": 0.5,
            "min_batch_chars": 1}


def branch_with_unflushed_result(host: MemoryHost) -> None:
    host.add_message(user("read it", 100))
    host.add_message(assistant(110, call("tc1")))
    host.add_message(result("tc1", "r" * 400, 120))
    host.usage = ContextUsage(600_000, 1_000_000)


async def test_rearms_the_turn_end_budget_gate_after_a_reload_so_recovered_pending_work_still_flushes() -> None:
    host, engine, drive = make(SETTINGS, answer=lambda prompt: "[[1:read]] summary")
    branch_with_unflushed_result(host)
    engine.on_session_start()
    assert engine.rearmed
    message = assistant(130, call("tc2"))
    await engine.on_turn_end(message, [], 1)
    assert len(host.prompts) == 1 and len(host.custom("context-prune-summary")) == 1
    assert stubbed(drive.render()) == ["tc1"]
    await engine.on_turn_end(message, [], 1)
    assert len(host.prompts) == 1, "the flag was cleared: no second summary"
    metrics = host.custom("context-prune-flush-metrics")
    assert len(metrics) == 1
    assert {k: metrics[0][k] for k in ("trigger", "outcome", "capturedBatches", "processedBatches")} == {
        "trigger": "rearmed", "outcome": "summarized", "capturedBatches": 1, "processedBatches": 1}
    final = assistant(140, text="done")
    host.add_message(final)
    await engine.on_message_end(final)
    assert host.custom("context-prune-flush-metrics") == metrics, "an empty flush writes no record"


async def test_agent_end_says_earlier_output_awaits_a_flush_when_rearmed_but_the_in_memory_queue_is_empty() -> None:
    host, engine, _ = make(SETTINGS)
    branch_with_unflushed_result(host)
    engine.on_session_start()
    engine.on_agent_end()
    assert host.status["condense"] == "│ prune: ON · earlier tool output not summarized yet (next flush)"


async def test_reports_a_rescan_failure_and_leaves_rearmed_pending_false_without_failing_session_start(
        caplog: pytest.LogCaptureFixture) -> None:
    host, engine, _ = make(SETTINGS)
    branch_with_unflushed_result(host)

    def broken_branch() -> list[dict[str, Any]]:
        raise RuntimeError("branch unreadable")

    host.branch = broken_branch  # type: ignore[method-assign]
    engine.index.rebuild = lambda *branch: None  # type: ignore[method-assign]
    engine.stats.reconstruct = lambda branch: None  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR, logger="condense"):
        engine.rearmed = engine._probe_rearm()
    assert not engine.rearmed
    assert "reload rearm probe" in caplog.text
    await engine.on_turn_end(assistant(130, call("tc2")), [], 1)
    assert host.prompts == []


async def test_non_rearmed_turn_end_with_an_all_excluded_batch_does_not_evaluate_the_budget_gate() -> None:
    host, _engine, drive = make({**SETTINGS, "protected_tools": ["secret"]})
    await drive.prompt("go", 100)
    host.usage = ContextUsage(10_000, 1_000_000)
    await drive.tool_turn(110, [("c1", "x" * 50)])
    host.usage = ContextUsage(900_000, 1_000_000)
    await drive.tool_turn(120, [("c2", "y" * 50)], name="secret")
    assert host.custom("context-prune-flush-metrics") == [], "the gate only runs when this turn pushed a batch"


async def test_an_empty_flush_writes_no_flush_metrics_entry() -> None:
    host, engine, _ = make(SETTINGS)
    result_ = await engine.flush("manual")
    assert result_.outcome == "empty"
    assert host.custom("context-prune-flush-metrics") == []


async def test_still_writes_the_flush_metrics_entry_when_chain_compression_fails() -> None:
    # pi-condense's format (`index_copies`) writes each record as it comes, so one chain's write can fail
    # alone; the compact format writes a flush's records together (test_record_bursts.py)
    host, engine, drive = make({**SETTINGS, "auto_budget_threshold": None, "budget_turn_delta": None,
                                "index_copies": True})
    real_append = host.append_entry

    def failing(custom_type: str, data: object) -> None:
        if custom_type == "context-prune-chain":
            raise OSError("disk full")
        real_append(custom_type, data)

    host.append_entry = failing  # type: ignore[method-assign]
    engine.flusher.host = host
    for n in range(4):
        await drive.prompt(f"task {n}", 1000 * (n + 1))
        await drive.tool_turn(1000 * (n + 1) + 10, [(f"c{n}", f"output {n} " + "x" * 600)])
        await drive.final(1000 * (n + 1) + 100)
    metrics = host.custom("context-prune-flush-metrics")[-1]
    assert metrics["trigger"] == "message-end" and metrics["outcome"] == "summarized"
    assert host.custom("context-prune-chain") == []
