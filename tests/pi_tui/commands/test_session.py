"""Pi's commands in the TUI: /session, /name, /model, /new, /resume, /tree, /theme, /settings, /hotkeys,
/quit, and the bare /pruner picker."""

from __future__ import annotations

import json
import tomllib

from pi_tui.ai import litellm_client
from pi_tui.paths import settings_file
from pi_tui.screens.form import SettingsFormScreen
from pi_tui.screens.picker import PickerScreen
from pi_tui.screens.session_tree import SessionTreeScreen
from pi_tui.screens.text_view import TextViewScreen
from pi_tui.session.store import Session
from pi_tui.widgets.blocks import NoteBlock
from pi_tui.widgets.keymap import KEYS_COLUMN
from tests.support.tui import transcript_notes, transcript_user_texts
from tests.support.typed import plain


async def test_session_shows_file_id_and_counts(make_app, fixed_session, send, wait) -> None:
    path = fixed_session()
    app = make_app(session=path, model=None)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/session")
        note = list(app.main.transcript.query(NoteBlock))[-1]
        text = str(note.content)
        assert f"file:    {path}" in text
        assert "id:      5e55a0d1-0000-4000-8000-000000000001" in text
        assert "3 assistant" in text and "3 toolResult" in text and "1 context-prune-summary" in text


async def test_session_of_a_new_demo_session_reads_plainly(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/session")
        text = str(list(app.main.transcript.query(NoteBlock))[-1].content)
        assert "file:    (none yet: written with the first reply)" in text
        assert "entries: 2 in the session, 2 on this branch" in text  # no file holds them yet
        assert "model:   demo" in text.splitlines()


async def test_name_names_the_session_and_the_footer_shows_it(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/name invoice fix")
        assert app.runtime.host.session.name == "invoice fix"
        assert app.main.footer.lines(108)[0].plain == "~/project • invoice fix"


async def test_model_switch_rebuilds_on_the_same_session_and_records_it(make_app, fixed_session, send, wait,
                                                                       wait_for, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    warmed: list[bool] = []
    monkeypatch.setattr(litellm_client, "warm_up", lambda: warmed.append(True))  # not the 5 s import here
    path = fixed_session()
    app = make_app(session=path, model=None)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert [choice.label for choice in picker.shown[:2]] == ["demo", "openai/gpt-5.1"]  # the key's first
        assert picker.shown[1].description == "272k context · ✓ key"  # gpt-5.1's window in litellm's map
        await pilot.press(*"gpt", "enter")
        await wait(pilot)
        assert app.runtime.host.config.model.ref == "openai/gpt-5.1"
        assert app.runtime.host.session.path == path
        assert transcript_user_texts(app) == ["Fix the failing test"]
        last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
        assert (last["type"], last["provider"], last["modelId"]) == ("model_change", "openai", "gpt-5.1")
        footer = app.main.footer.lines(108)[1].plain
        assert "%/272k" in footer  # gpt-5.1's window in litellm's map
        assert footer.endswith("gpt-5.1 • thinking off")  # a reasoning model, per the map
        assert warmed == [True]  # a real model: litellm is imported in the background right away
        await send(pilot, "/model demo")  # back to the demo: a new session on its own sample project
        assert app.runtime.host.config.model.provider == "demo"
        assert app.runtime.host.session.path != path


async def test_model_switch_keeps_the_entries_a_failed_write_left_unsaved(make_app, fixed_session, send, wait,
                                                                          monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setattr(litellm_client, "warm_up", lambda: None)
    path = fixed_session()
    path.chmod(0o444)  # every entry of this run stays in memory only
    app = make_app(session=path, model=None)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")
        unsaved = list(app.runtime.host.session.entries)
        await send(pilot, "/model openai/gpt-5.1")
        assert app.runtime.host.config.model.ref == "openai/gpt-5.1"
        assert app.runtime.host.session.entries[:len(unsaved)] == unsaved
        assert transcript_user_texts(app) == ["Fix the failing test", "fix the failing test"]
        path.chmod(0o644)  # writable again: the next entry saves everything
        app.runtime.host.session.append_label(unsaved[-1]["id"], "kept")
    on_disk = [m["content"][0]["text"] for m in plain(Session.open(path).messages()) if m["role"] == "user"]
    assert on_disk == ["Fix the failing test", "fix the failing test"]


async def test_switching_to_a_model_without_its_key_says_so_and_keeps_the_current_one(
        make_app, fixed_session, send, wait) -> None:
    path = fixed_session()
    app = make_app(session=path, model=None)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        before = path.read_text(encoding="utf-8")
        await send(pilot, "/model anthropic/claude-sonnet-4-5")
        assert transcript_notes(app)[-1] == ("error", "/model anthropic/claude-sonnet-4-5: not switched, still on"
                                             " demo: no API key for anthropic: set ANTHROPIC_API_KEY")
        assert not app._notifications  # said where it stays, not in a toast
        assert app.runtime.host.config.model.provider == "demo"
        assert path.read_text(encoding="utf-8") == before  # no model_change recorded


async def test_new_and_resume_switch_sessions(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")
        first = app.runtime.host.session.path
        await send(pilot, "/new")
        assert app.runtime.host.session.path != first
        assert [item.kind for item in app.main.transcript.conversation.items] == ["note", "note"]  # first screen
        await send(pilot, "/resume", opens=PickerScreen)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert [choice.value for choice in picker.shown] == [first]
        assert picker.shown[0].label == "fix the failing test"
        await pilot.press("enter")
        await wait(pilot)
        assert app.runtime.host.session.path == first
        assert transcript_user_texts(app) == ["fix the failing test"]


async def test_tree_continues_from_before_an_earlier_message(make_app, send, wait, wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")
        await send(pilot, "/name first")
        await send(pilot, "/tree", opens=SessionTreeScreen)
        tree = app.screen
        tree.list.highlighted = next(i for i, row in enumerate(tree.rows) if row.text.startswith("user: "))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))  # summarise the branch left?
        await pilot.press("enter")  # no summary
        await wait(pilot)
        assert app.main.editor.text == "fix the failing test"
        assert transcript_user_texts(app) == []
        await send(pilot, "a different start")
        assert transcript_user_texts(app) == ["a different start"]
        session = app.runtime.host.session
        users = [e for e in session.entries if e.get("type") == "message" and e["message"]["role"] == "user"]
        assert len(users) == 2 and users[0]["parentId"] == users[1]["parentId"]  # two branches, one parent


async def test_theme_is_applied_and_saved(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        assert app.theme == "dark"
        await send(pilot, "/theme light")
        assert app.theme == "light"
        assert tomllib.loads(settings_file().read_text(encoding="utf-8"))["theme"] == "light"
        await send(pilot, "/theme", opens=PickerScreen)
        picker = app.screen
        assert isinstance(picker, PickerScreen) and picker.current == "light"
        await pilot.press(*"dark", "enter")
        await wait(pilot)
        assert app.theme == "dark"


async def test_settings_overlay_saves_host_settings(make_app, send, wait, change, wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "/settings", opens=SettingsFormScreen)
        form = app.screen
        assert isinstance(form, SettingsFormScreen)
        assert "condense.enabled" not in form.fields  # pruning has its own overlay
        for field, value in (("default_thinking_level", "high"), ("theme", "light")):
            await change(pilot, field)  # more than a few options: a picker
            await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
            await pilot.press(*value, "enter")
            await wait_for(pilot, lambda: app.screen is form)
        saved = tomllib.loads(settings_file().read_text(encoding="utf-8"))
        assert saved["default_thinking_level"] == "high" and saved["theme"] == "light"
        assert app.theme == "light" and app.settings.default_thinking_level == "high"


async def test_hotkeys_lists_every_binding_with_its_id(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/hotkeys", opens=TextViewScreen)
        assert isinstance(app.screen, TextViewScreen)
        rows = app.screen.text.splitlines()
        follow_up = rows[rows.index(" " * KEYS_COLUMN + "id editor.follow-up") - 1]  # the id under its keys
        assert follow_up.split()[0] == "alt+enter" and "`" not in app.screen.text and "|" not in app.screen.text
        described = [row for row in rows if row.startswith("  ") and row[KEYS_COLUMN - 1] == " "]
        assert all(row[KEYS_COLUMN] != " " for row in described)  # one aligned column: what, then the id


async def test_bare_pruner_opens_a_picker_of_its_subcommands(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/pruner", opens=PickerScreen)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert {"settings", "tree", "now", "status", "model"} <= {choice.value for choice in picker.choices}
        await pilot.press(*"model", "enter")
        await wait(pilot)
        assert app.main.editor.text == "/pruner model "  # it takes an argument: the user writes it
        app.main.editor.load_text("")
        await send(pilot, "/pruner", opens=PickerScreen)
        await pilot.press(*"status", "enter")
        await wait(pilot)
        note = list(app.main.transcript.query(NoteBlock))[-1]
        assert str(note.content).startswith("pruner: ON")


async def test_quit_exits(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/quit")
        assert app.return_code == 0 and not app.is_running
