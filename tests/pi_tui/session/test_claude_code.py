"""Claude Code transcripts read as Pi sessions (pi_tui/session/claude_code.py): `show`, `replay` and
`whatif` judge the sessions people have."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tui.cli import main
from pi_tui.session.claude_code import is_claude_code_transcript, open_claude_code
from pi_tui.session.store import SessionError
from tests.conftest import corpus_path
from tests.support.typed import plain as dicts


def line(kind: str, uuid: str, parent: str | None, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s-1", "cwd": "/repo",
            "isSidechain": False, "timestamp": f"2025-09-20T04:{int(uuid[1:]):02d}:00.000Z", "message": message,
            **extra}


USAGE = {"input_tokens": 3, "cache_creation_input_tokens": 500, "cache_read_input_tokens": 1_000,
         "output_tokens": 40}


def transcript(folder: Path) -> Path:
    """A user asks; the reply is split over two lines (text, then a call); the call fails; a sidechain
    and a summary line are not the main conversation; the last reply ends the turn."""
    records: list[dict[str, Any] | str] = [
        {"type": "summary", "summary": "Fixing the build", "leafUuid": "u6"},
        line("user", "u1", None, {"role": "user", "content": "fix the build"}),
        line("assistant", "u2", "u1", {"id": "msg_a", "role": "assistant", "model": "claude-sonnet-4-5",
                                       "content": [{"type": "text", "text": "Running it."}],
                                       "stop_reason": None, "usage": USAGE}),
        line("assistant", "u3", "u2", {"id": "msg_a", "role": "assistant", "model": "claude-sonnet-4-5",
                                       "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                                    "input": {"command": "make"}}],
                                       "stop_reason": "tool_use", "usage": USAGE}),
        "{not json",
        line("user", "u4", "u3", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "make: *** [all] Error 2",
             "is_error": True}]}),
        line("assistant", "u9", "u4", {"id": "msg_side", "role": "assistant", "model": "claude-sonnet-4-5",
                                       "content": [{"type": "text", "text": "sub-agent work"}]}, isSidechain=True),
        line("assistant", "u6", "u4", {"id": "msg_b", "role": "assistant", "model": "claude-sonnet-4-5",
                                       "content": [{"type": "text", "text": "The Makefile lacks a target."}],
                                       "stop_reason": "end_turn", "usage": USAGE}),
    ]
    path = folder / "0fae0449.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def test_a_transcript_becomes_the_pi_messages_of_its_main_branch(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    assert is_claude_code_transcript(path)
    session = open_claude_code(path)
    messages = dicts(session.messages())
    assert [m["role"] for m in messages] == ["user", "assistant", "toolResult", "assistant"], \
        "the split reply is one message; the sidechain and the summary are not in it"
    reply = messages[1]
    assert reply["content"] == [{"type": "text", "text": "Running it."},
                                {"type": "toolCall", "id": "toolu_1", "name": "Bash", "arguments": {"command": "make"}}]
    assert reply["stopReason"] == "toolUse" and reply["model"] == "claude-sonnet-4-5"
    assert reply["usage"]["cacheRead"] == 1_000 and reply["usage"]["cacheWrite"] == 500
    assert reply["usage"]["totalTokens"] == 1_543
    result = messages[2]
    assert (result["toolCallId"], result["toolName"], result["isError"]) == ("toolu_1", "Bash", True)
    assert messages[3]["stopReason"] == "stop"
    assert [str(w) for w in session.warnings] == [f"{path}:5: not a JSON object; line skipped"]


def test_the_branch_followed_is_the_one_ending_at_the_newest_line(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    with path.open("a") as file:  # a retry from the first user message: a second branch, now the newest
        file.write(json.dumps(line("assistant", "u7", "u1", {
            "id": "msg_c", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Let me try again."}], "stop_reason": "end_turn"})) + "\n")
    texts = [m["content"][0].get("text") for m in dicts(open_claude_code(path).messages())]
    assert texts == ["fix the build", "Let me try again."]


def test_a_transcript_with_no_message_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "cc.jsonl"
    empty.write_text(json.dumps({"type": "summary", "summary": "s", "leafUuid": "x"}) + "\n")
    with pytest.raises(SessionError, match="no user or assistant message"):
        open_claude_code(empty)


def test_show_prints_a_transcripts_conversation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(transcript(tmp_path))]) == 0
    captured = capsys.readouterr()
    assert "fix the build" in captured.out and "The Makefile lacks a target." in captured.out
    assert "make: *** [all] Error 2" in captured.out
    assert "not a JSON object" in captured.err


def test_whatif_prices_a_real_claude_code_transcript(capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_path("claude-code/obra-episodic-large.jsonl")
    assert main(["whatif", str(path), "--json", "--strategies", "none,condense"]) == 0
    report = json.loads(capsys.readouterr().out)["sessions"][0]
    rows = {r["name"]: r for r in report["strategies"]}
    assert rows["none"]["requests"] > 100 and rows["condense"]["total_cost"] < rows["none"]["total_cost"]
