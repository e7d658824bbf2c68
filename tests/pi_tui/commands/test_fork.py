"""`/fork`: a picker of the session's user messages; the chosen one starts a new session file that
continues from just before it (naming the original as its parent) and goes back into the editor."""

from __future__ import annotations

from pathlib import Path

from pi_tui.commands import app_registry
from pi_tui.screens.picker import PickerScreen
from pi_tui.session.store import Session
from pi_tui.settings import Settings
from tests.pi_tui.commands.test_handlers import RecordingContext


async def test_fork_continues_in_a_new_file_from_before_the_chosen_message(tmp_path: Path) -> None:
    context = RecordingContext(tmp_path)
    host = context.runtime.host
    await host.prompt("fix the failing test")
    await host.prompt("and the next one")
    original = host.session
    second = next(e for e in original.entries if e.get("message", {}).get("content", [{}])[0].get("text")
                  == "and the next one")
    context.answers = [second["id"]]
    assert await app_registry(context).dispatch("/fork")

    picker = context.asked[-1]
    assert isinstance(picker, PickerScreen)
    assert [c.label for c in picker.choices] == ["fix the failing test", "and the next one"]
    assert picker.current == second["id"], "the newest message is highlighted, as in Pi"
    forked = context.runtime.host.session
    assert forked.path != original.path and context.attached[-1] == "fork"
    assert forked.header["parentSession"] == str(original.path)
    assert forked.leaf_id == second["parentId"] and second["id"] not in forked.by_id
    assert context.editor == "and the next one"
    assert context.notices[-1][1].startswith("forked into a new session")
    assert len(Session.open(str(original.path)).entries) == len(original.entries), "the original is untouched"


async def test_double_escape_opens_fork_when_the_settings_say_so(make_app, wait, wait_for) -> None:
    app = make_app(settings=Settings.model_validate({"double_escape_action": "fork"}))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await app.runtime.host.prompt("fix the failing test")
        await wait(pilot)
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.editor.text == "fix the failing test")
        forked = app.runtime.host.session
        assert [e["type"] for e in forked.entries] == ["model_change", "thinking_level_change"], \
            "forked from the first message: the settings before it, no message"
        assert app.runtime.host.session.header["parentSession"]
