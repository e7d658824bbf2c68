"""The first screen says where the user is, and keeps start-up notices and problems in the transcript."""

from __future__ import annotations

import os
from pathlib import Path

from pi_tui.screens.picker import PickerScreen
from pi_tui.settings import Settings


def notes(app) -> list[tuple[str, str]]:
    return [(item.message["text"], item.level) for item in app.main.transcript.conversation.items
            if item.kind == "note"]


async def test_the_first_screen_names_model_folder_session_and_help(make_app, fixed_session, wait,
                                                                    shown) -> None:
    app = make_app(session=fixed_session(), model=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        text = shown(app)
        assert "pi-tui 0.1.0 · model demo (offline, scripted) · folder ~/project" in text
        assert "session fixed.jsonl · 7 messages" in text
        assert "/hotkeys lists the keys" in text


async def test_demo_notice_and_skipped_session_lines_stay_in_the_transcript(make_app, fixed_session, wait,
                                                                            shown) -> None:
    path: Path = fixed_session()
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.insert(3, '{"type": "message", "id": "broken')  # a torn line in the middle of the file
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    app = make_app(session=path, model="demo", settings=Settings(keymap={"app.modle": "f2"}))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        shown_notes = notes(app)
        warning = f"{path}:4: not valid JSON"
        assert any(level == "warning" and text.startswith(warning) and text.endswith("; line skipped")
                   and "\n" not in text for text, level in shown_notes)
        assert ('settings.toml: keymap.app.modle: unknown key binding id, ignored; did you mean "app.model"?',
                "error") in shown_notes
        assert "4: not valid JSON" in shown(app)
        assert not app._notifications  # nothing that vanishes


async def test_without_a_key_the_demo_notice_is_in_the_transcript(make_app, wait, shown, monkeypatch) -> None:
    for name in [name for name in os.environ if name.endswith("_API_KEY")]:
        monkeypatch.delenv(name)
    app = make_app(model=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        assert any(text.startswith("no API key found: using the offline demo model") and level == "warning"
                   for text, level in notes(app))
        assert "no API key found" in shown(app)


async def test_new_and_resume_open_on_the_first_screen_of_their_session(make_app, send, wait, shown) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")
        first = app.runtime.host.session.path
        await send(pilot, "/new")
        text = shown(app)
        assert "pi-tui 0.1.0 · model demo (offline, scripted) · folder ~/project" in text
        assert f"session {app.runtime.host.session.path.name} · new" in text
        assert "demo: working on a copy of the sample project" in text
        await send(pilot, "/resume", opens=PickerScreen)
        await pilot.press("enter")
        await wait(pilot)
        assert app.runtime.host.session.path == first
        assert f"session {first.name} · 15 messages" in shown(app)  # the prompt, replies and tool results
        # the resumed conversation first, then where you are, in view above the editor
        kinds = [item.kind for item in app.main.transcript.conversation.items]
        assert kinds[0] == "user" and kinds[-1] == "note" and "note" not in kinds[:-1], kinds
        assert app.main.transcript.conversation.items[-1].message["text"].startswith("pi-tui 0.1.0 · model demo")
