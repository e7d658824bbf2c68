"""Superseded reads: a read made stale by a later edit, write or covering re-read is stubbed at the next flush,
with no summary of its own, and comes back byte for byte through context_tree_query."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest

from condense.capture import TurnScan
from condense.config import CondenseConfig
from condense.messages import ToolCall
from condense.occurrence import message_key
from condense.protect import is_protected
from condense.supersede import SupersededReads, shown_lines, superseded_stub
from pi_tui.session.store import Session
from tests.conftest import corpus_path
from tests.support.memory_host import Driver, assistant, make, result
from tests.support.session_checks import index_records

OLD = "def f():\n    return 1  # the original body\n" * 40  # 1,680 characters
Call = tuple[str, str, dict[str, Any], str, bool]  # id, tool, arguments, output, is error


def ok(call_id: str, tool: str, output: str = "done", **args: Any) -> Call:
    return call_id, tool, args, output, False


def failed(call_id: str, tool: str, output: str = "Could not find the text", **args: Any) -> Call:
    return call_id, tool, args, output, True


async def turn(drive: Driver, ts: int, *calls: Call) -> None:
    """One assistant turn with these calls and their results, as the agent loop delivers it."""
    message = assistant(ts, *(ToolCall(type="toolCall", id=cid, name=tool, arguments=args)
                              for cid, tool, args, _out, _err in calls))
    drive.host.add_message(message)
    results = [result(cid, out, ts + 1 + i, tool, err) for i, (cid, tool, _args, out, err) in enumerate(calls)]
    for item in results:
        drive.host.add_message(item)
    await drive.engine.on_turn_end(message, results, drive.turn)
    drive.turn += 1


async def session(*turns: tuple[Call, ...], config: dict[str, Any] | None = None, cwd: str | None = None) -> Driver:
    """One user message, these tool turns, a final reply (which flushes), in a session started in `cwd`."""
    _host, _engine, drive = make({"superseded_reads": True, **(config or {})}, cwd=cwd)
    await drive.prompt("fix f", 100)
    for position, calls in enumerate(turns):
        await turn(drive, 200 + 100 * position, *calls)
    await drive.final(200 + 100 * len(turns))
    return drive


def result_text(drive: Driver, call_id: str) -> str:
    [message] = [m for m in drive.render() if m.get("role") == "toolResult" and m["toolCallId"] == call_id]
    return str(message["content"][0]["text"])


def superseded(drive: Driver) -> list[str]:
    return [m["toolCallId"] for m in drive.render() if m.get("role") == "toolResult"
            and m["content"][0]["text"].startswith("[Superseded read")]


async def test_a_read_the_model_then_edited_is_stubbed_without_a_summary_and_recovers_byte_for_byte() -> None:
    drive = await session((ok("r1", "read", OLD, path="src/app.py"),),
                          (ok("e1", "edit", path="src/app.py", oldText="1", newText="2"),))
    stub = result_text(drive, "r1")
    assert stub == ("[Superseded read of `src/app.py`: the file was edited later. Original output: ref `t1`."
                    " Use context_tree_query to retrieve it.]")
    assert not any(OLD in prompt for prompt in drive.host.prompts), "no summary was asked for the stale read"
    text, details = drive.engine.query(["t1"])
    assert details["results"]["t1"]["resultText"] == OLD
    assert text.endswith(OLD)


async def test_a_write_supersedes_and_a_restart_keeps_the_stub() -> None:
    drive = await session((ok("r1", "read", OLD, path="./src/../src/app.py"),),
                          (ok("w1", "write", path="@src/app.py", content="new"),))
    before = drive.render()
    assert superseded(drive) == ["r1"] and "was rewritten later" in result_text(drive, "r1")
    drive.engine.on_session_start()  # everything rebuilt from the session entries
    assert json.dumps(drive.render()) == json.dumps(before)


async def test_a_later_whole_read_supersedes_and_a_partial_one_does_not() -> None:
    drive = await session((ok("r1", "read", OLD, path="a.py", offset=10, limit=20),
                           ok("r2", "read", OLD + "[60 more lines in file. Use offset=41 to continue.]",
                              path="b.py")),
                          (ok("r3", "read", OLD, path="a.py"),
                           ok("r4", "read", OLD, path="b.py", offset=5)))
    assert superseded(drive) == ["r1"], "b.py's second read starts at line 5: lines 1-4 are only in the first"
    assert "was read again later" in result_text(drive, "r1")


def test_shown_lines_follow_offset_and_the_continuation_notice() -> None:
    from condense.records import ToolCallRecord

    def shown(args: dict[str, Any], text: str) -> tuple[int, float]:
        return shown_lines(ToolCallRecord("r", "read", args, text, False, 0, 0))

    assert shown({"path": "a"}, "x") == (1, float("inf"))
    assert shown({"path": "a", "offset": 10, "limit": 5}, "x\n\n[3 more lines in file. Use offset=15 to continue.]") \
        == (10, 14)
    assert shown({"path": "a"}, "x\n\n[Showing lines 1-1603 of 2377 (50.0KB limit). Use offset=1604 to continue]") \
        == (1, 1603)


async def test_failed_changes_errors_same_turn_calls_and_other_files_supersede_nothing() -> None:
    drive = await session((ok("r1", "read", OLD, path="a.py"), ok("e0", "edit", path="a.py"),
                           failed("r2", "read", path="b.py"), ok("r3", "read", OLD, path="c.py")),
                          (failed("e1", "edit", path="a.py"), ok("e2", "edit", path="b.py"),
                           ok("w1", "write", path="d.py"), ok("r4", "read", OLD, path="/abs/c.py")))
    assert superseded(drive) == []


async def test_paths_are_taken_relative_to_the_sessions_directory() -> None:
    drive = await session((ok("r1", "read", OLD, path="src/app.py"), ok("r2", "read", OLD, path="~/notes.md")),
                          (ok("e1", "edit", path="/proj/src/app.py"), ok("e2", "edit", path="/proj/~/notes.md")),
                          cwd="/proj")
    assert superseded(drive) == ["r1"], "`~` is the home folder, not a folder of the session's directory"


async def test_a_read_of_a_protected_path_is_never_superseded() -> None:
    drive = await session((ok("r1", "read", OLD, path="skills/deploy/SKILL.md"),),
                          (ok("e1", "edit", path="skills/deploy/SKILL.md"),))
    assert superseded(drive) == [] and result_text(drive, "r1") == OLD


async def test_turned_off_the_read_is_summarised_as_before() -> None:
    drive = await session((ok("r1", "read", OLD, path="a.py"),), (ok("e1", "edit", path="a.py"),),
                          config={"superseded_reads": False})
    assert superseded(drive) == [] and "Summarized in pruner summary" in result_text(drive, "r1")


async def test_stubbed_only_at_a_flush_and_deterministically() -> None:
    _host, engine, drive = make({"superseded_reads": True})
    await drive.prompt("fix f", 100)
    await turn(drive, 200, ok("r1", "read", OLD, path="a.py"))
    await turn(drive, 300, ok("e1", "edit", path="a.py"))
    assert superseded(drive) == [], "between flushes the cached prompt is left alone"
    await drive.final(400)
    first, second = drive.render(), drive.render()
    assert superseded(drive) == ["r1"] and json.dumps(first) == json.dumps(second)
    [records] = [records for records in index_records(drive.host.entries) if records[0]["toolCallId"] == "r1"]
    assert records[0]["supersededBy"] == "edit"
    await engine.flush("manual")
    assert [records[0]["toolCallId"] for records in index_records(drive.host.entries)].count("r1") == 1



@pytest.mark.parametrize("name", ["pi-large-session.jsonl", "pi-before-compaction.jsonl", "pi-compact-hooks.jsonl",
                                  "pi-compaction-check.jsonl"])
def test_a_growing_corpus_branch_gets_the_stubs_a_full_scan_gives(name: str) -> None:
    """Kept from one flush to the next, the check walks only what is new; at every assistant message of a
    corpus session it hands out the reads a walk of the whole branch would, marked the same way."""
    session = Session.open(corpus_path(name))
    config = CondenseConfig()
    protected = partial(is_protected, protected_tools=config.protected_tools, protected_paths=config.protected_paths)
    indexed: set[str] = set()
    scan, kept = TurnScan(), SupersededReads()
    branch: list[dict[str, Any]] = []
    stubs = 0
    for entry in session.branch_entries():
        branch.append(entry)
        if entry.get("type") != "message" or entry["message"].get("role") != "assistant":
            continue
        full = SupersededReads().find(TurnScan(), branch, session.cwd, indexed.__contains__, protected)
        found = kept.find(scan, branch, session.cwd, indexed.__contains__, protected)
        assert [superseded_stub(r, r.key) for r in found] == [superseded_stub(r, r.key) for r in full]
        stubs += len(found)
        indexed |= {record.key for record in found[::2]}  # indexed by the flush; the rest as if its write failed
        indexed |= {message_key(result) for turn in scan.turns[-3:-2] for _call, result in turn.answered() if result}
    assert stubs > 0, "the session has superseded reads"
