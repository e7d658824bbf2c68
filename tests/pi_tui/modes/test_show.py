"""`pi-tui show`, `context` and `-p` on session files written by other programs, as a user runs them."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from pi_tui.cli import main
from pi_tui.session.store import Session
from tests.support.cli import run_cli
from tests.support.fake_openai import FakeOpenAI, text_reply
from tests.support.session_lines import V3_HEADER, every_leniency, msg, write

PNG = {"type": "image", "data": base64.b64encode(bytes(3000)).decode(), "mimeType": "image/png"}


def bash(command: str, ts: int, **fields: Any) -> dict[str, Any]:
    return {"role": "bashExecution", "command": command, "output": "out", "exitCode": 0, "cancelled": False,
            "truncated": False, "timestamp": ts, **fields}


def test_show_says_cancelled_marks_unseen_output_and_sizes_images(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "s.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, {"role": "user", "content": [{"type": "text", "text": "see"}, PNG], "timestamp": 1}),
        msg("a2", "a1", 2, bash("sleep 9", 2, cancelled=True, exitCode=None)),
        msg("a3", "a2", 3, bash("env", 3, excludeFromContext=True)),
        msg("a4", "a3", 4, bash("false", 4, exitCode=1)),
        msg("a5", "a4", 5, {"role": "toolResult", "toolCallId": "c", "toolName": "read", "isError": False,
                            "content": [PNG], "timestamp": 5}),
    ])
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "see\n[image: image/png, 3 KB]" in out
    assert "── user ran ! sleep 9 (cancelled)" in out
    assert "── user ran !! env (exit 0) · not in context" in out
    assert "── user ran ! false (exit 1) ·" in out
    assert "── read result ✓" in out and out.count("[image: image/png, 3 KB]") == 2
    assert PNG["data"][:40] not in out


def test_every_leniency_goes_through_context_and_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = every_leniency(tmp_path)
    assert main(["context", str(path), "--json", "--raw"]) == 0
    captured = capsys.readouterr()
    raw = json.loads(captured.out)
    assert [m["role"] for m in raw] == ["user", "user", "custom", "user", "assistant", "toolResult", "assistant",
                                        "user"]
    assert raw[1]["content"][0]["text"] == "bad \ufffd("
    assert captured.err == (f"pi-tui: warning: {path}:9: message entry: unknown message role "
                            "'message-from-the-future'; line skipped\n")
    assert main(["context", str(path), "--json"]) == 0
    sent = json.loads(capsys.readouterr().out)
    texts = [b.get("text") for m in sent for b in (m["content"] if isinstance(m["content"], list) else [])]
    assert "no timestamp" in [m["content"] for m in sent if isinstance(m["content"], str)] + texts
    assert "no custom type" in texts and "glued one" in texts and "glued two" in texts
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "bad \ufffd(" in out and "glued two" in out and "Traceback" not in out


def test_print_mode_warns_once_sends_what_pi_would_and_continues_from_the_leaf(tmp_path: Path,
                                                                               fake_openai: FakeOpenAI) -> None:
    path = every_leniency(tmp_path)
    fake_openai.push(text_reply("Continuing."))
    result = run_cli("-p", "next", "--session", str(path), "--model", "openai/fake-model", "--base-url",
                     fake_openai.base_url, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("pi-tui: warning:")]
    assert warnings == [f"pi-tui: warning: {path}:9: message entry: unknown message role "
                        "'message-from-the-future'; line skipped"]
    sent = fake_openai.requests[0]["messages"]
    # empty messages are left out, as Pi's providers do; the unanswered result has no call to follow
    assert sent[1:] == [
        {"role": "user", "content": "no timestamp"},
        {"role": "user", "content": [{"type": "text", "text": "bad \ufffd("}]},
        {"role": "user", "content": [{"type": "text", "text": "no custom type"}]},
        {"role": "assistant", "content": "glued one"},
        {"role": "user", "content": [{"type": "text", "text": "glued two"}]},
        {"role": "user", "content": [{"type": "text", "text": "next"}]},
    ]
    session = Session.open(path)
    prompt = next(e for e in session.entries if e["type"] == "message" and e["message"]["role"] == "user"
                  and e["message"]["content"] == [{"type": "text", "text": "next"}])
    assert prompt["parentId"] == "b3", "the new turn continues from the last line, as in Pi"
