"""A session the TUI cannot save: the user is told once, in the transcript, and the conversation goes on; a
failure inside the app is said in one line that holds no key and no terminal escape."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tui.widgets.answer import AssistantText
from pi_tui.widgets.blocks import NoteBlock
from tests.support.tui import transcript_notes, until


async def test_a_session_that_cannot_be_saved_is_said_once_in_the_transcript(make_app, fixed_session, send) -> None:
    path = fixed_session()
    path.chmod(0o444)
    before = path.read_bytes()
    app = make_app(session=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "fix the failing test")
        replies = [block.source for block in app.main.transcript.query(AssistantText)]
        assert any("the suite is green again" in text for text in replies), "the conversation goes on in memory"
        notes = [n for n in app.main.transcript.query(NoteBlock) if "session not saved" in n.item.message["text"]]
        assert len(notes) == 1 and notes[0].item.level == "error"
        assert "the file is read-only" in notes[0].item.message["text"]
        assert not any("extension error" in n.message for n in app._notifications)
    assert path.read_bytes() == before


async def test_a_failure_in_the_app_is_said_with_keys_scrubbed_and_escapes_shown(
        make_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception's text may quote a key or a tool's output: the transcript's error line says it as the CLI's
    lines do."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-toast-SECRET-0123456789")

    async def fail() -> None:
        raise RuntimeError("key=sk-toast-SECRET-0123456789 \x1b]0;PWNED\x07 done")

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.run_worker(fail(), exit_on_error=False)
        await until(pilot, lambda: any("internal error" in text for _, text in transcript_notes(app)))
        (line,) = [(level, text) for level, text in transcript_notes(app) if "internal error" in text]
        assert line[0] == "error"
        assert line[1].startswith("internal error: RuntimeError: key=[redacted:OPENAI_API_KEY] \\x1b]0;PWNED\\x07 done")
