"""The TUI opens a session file with every line Pi keeps (missing fields, null content, glued lines)."""

from __future__ import annotations

from pathlib import Path

from pi_tui.widgets.answer import AssistantText
from pi_tui.widgets.blocks import UserBlock
from tests.support.session_lines import every_leniency


async def test_a_lenient_session_opens_with_every_usable_message(make_app, tmp_path: Path, wait) -> None:
    app = make_app(session=every_leniency(tmp_path), model="demo")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        users = [str(w.render()) for w in app.main.query(UserBlock)]
        assert [u for u in users if u] == ["no timestamp", "bad \ufffd(", "glued two"]
        assert [w.source for w in app.main.query(AssistantText) if w.source] == ["glued one"]
