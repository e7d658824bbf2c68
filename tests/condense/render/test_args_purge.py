"""Opt-in purge of summarised calls' arguments (`purge_summarized_args`): once a call's output is
stubbed, the long strings of its arguments shrink the way the error purge shrinks them; the query tool
still returns them whole."""

from __future__ import annotations

import json
from typing import Any

from tests.support.memory_host import Driver, assistant, call, make, result, stubbed

OLD, NEW = "def old():\n" + "    pass\n" * 60, "def new():\n" + "    return 1\n" * 60
BIG = "x" * 1500


async def edit_turn(drive: Driver, ts: int) -> None:
    """An edit (long old and new texts) and a protected write in one assistant turn."""
    message = assistant(ts, call("e1", "edit", path="src/a.py", oldText=OLD, newText=NEW),
                        call("w1", "write", path="src/b.py", content=NEW))
    results = [result("e1", "Edited src/a.py\n" + BIG, ts + 1, "edit"), result("w1", "Wrote src/b.py", ts + 2,
                                                                               "write")]
    for item in (message, *results):
        drive.host.add_message(item)
    await drive.engine.on_turn_end(message, results, drive.turn)
    drive.turn += 1


async def session(config: dict[str, Any]) -> Driver:
    _, _, drive = make({"protected_tools": ["write"], **config})
    await drive.prompt("rename old to new", 100)
    await edit_turn(drive, 110)
    await drive.final(200)
    return drive


def calls(rendered: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {b["id"]: b["arguments"] for m in rendered if m["role"] == "assistant" for b in m["content"]
            if b["type"] == "toolCall"}


async def test_a_stubbed_call_keeps_its_argument_shape_with_long_strings_as_markers() -> None:
    drive = await session({"purge_summarized_args": True})
    rendered = drive.render()
    assert stubbed(rendered) == ["e1"]
    args = calls(rendered)
    assert args["e1"] == {"path": "src/a.py", "oldText": f'<purged-args size="{len(OLD)}"/>',
                          "newText": f'<purged-args size="{len(NEW)}"/>'}
    assert args["w1"]["content"] == NEW, "a call whose output stays verbatim keeps its arguments"


async def test_the_query_tool_still_returns_the_arguments_whole() -> None:
    drive = await session({"purge_summarized_args": True})
    answer = drive.engine.query(["t1"])[0]
    assert f'"oldText": {json.dumps(OLD)}' in answer and f'"newText": {json.dumps(NEW)}' in answer
    assert "Edited src/a.py" in answer


async def test_renders_are_deterministic_and_reuse_the_purged_message() -> None:
    drive = await session({"purge_summarized_args": True})
    first, second = drive.render(), drive.render()
    assert first == second
    assert first[1] is second[1], "the purged copy is made once, so no-op renders stay cheap"


async def test_off_by_default() -> None:
    drive = await session({})
    assert calls(drive.render())["e1"]["oldText"] == OLD
