"""A session the TUI cannot save: the user is told once, in the transcript, and the conversation goes on."""

from __future__ import annotations

from pi_tui.widgets.answer import AssistantText
from pi_tui.widgets.blocks import NoteBlock


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
