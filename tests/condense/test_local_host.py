"""LocalHost: the entry log a library user's conversation lives in, in memory or in a Pi session file."""

from __future__ import annotations

import asyncio
import json
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from condense import OpenAICondenser
from condense.local_host import LocalHost
from condense.messages import UserMessage
from tests.condense.test_facade import openai_turn, output
from tests.support.typed import plain
from tests.support.waiting import until


def user(text: str, ts: int) -> UserMessage:
    return {"role": "user", "content": text, "timestamp": ts}


def test_in_memory_nothing_touches_the_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    host = LocalHost()
    host.append_message(user("hi", 1))
    host.append_entry("note", {"a": 1})
    assert [e["type"] for e in host.branch()] == ["message", "custom"]
    assert host.blobs_dir() is None and list(tmp_path.iterdir()) == []


def test_the_file_is_a_private_pi_session_that_reopens_where_it_ended(tmp_path: Path) -> None:
    host = LocalHost(tmp_path / "store")
    host.append_message(user("one", 1))
    host.append_message({"role": "custom", "customType": "note", "content": "c", "display": False, "timestamp": 2})
    [path] = (tmp_path / "store").glob("*.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["version"] == 3
    assert [(e["type"], e["parentId"]) for e in lines[1:]] == [("message", None), ("custom_message", lines[1]["id"])]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    host.close()
    again = LocalHost(tmp_path / "store")
    assert again.session_id == host.session_id and again.messages()[0] == user("one", 1)
    assert plain(again.messages())[1]["role"] == "custom" and plain(again.messages())[1]["content"] == "c"
    assert again.blobs_dir() == tmp_path / "store" / f"{host.session_id}-blobs"


def test_a_torn_last_line_is_skipped_and_the_next_entry_starts_on_its_own_line(tmp_path: Path) -> None:
    host = LocalHost(tmp_path)
    host.append_message(user("kept", 1))
    host.close()
    [path] = tmp_path.glob("*.jsonl")
    with path.open("a") as out:
        out.write('{"type":"message","id":"torn"')
    again = LocalHost(tmp_path)
    assert [m["content"] for m in plain(again.messages())] == ["kept"]
    again.append_message(user("after", 2))
    again.close()
    assert [m["content"] for m in plain(LocalHost(tmp_path).messages())] == ["kept", "after"]


def test_a_branched_file_continues_from_its_newest_entry(tmp_path: Path) -> None:
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"}
    entries = [{"type": "message", "id": "a", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
                "message": user("root", 1)},
               {"type": "message", "id": "b", "parentId": "a", "timestamp": "2026-01-01T00:00:02.000Z",
                "message": user("abandoned branch", 2)},
               {"type": "message", "id": "c", "parentId": "a", "timestamp": "2026-01-01T00:00:03.000Z",
                "message": user("current branch", 3)}]
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(o) + "\n" for o in [header, *entries]))
    assert [m["content"] for m in plain(LocalHost(tmp_path).messages())] == ["root", "current branch"]


@pytest.mark.parametrize(("first_line", "problem"), [
    ({"type": "message"}, "no session header"),
    ({"type": "session", "id": "old", "timestamp": "2024-01-01T00:00:00.000Z", "cwd": "/"}, "version 1 Pi session"),
])
def test_a_file_it_cannot_continue_is_refused_in_one_line_and_left_alone(tmp_path: Path, first_line: dict[str, Any],
                                                                          problem: str) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text(json.dumps(first_line) + "\n")
    with pytest.raises(ValueError, match=problem) as raised:
        LocalHost(tmp_path)
    assert "\n" not in str(raised.value)
    assert path.read_text() == json.dumps(first_line) + "\n"


async def test_summaries_come_from_the_given_function_as_completion_events() -> None:
    host = LocalHost(summarize=lambda prompt: f"summary of {len(prompt)} chars")
    assert host.session_model() == "library/summarizer" and host.has_model("library/summarizer")
    events = [e async for e in host.complete("library/summarizer", "abcd", None, signal=None)]  # type: ignore[arg-type]
    assert [(e.type, e.text) for e in events][-1] == ("done", "summary of 4 chars")
    assert LocalHost().session_model() is None


async def test_a_blocking_summary_function_leaves_the_event_loop_free() -> None:
    """While the function runs, the loop runs the agent's other work: run on the loop, it would wait in vain."""
    started, loop_ran = threading.Event(), threading.Event()

    def blocking(prompt: str) -> str:
        started.set()
        return "the loop ran meanwhile" if loop_ran.wait(timeout=5) else "the loop was blocked"

    async def other_work() -> None:
        await until(started.is_set, "the summariser to start")
        loop_ran.set()

    condenser = OpenAICondenser(summarizer=blocking, config={"chain_compression": {"rolling_window": 3}})
    await condenser.add([{"role": "user", "content": "fix the handler"}, *openai_turn(0)])
    meanwhile = asyncio.ensure_future(other_work())
    await condenser.add([{"role": "assistant", "content": "Fixed."}])
    await meanwhile
    assert "the loop ran meanwhile" in json.dumps(condenser.messages())


@pytest.mark.parametrize("asynchronous", [True, False])
async def test_a_summary_function_slower_than_the_stall_timeout_is_bounded_by_the_ceiling_alone(
        asynchronous: bool) -> None:
    """A function answers once, at its end: its silence is no stall, only the whole call's ceiling applies."""
    slow = 0.5  # seconds: five times the idle timeout below (slowness is the behaviour under test)

    async def slow_async(prompt: str) -> str:
        await asyncio.sleep(slow)
        return "[[1:read]] a handler module"

    def slow_sync(prompt: str) -> str:
        time.sleep(slow)
        return "[[1:read]] a handler module"

    condenser = OpenAICondenser(summarizer=slow_async if asynchronous else slow_sync,
                                config={"summarizer_idle_timeout_ms": 100, "summarizer_max_timeout_ms": 60_000,
                                        "chain_compression": {"rolling_window": 3}})
    await condenser.add([{"role": "user", "content": "fix the handler"}, *openai_turn(0)])
    result = await condenser.add([{"role": "assistant", "content": "Fixed."}])
    assert result.refs == ("t1",) and not [text for _, text in result.notices if "stalled" in text]
    assert "a handler module" in json.dumps(condenser.messages())


async def test_a_summary_function_past_the_ceiling_is_abandoned_and_its_work_kept() -> None:
    released = asyncio.Event()

    async def never(prompt: str) -> str:
        await released.wait()
        return "too late"

    condenser = OpenAICondenser(summarizer=never, config={"summarizer_max_timeout_ms": 200})
    await condenser.add([{"role": "user", "content": "fix the handler"}, *openai_turn(0)])
    result = await condenser.add([{"role": "assistant", "content": "Fixed."}])
    released.set()
    assert result.refs == () and [m["content"] for m in condenser.messages() if m["role"] == "tool"] == [output(0)]
    assert [text for _, text in result.notices if "exceeded 0.2s ceiling" in text]
