"""Scenario of src/oversized-spill.integration.test.ts, through the engine's live capture."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.index import ToolCallIndexer
from condense.inspect import call_mark
from tests.support.memory_host import MemoryHost, assistant, call, user
from tests.support.typed import plain, present

BODY = "BIG\n" * 1000


async def test_spills_stubs_in_context_keeps_full_body_on_disk_survives_reconstruct(tmp_path: Path) -> None:
    blobs = tmp_path / "sid-blobs"
    host = MemoryHost(blobs=blobs)
    engine = CondenseEngine(host, CondenseConfig(spill_threshold=10, spill_preview_bytes=16))
    engine.on_session_start()
    host.add_message(user("fetch", 1))
    message = assistant(2, call("tc1", "fetch", url="http://x"))
    legacy_result: dict[str, Any] = {"role": "toolResult", "toolCallId": "tc1", "toolName": "fetch",
                     "content": [{"type": "text", "text": BODY}], "isError": False}  # no timestamp: legacy shape
    host.add_message(message)
    host.add_message(legacy_result)
    await engine.on_turn_end(message, [legacy_result], 0)  # type: ignore[list-item]  # legacy: no timestamp
    # (a) the sidecar holds the whole body
    assert (blobs / "tc1.txt").read_text() == BODY
    # (b) the index entry keeps path, preview and hash, not the body
    record = host.custom("context-prune-index")[0]["toolCalls"][0]
    assert record["spillPath"] == str(blobs / "tc1.txt") and record["resultText"] == ""
    assert record["resultPreview"] and record["contentHash"]
    # (c) the render stubs it with a pointer to the file (legacy bare-id rung: no resultTimestamp)
    rendered = plain(engine.render(host.messages()))
    text = rendered[2]["content"][0]["text"]
    assert str(blobs / "tc1.txt") in text and "Summarized in pruner summary" not in text
    assert len(json.dumps(rendered)) < len(BODY)
    # (d) a fresh index rebuilt from the entries finds the sidecar and dedups against the full body
    fresh = ToolCallIndexer()
    fresh.rebuild(host.branch())
    assert present(fresh.get_record("tc1")).spill_path == str(blobs / "tc1.txt")
    assert fresh.lookup_by_content("fetch", BODY) == "tc1"
    text, _ = engine.query(["tc1"])
    assert BODY.rstrip("\n") in text and "[Output truncated" not in text


async def test_a_spilled_output_has_a_t_ref_like_any_pruned_output_and_keeps_it(tmp_path: Path) -> None:
    host = MemoryHost(blobs=tmp_path / "blobs")
    engine = CondenseEngine(host, CondenseConfig(spill_threshold=10))
    engine.on_session_start()
    host.add_message(user("fetch", 1))
    message = assistant(2, call("tc1", "fetch", url="http://x"))
    output = {"role": "toolResult", "toolCallId": "tc1", "toolName": "fetch",
              "content": [{"type": "text", "text": BODY}], "isError": False, "timestamp": 3}
    host.add_message(message)
    host.add_message(output)
    await engine.on_turn_end(message, [output], 0)  # type: ignore[list-item]  # a result still
    assert "context_tree_query(t1)" in plain(engine.render(host.messages()))[2]["content"][0]["text"]
    assert call_mark(engine, "tc1", 3).ref == "t1"
    engine.rebuild()
    assert engine.index.get_short_ref("tc1@3") == "t1"
    text, _ = engine.query(["t1"])
    assert BODY.rstrip("\n") in text
