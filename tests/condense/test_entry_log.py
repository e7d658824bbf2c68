"""The library's store folder reads back what it wrote as pi-tui reads a session: a damaged line in the
middle is named and skipped, and the rest of the conversation stays on the branch; an empty file an
older version left is continued, not refused."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from condense import OpenAICondenser
from tests.support.library_agent import read_task


def conversation(store: Path, tasks: int) -> list[dict[str, Any]]:
    """The raw messages the store holds once `tasks` tasks are done (summaries left out)."""
    with OpenAICondenser(store) as agent:
        for n in range(tasks):
            agent.add_sync(read_task(n))
        return said(agent)


def said(agent: OpenAICondenser) -> list[dict[str, Any]]:
    return [dict(m) for m in agent.host.messages() if m["role"] != "custom"]


def session_file(store: Path) -> Path:
    [path] = store.glob("*.jsonl")
    return path


def damage(path: Path, nth_message: int, how: str) -> int:
    """Damage the line of the store's `nth_message` message entry; returns its line number."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    number = [i for i, line in enumerate(lines) if line.startswith('{"type":"message"')][nth_message]
    line = lines[number]
    lines[number] = line[: len(line) // 2] + "\n" if how == "torn" else "#garbled#" + line[9:]
    path.write_text("".join(lines), encoding="utf-8")
    return number + 1


@pytest.mark.parametrize("how", ["torn", "garbled"])
def test_a_damaged_line_in_the_middle_loses_that_message_only_and_says_so(
        tmp_path: Path, how: str, caplog: pytest.LogCaptureFixture) -> None:
    """A line torn in its middle (its head names its entry and parent) or garbled from its start (its
    children then hang from the entry before it): 19 of 20 messages stay on the branch, where 13 did."""
    store = tmp_path / "store"
    before = conversation(store, 5)
    assert len(before) == 20
    number = damage(session_file(store), 9, how)
    with caplog.at_level(logging.WARNING, logger="condense"), OpenAICondenser(store) as agent:
        assert said(agent) == before[:9] + before[10:]
        notice = f"{session_file(store)}:{number}: not valid JSON ("
        assert [text for level, text in agent.host.notices if level == "warning" and text.startswith(notice)]
        assert any(record.getMessage().startswith(notice) for record in caplog.records)
        assert "# m0\n" in agent.query(["call_0"])  # an output from before the damage is still recovered
        agent.add_sync(read_task(5))
    with OpenAICondenser(store) as reopened:  # the next task continued the branch
        after = said(reopened)
        assert after[:19] == before[:9] + before[10:] and len(after) == 23
        assert after[19]["content"] == "what does m5.py do?"


def test_an_empty_session_file_an_older_version_left_is_continued_as_empty(tmp_path: Path) -> None:
    """A kill or a full disk at an older version's first write left a 0-byte file, which made the store
    unopenable ("not a Pi session file"); it is continued, under the id its name carries."""
    store = tmp_path / "store"
    store.mkdir()
    empty = store / "2026-01-01T00-00-00-000Z_6c1e2a52-3f0b-4d0e-9a57-2f6a1c1c0e11.jsonl"
    empty.touch()
    with OpenAICondenser(store) as agent:
        assert agent.messages() == []
        agent.add_sync(read_task(0))
    assert session_file(store) == empty
    header = json.loads(empty.read_text(encoding="utf-8").splitlines()[0])
    assert header["type"] == "session" and header["id"] == "6c1e2a52-3f0b-4d0e-9a57-2f6a1c1c0e11"
    with OpenAICondenser(store) as reopened:
        assert said(reopened)[0]["content"] == "what does m0.py do?"
        assert reopened.host.notices == []
