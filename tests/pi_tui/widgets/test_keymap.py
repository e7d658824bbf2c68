"""Keys as a terminal sends them, and `[keymap]` entries that cannot work."""

from __future__ import annotations

from textual.message import Message

from pi_tui.settings import Settings
from pi_tui.widgets.editor import PromptEditor
from pi_tui.widgets.keymap import GROUPS, KEYS_COLUMN, hotkeys_text
from tests.support.tui import type_raw


def sent(seen: list[Message]) -> list[tuple[str, bool]]:
    """What the editor sent, and whether as a follow-up (each message once, though the hook sees it bubble)."""
    unique = {id(m): m for m in seen if isinstance(m, PromptEditor.Submitted)}
    return [(m.text, m.follow_up) for m in unique.values()]


async def test_alt_enter_sent_as_escape_and_cr_queues_a_follow_up(make_app, wait, wait_for) -> None:
    seen: list[Message] = []
    app = make_app()
    async with app.run_test(size=(100, 30), message_hook=seen.append) as pilot:
        await wait(pilot)
        app.main.editor.load_text("/name later")
        type_raw(app, "\x1b\r")  # what tmux and most terminals send for Alt+Enter
        await wait_for(pilot, lambda: len(sent(seen)) == 1)
        app.main.editor.load_text("/name now")
        type_raw(app, "\r")
        await wait_for(pilot, lambda: len(sent(seen)) == 2)
        assert sent(seen) == [("/name later", True), ("/name now", False)]


async def test_bad_keymap_entries_are_reported_and_keep_the_default_keys(make_app, wait, wait_for) -> None:
    keymap = {"editor.sumbit": "ctrl+s", "app.expand-tools": "ctrl+nope", "app.toggle-thinking": "f6"}
    app = make_app(settings=Settings(keymap=keymap))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        notes = [item.message["text"] for item in app.main.transcript.conversation.items if item.kind == "note"]
        notices = "\n".join(notes).splitlines()  # one line each, kept in the transcript
        assert ('settings.toml: keymap.editor.sumbit: unknown key binding id, ignored; did you mean '
                '"editor.submit"?') in notices
        assert ('settings.toml: keymap.app.expand-tools: expected key names such as "ctrl+j" or "alt+enter", '
                'got "ctrl+nope"; keeping "ctrl+o"') in notices
        await pilot.press("ctrl+o")  # the default key still unfolds tool output
        await wait_for(pilot, lambda: app.main.transcript.tools_expanded)
        await pilot.press("f6")  # the good entry applies
        await wait_for(pilot, lambda: app.main.transcript.show_thinking)
        app.main.editor.load_text("/name still enter")
        await pilot.press("enter")
        await wait(pilot)
        assert app.runtime.host.session.name == "still enter"


def test_hotkeys_lists_every_binding_with_its_id_and_the_key_it_has_now() -> None:
    text = hotkeys_text({"editor.yank": "ctrl+b"})
    rows = text.splitlines()
    ids = [binding.id for bindings in GROUPS.values() for binding in bindings]
    assert all(f"{' ' * KEYS_COLUMN}id {binding_id}" in rows for binding_id in ids)
    for binding_id in ("app.suspend", "app.top", "editor.external", "editor.dequeue", "editor.yank",
                       "editor.yank-pop", "editor.cut-to-end", "editor.paste-image", "session-tree.label",
                       "session-tree.label-times"):
        assert binding_id in ids
    yank = rows[rows.index(f"{' ' * KEYS_COLUMN}id editor.yank") - 1]
    assert yank.split()[0] == "ctrl+b"  # the remapped key, not the default
    keys_of = {binding.id: binding.key for bindings in GROUPS.values() for binding in bindings}
    assert (keys_of["app.suspend"], keys_of["editor.external"], keys_of["editor.dequeue"]) == (
        "ctrl+z", "ctrl+g", "alt+up")
