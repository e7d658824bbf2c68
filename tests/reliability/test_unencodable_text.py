"""Text UTF-8 cannot carry (a lone surrogate) from the model, a person or a session line Pi wrote: it is read
as U+FFFD where it enters, and every later request is sent.

Before, one `\\ud800` in a tool call's arguments broke the session for good: every later request failed
inside pi-tui with UnicodeEncodeError, reported as a provider's "HTTP 500" and retried, in that run and in
any later `-p` on the file. Real runs of the command against the fake provider, with retries off so that a
request failing locally fails the run at once.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.support.cli import run_cli
from tests.support.fake_openai import FakeOpenAI, call, text_reply, tool_reply


def _no_retries() -> None:
    (Path(os.environ["PI_TUI_HOME"]) / "settings.toml").write_text("[retry]\nenabled = false\n")


def _args(server: FakeOpenAI, session: Path) -> tuple[str, ...]:
    return "--model", "openai/fake-model", "--base-url", server.base_url, "--session", str(session)


def _sent(server: FakeOpenAI, role: str, request: int = -1) -> list[dict[str, Any]]:
    return [m for m in server.requests[request]["messages"] if m["role"] == role]


def test_a_lone_surrogate_from_the_model_runs_as_u_fffd_and_the_session_goes_on(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    _no_retries()
    session = tmp_path / "s.jsonl"
    fake_openai.push(tool_reply(call("bash", '{"command": "echo \\ud800 lone"}', "bad_5"), text="half \ud83d"),
                     text_reply("done"), text_reply("second"))
    first = run_cli("-p", "go", *_args(fake_openai, session), cwd=tmp_path)
    assert (first.returncode, first.stdout.strip()) == (0, "half \ufffd\n\ndone"), first.stderr
    second = run_cli("-p", "again", *_args(fake_openai, session), cwd=tmp_path)  # a later -p on the same file
    assert (second.returncode, second.stdout.strip()) == (0, "second"), second.stderr
    [reply] = _sent(fake_openai, "assistant", 1)  # the request after the call: the first that failed before
    assert reply["content"] == "half \ufffd"
    assert json.loads(reply["tool_calls"][0]["function"]["arguments"]) == {"command": "echo \ufffd lone"}
    assert [m["content"] for m in _sent(fake_openai, "tool", 1)] == ["\ufffd lone\n"]
    assert len(fake_openai.requests) == 3 and fake_openai.rejections == []
    assert b"\\ud8" not in session.read_bytes()


def test_a_session_line_and_a_prompt_holding_lone_surrogates_are_sent_as_u_fffd(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """A session Pi wrote with half an emoji in a message (JavaScript writes it as `\\ud83d`), continued with
    a prompt holding a byte the locale cannot decode (the command line reads it as a lone surrogate)."""
    _no_retries()
    session = tmp_path / "pi.jsonl"
    lines = [{"type": "session", "version": 3, "id": "5e55a0d1-0000-4000-8000-00000000000a",
              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(tmp_path)},
             {"type": "message", "id": "a0000001", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
              "message": {"role": "user", "content": "cut emoji: \ud83d", "timestamp": 1767225601000}}]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    fake_openai.push(text_reply("fine"))
    done = run_cli("-p", "a byte \udcff here", *_args(fake_openai, session), cwd=tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, "fine"), done.stderr
    users = [m["content"] for m in _sent(fake_openai, "user")]
    assert users == ["cut emoji: \ufffd", [{"type": "text", "text": "a byte \ufffd here"}]]
