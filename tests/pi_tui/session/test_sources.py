"""Which reader a session file gets (pi_tui/session/sources.py), and that another agent's file is only
ever read (pi_tui/session/foreign.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.session.claude_code import is_claude_code_transcript
from pi_tui.session.codex import is_codex_rollout
from pi_tui.session.foreign import ForeignSession
from pi_tui.session.sources import open_session
from pi_tui.session.store import SessionError
from tests.conftest import corpus_path
from tests.support.codex_rollout import write_rollout


def agents_file(kind: str, folder: Path) -> Path:
    return corpus_path("claude-code/obra-episodic-large.jsonl") if kind == "Claude Code transcript" \
        else write_rollout(folder)


@pytest.mark.parametrize("kind", ["Claude Code transcript", "Codex rollout"])
def test_another_agents_file_is_read_and_never_written(kind: str, tmp_path: Path) -> None:
    path = agents_file(kind, tmp_path)
    before = path.read_bytes()
    session = open_session(path)
    assert isinstance(session, ForeignSession) and session.messages()
    with pytest.raises(SessionError, match=f"a {kind} is read, never written"):
        session.append_message({"role": "user", "content": [{"type": "text", "text": "more"}], "timestamp": 1})
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", ["Claude Code transcript", "Codex rollout"])
def test_each_reader_claims_only_its_own_files(kind: str, tmp_path: Path) -> None:
    path = agents_file(kind, tmp_path)
    assert is_claude_code_transcript(path) == (kind == "Claude Code transcript")
    assert is_codex_rollout(path) == (kind == "Codex rollout")


def test_a_pi_file_is_opened_as_one(tmp_path: Path) -> None:
    pi = tmp_path / "pi.jsonl"
    pi.write_text(json.dumps({"type": "session", "version": 3, "id": "x", "timestamp": "", "cwd": "/"}) + "\n")
    assert not is_claude_code_transcript(pi) and not is_codex_rollout(pi)
    assert not isinstance(open_session(pi), ForeignSession)
