"""Codex rollouts read as Pi sessions (pi_tui/session/codex.py): the history `codex resume` would send,
for `show`, `context`, `query`, `replay` and `whatif`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tui.cli import main
from pi_tui.session.codex import is_codex_rollout, open_codex
from pi_tui.session.store import SessionError
from tests.support.codex_rollout import (
    AGENTS,
    ASK,
    ENVIRONMENT,
    MODEL,
    PATCH,
    PYTEST_FAILED,
    SESSION_ID,
    SUMMARY,
    item,
    line,
    message,
    output,
    reasoning,
    rollout_lines,
    session_meta,
    shell_call,
    token_count,
    turn_context,
    write_rollout,
)
from tests.support.typed import plain as dicts


def branch_messages(path: Path) -> list[dict[str, Any]]:
    """Every message on the branch Codex would resume, compactions left out (what other strategies start from)."""
    return [e["message"] for e in open_codex(path).branch_entries() if e["type"] == "message"]


def texts(message: dict[str, Any]) -> list[str]:
    return [block.get("text") or block.get("thinking") or "" for block in message["content"]]


def test_a_rollout_becomes_the_pi_messages_codex_sends(tmp_path: Path) -> None:
    path = write_rollout(tmp_path)
    assert is_codex_rollout(path)
    messages = branch_messages(path)
    assert [m["role"] for m in messages] == ["user", "user", "user", "assistant", "toolResult", "assistant",
                                             "toolResult", "assistant", "user", "assistant", "toolResult",
                                             "assistant"]
    assert [texts(m)[0] for m in messages[:3]] == [AGENTS, ENVIRONMENT, ASK], \
        "the injected context stays: Codex sends it with every request"
    first = messages[3]
    assert first["content"] == [
        {"type": "thinking", "thinking": "**Running the tests**"},
        {"type": "toolCall", "id": "call_1", "name": "shell",
         "arguments": {"command": ["bash", "-lc", "pytest -q"], "workdir": "/home/ana/parser"}}]
    assert (first["model"], first["provider"], first["api"], first["stopReason"]) == \
        (MODEL, "openai", "openai-responses", "toolUse")
    assert messages[5]["content"][1] == {"type": "toolCall", "id": "call_2", "name": "apply_patch",
                                         "arguments": {"input": PATCH}}, "a freeform tool's input is kept whole"
    assert messages[7]["stopReason"] == "stop"


def test_tool_outputs_are_results_as_the_model_read_them(tmp_path: Path) -> None:
    messages = branch_messages(write_rollout(tmp_path))
    failed, patched = messages[4], messages[6]
    assert (failed["toolCallId"], failed["toolName"], failed["isError"]) == ("call_1", "shell", True), \
        "exit code 1 in the shell's metadata"
    assert failed["content"] == [{"type": "text", "text": PYTEST_FAILED}], "the JSON the model read, verbatim"
    assert (patched["toolName"], patched["isError"]) == ("apply_patch", False)
    assert messages[10]["isError"] is False, "exit code 0"


def test_a_shell_outputs_first_line_says_whether_it_failed(tmp_path: Path) -> None:
    """Newer Codex writes a shell's output as text that starts `Exit code: N`; an old one as an object."""
    lines = [session_meta(), turn_context(1), message(1, "user", ASK), shell_call(2, "call_1", "make"),
             shell_call(2, "call_2", "ls"), shell_call(2, "call_3", "cat x"), token_count(2, 100, 0, 5, 105),
             output(3, "call_1", "Exit code: 2\nWall time: 0.1 seconds\nOutput:\nmake: *** No rule"),
             output(3, "call_2", "Exit code: 0\nWall time: 0.0 seconds\nOutput:\na.py"),
             item(3, {"type": "function_call_output", "call_id": "call_3",
                      "output": {"content": "cat: x: No such file", "success": False}})]
    results = [m for m in branch_messages(write_rollout(tmp_path, lines)) if m["role"] == "toolResult"]
    assert [r["isError"] for r in results] == [True, False, True]
    assert results[2]["content"] == [{"type": "text", "text": "cat: x: No such file"}]


def test_each_reply_carries_its_responses_count(tmp_path: Path) -> None:
    replies = [m for m in branch_messages(write_rollout(tmp_path)) if m["role"] == "assistant"]
    assert [(r["usage"]["input"], r["usage"]["cacheRead"], r["usage"]["output"]) for r in replies] == [
        (1_000, 4_000, 120), (600, 5_000, 200), (500, 5_500, 60), (400, 6_000, 90), (2_000, 0, 30)], \
        "cached input apart; a repeated count and the compaction's own request are no reply's"
    assert replies[0]["usage"]["totalTokens"] == 5_120


def test_a_repeated_count_is_no_responses(tmp_path: Path) -> None:
    """Without a `turn_context` between two requests, only the session total tells a repeat."""
    lines = [session_meta(), turn_context(1), message(1, "user", ASK), shell_call(2, "call_1", "ls"),
             token_count(2, 1_000, 0, 10, 1_010), token_count(2, 1_000, 0, 10, 1_010), output(3, "call_1", "a.py"),
             message(4, "assistant", "One file."), token_count(4, 1_100, 1_000, 5, 2_115)]
    replies = [m for m in branch_messages(write_rollout(tmp_path, lines)) if m["role"] == "assistant"]
    assert [r["usage"]["input"] for r in replies] == [1_000, 100]


def test_timestamps_are_the_lines(tmp_path: Path) -> None:
    session = open_codex(write_rollout(tmp_path))
    stamps = [e["timestamp"] for e in session.branch_entries()]
    assert stamps[3] == "2025-10-02T09:00:04.000Z" and stamps[4] == "2025-10-02T09:00:07.000Z"
    assert dicts(session.branch_entries()[3:4])[0]["message"]["timestamp"] == 1_759_395_604_000
    assert (session.session_id, session.cwd) == (SESSION_ID, "/home/ana/parser")


def test_a_local_compaction_sends_the_context_codex_rebuilds(tmp_path: Path) -> None:
    session = open_codex(write_rollout(tmp_path))
    compaction = next(e for e in session.branch_entries() if e["type"] == "compaction")
    assert compaction["summary"].split("\n\n")[-2:] == ["now add a test for an empty input",
                                                        compaction["summary"].split("\n\n")[-1]]
    assert compaction["summary"].endswith(SUMMARY)
    assert compaction["summary"].startswith(AGENTS) and ENVIRONMENT in compaction["summary"] \
        and ASK in compaction["summary"], "injected context, then the user messages, then the summary"
    assert compaction["tokensBefore"] == 6_900
    context = dicts(session.messages())
    assert [m["role"] for m in context] == ["compactionSummary", "assistant"], "nothing before it is kept"


def test_a_replacement_history_is_what_follows_a_compaction(tmp_path: Path) -> None:
    replacement = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": ASK}]},
                   {"type": "compaction", "encrypted_content": "gAAAAABo-ENCRYPTED"}]
    lines = [*rollout_lines()[:10], line(9, "compacted", {"message": "", "replacement_history": replacement}),
             message(10, "assistant", "Patching."), token_count(10, 900, 0, 10, 6_030)]
    session = open_codex(write_rollout(tmp_path, lines))
    compaction = next(e for e in session.branch_entries() if e["type"] == "compaction")
    assert compaction["summary"] == ASK, "the readable part of the replacement; the encrypted summary is not"
    assert [m["role"] for m in session.messages()] == ["compactionSummary", "assistant"]


def test_the_older_order_counts_first_and_interleaves_outputs(tmp_path: Path) -> None:
    """Codex before 0.4x wrote a response's count before its items and each call's output after it."""
    lines = [session_meta(), turn_context(1), message(1, "user", ASK), token_count(2, 3_000, 0, 80, 3_080),
             reasoning(3, "**Two reads**"), shell_call(3, "call_a", "cat a.py"), output(3, "call_a", "A"),
             shell_call(3, "call_b", "cat b.py"), output(3, "call_b", "B"),
             token_count(4, 3_200, 3_000, 40, 6_320), message(5, "assistant", "Both read."),
             message(6, "user", "thanks")]
    messages = branch_messages(write_rollout(tmp_path, lines))
    assert [m["role"] for m in messages] == ["user", "assistant", "toolResult", "toolResult", "assistant", "user"]
    assert [b.get("id") for b in messages[1]["content"]] == [None, "call_a", "call_b"], "one response, two calls"
    assert [m["usage"]["input"] for m in (messages[1], messages[4])] == [3_000, 200]


def test_a_rolled_back_turn_is_off_the_branch(tmp_path: Path) -> None:
    moved = ENVIRONMENT.replace("/home/ana/parser", "/home/ana/lexer")
    lines = [*rollout_lines()[:18], turn_context(20), message(20, "user", moved),
             message(20, "user", "rename tokenize to lex"),
             message(21, "assistant", "Renamed."), token_count(21, 6_200, 6_000, 20, 23_200),
             line(22, "event_msg", {"type": "thread_rolled_back", "num_turns": 1}),
             message(23, "user", "now add a test for an empty input")]
    session = open_codex(write_rollout(tmp_path, lines))
    shown = [texts(m)[0] for m in dicts(session.messages()) if m["role"] == "user"]
    assert shown == [AGENTS, ENVIRONMENT, ASK, "now add a test for an empty input"], \
        "the context Codex injected for the undone turn goes with it"
    assert any(e.get("message", {}).get("content") == [{"type": "text", "text": "Renamed."}]
               for e in session.entries), "the undone turn stays in the tree, off the branch"
    ending = open_codex(write_rollout(tmp_path, lines[:-1]))
    assert texts(dicts(ending.messages())[-1]) == ["Fixed: tokenize() kept every token but the last."], \
        "a file that ends with the undo resumes before the undone turn"


def test_items_codex_does_not_send_as_messages_are_left_out(tmp_path: Path) -> None:
    lines = [session_meta(), turn_context(1), message(1, "user", ASK),
             item(2, {"type": "ghost_snapshot", "ghost_commit": {"id": "c1", "parent": None}}),
             item(2, {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "x"}}),
             item(2, {"type": "local_shell_call", "call_id": "call_l", "status": "completed",
                      "action": {"type": "exec", "command": ["ls"], "timeout_ms": None, "working_directory": None,
                                 "env": None, "user": None}}),
             token_count(2, 100, 0, 5, 105), output(3, "call_l", "README.md")]
    messages = branch_messages(write_rollout(tmp_path, lines))
    assert [m["role"] for m in messages] == ["user", "assistant", "toolResult"]
    assert messages[1]["content"] == [{"type": "toolCall", "id": "call_l", "name": "local_shell",
                                       "arguments": {"command": ["ls"]}}]


def test_a_rollout_with_no_message_says_so(tmp_path: Path) -> None:
    empty = write_rollout(tmp_path, [session_meta(), turn_context(1)])
    with pytest.raises(SessionError, match="a Codex rollout with no messages"):
        open_codex(empty)


def test_show_prints_a_rollouts_conversation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(write_rollout(tmp_path)), "--full"]) == 0
    captured = capsys.readouterr()
    assert "The test is in; pytest passes." in captured.out and SUMMARY in captured.out
    assert "not a JSON object" in captured.err


def test_whatif_prices_a_rollout_at_its_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_rollout(tmp_path)
    before = path.read_bytes()
    assert main(["whatif", str(path), "--json", "--strategies", "recorded,none"]) == 0
    report = json.loads(capsys.readouterr().out)["sessions"][0]
    assert report["pricing"].startswith(MODEL) and report["context_window"] == 272_000
    assert report["unpriced_requests"] == 0
    rows = {r["name"]: r for r in report["strategies"]}
    assert rows["none"]["requests"] == rows["recorded"]["requests"] == 5
    assert rows["recorded"]["context_tokens"][:4] == rows["none"]["context_tokens"][:4]
    assert rows["recorded"]["context_tokens"][4] < rows["none"]["context_tokens"][4], \
        "after the compaction the recorded strategy sends what Codex sent"
    assert rows["recorded"]["total_cost"] > 0
    assert path.read_bytes() == before
