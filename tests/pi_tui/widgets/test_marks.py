"""The marks on tool cards say what the model reads of each output, not "summarized" for everything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_tui.widgets.tool_card import ToolCard

SIZE = (100, 44)
SUMMARY = ("- `t1` bash python3 -m unittest: failed; one test expects 114.00 tax and gets 120.00\n\n---\n"
           "**Summarized tool refs**: `t1`\nUse `context_tree_query` with these refs to retrieve the original"
           " full outputs.")


def _custom(kind: str, custom_type: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "customType": custom_type, **fields}


def marked_session(path: Path) -> Path:
    """The fixed session (at `path`, unpruned) after a flush that summarised the test run (t1), stubbed the
    read as stale (the edit after it changed the file: t2), and stopped before the edit's turn, which is
    still pending."""
    refs = [{"shortId": "t1", "toolCallId": "call_1", "resultTimestamp": 3_000}]
    record = {"toolCallId": "call_1", "toolName": "bash", "isError": True, "turnIndex": 0, "timestamp": 2_000,
              "resultTimestamp": 3_000}
    stale = {"toolCallId": "call_2", "toolName": "read", "isError": False, "turnIndex": 0, "timestamp": 3_001,
             "resultTimestamp": 3_001, "supersededBy": "edit"}
    frontier = {"lastAttemptedToolCallId": "call_2", "lastAttemptedToolName": "read", "lastAttemptedTurnIndex": 0,
                "lastAttemptedTimestamp": 2_000, "outcome": "summarized"}
    added = [
        _custom("custom_message", "context-prune-summary", content=SUMMARY, display=False,
                details={"toolCallRefs": refs, "toolNames": ["bash"], "turnIndex": 0, "timestamp": 2_000}),
        _custom("custom", "context-prune-index", data={"toolCalls": [record]}),
        _custom("custom", "context-prune-index", data={"toolCalls": [stale], "backfilled": True, "refs": [
            {"shortId": "t2", "toolCallId": "call_2", "resultTimestamp": 3_001}]}),
        _custom("custom", "context-prune-frontier", data=frontier),
    ]
    parent = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])["id"]
    with path.open("a", encoding="utf-8") as handle:
        for number, entry in enumerate(added, start=100):
            entry.update(id=f"{number:08x}", parentId=parent, timestamp="2026-01-02T03:04:05.000Z")
            parent = entry["id"]
            handle.write(json.dumps(entry) + "\n")
    return path


async def test_each_card_says_what_the_model_reads_of_its_output(make_app, fixed_session, wait) -> None:
    app = make_app(session=marked_session(fixed_session(pruned=False)), model=None)
    async with app.run_test(size=SIZE) as pilot:
        await wait(pilot)
        marks = [card.mark for card in app.main.transcript.query(ToolCard)]
        assert marks == ["summarized t1", "stale read t2", "pending"]


def test_marks_on_screen(make_app, fixed_session, wait, snap_compare) -> None:
    app = make_app(session=marked_session(fixed_session(pruned=False)), model=None)

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await wait(pilot)
        app.clear_notifications()  # notices time out: a loaded machine may or may not still show them

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
