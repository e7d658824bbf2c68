"""Themes (shipped, user, broken, reloaded live) and remappable keys."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

import pytest
from textual.color import Color
from textual.theme import BUILTIN_THEMES

from pi_tui.paths import settings_file
from pi_tui.screens.picker import PickerScreen
from pi_tui.screens.text_view import TextViewScreen
from pi_tui.settings import Settings
from pi_tui.themes import (
    PI_VARIABLES,
    SHIPPED_DIR,
    ThemeError,
    load_theme_file,
    load_user_themes,
    shipped_themes,
    user_themes_dir,
    variable_defaults,
    watch_themes,
)
from pi_tui.widgets.keymap import APP, EDITOR, GROUPS, KEYS_COLUMN, hotkeys_text
from tests.support.tui import edit_file, transcript_notes

MINE = """name = "mine"
dark = true
[colors]
primary = "#ff8800"
background = "#101010"
[variables]
user-message-bg = "{bg}"
"""


def test_the_shipped_themes_define_every_pi_variable() -> None:
    themes = {theme.name: theme for theme in shipped_themes()}
    assert set(themes) == {"dark", "light"}
    assert themes["light"].dark is False
    for theme in themes.values():
        assert set(PI_VARIABLES) <= set(theme.variables), theme.name


def test_the_shipped_themes_pass_the_check_user_themes_get() -> None:
    """They load unchecked (pydantic stays off the first frame's path): a mistake in them shows here."""
    checked = {theme.name: theme for theme in map(load_theme_file, sorted(SHIPPED_DIR.glob("*.toml")))}
    assert checked == {theme.name: theme for theme in shipped_themes()}


def test_variables_are_derived_for_themes_that_do_not_set_them() -> None:
    derived = variable_defaults(BUILTIN_THEMES["nord"])
    assert set(derived) == set(PI_VARIABLES)
    for value in derived.values():
        Color.parse(value)


def test_a_broken_theme_file_is_one_line_naming_the_file_and_the_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[colors]\nprimary = "#12345z"\n', encoding="utf-8")
    with pytest.raises(ThemeError, match=r"^bad\.toml: colors\.primary: not a colour: '#12345z'"):
        load_theme_file(bad)
    bad.write_text("[colors\n", encoding="utf-8")
    with pytest.raises(ThemeError, match=r"^bad\.toml: not valid TOML"):
        load_theme_file(bad)
    bad.write_text('[colors]\nprimary = "#fff"\n[variables]\nmuted = "loud"\n', encoding="utf-8")
    with pytest.raises(ThemeError, match=r"variables: muted: not a colour: 'loud'"):
        load_theme_file(bad)
    (tmp_path / "good.toml").write_text(MINE.format(bg="#202020"), encoding="utf-8")
    themes, errors = load_user_themes(tmp_path)
    assert [theme.name for theme in themes] == ["mine"] and len(errors) == 1 and "\n" not in errors[0]


async def test_a_user_theme_is_chosen_from_the_settings_and_reloaded_when_its_file_changes(make_app,
                                                                                           wait_for) -> None:
    folder = user_themes_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mine.toml"
    path.write_text(MINE.format(bg="#202020"), encoding="utf-8")
    app = make_app(settings=Settings(theme="mine"), watch=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.live is not None)
        assert app.theme == "mine"
        assert app.theme_variables["user-message-bg"] == "#202020"
        await wait_for(pilot, lambda: app.theme_variables.get("user-message-bg") == "#303060",
                       every=edit_file(path, MINE.format(bg="#303060")))
        app.main.editor.load_text("hi")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(list(app.main.transcript.query("UserBlock"))))
        block = app.main.transcript.query_one("UserBlock")
        assert block.styles.background == Color.parse("#303060")
        await wait_for(pilot, lambda: any("mine.toml" in text for _, text in transcript_notes(app)),
                       every=edit_file(path, "[colors]\nprimary = 12"))
        assert app.theme == "mine"  # the last good version stays


async def test_theme_offers_a_file_copied_into_the_folder_while_pi_tui_runs(make_app, send, wait,
                                                                              wait_for) -> None:
    app = make_app()  # no watcher: what /theme lists is the folder as it is when it is asked
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        folder = user_themes_dir()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "mine.toml").write_text(MINE.format(bg="#202020"), encoding="utf-8")
        await send(pilot, "/theme", opens=PickerScreen)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert "mine" in [choice.value for choice in picker.choices]
        await pilot.press(*"mine", "enter")
        await wait_for(pilot, lambda: app.theme == "mine")
        assert app.theme_variables["user-message-bg"] == "#202020"


async def test_an_outside_edit_of_the_settings_file_switches_theme_and_keys(make_app, wait_for) -> None:
    app = make_app(watch=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.live is not None)
        await wait_for(pilot, lambda: app.theme == "light",
                       every=edit_file(settings_file(), 'theme = "light"\n[keymap]\n"app.expand-tools" = "f3"'))
        await wait_for(pilot, lambda: app.settings.keymap == {"app.expand-tools": "f3"})
        await pilot.press("f3")
        await wait_for(pilot, lambda: app.main.transcript.tools_expanded)


async def test_an_outside_edit_with_a_bad_key_says_so_once(make_app, wait_for) -> None:
    app = make_app(watch=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.live is not None)
        await wait_for(pilot, lambda: app.settings.keymap == {"app.expand-tools": "ctrl+nope"},
                       every=edit_file(settings_file(), '[keymap]\n"app.expand-tools" = "ctrl+nope"'))
        await wait_for(pilot, lambda: any("ctrl+nope" in text for _, text in transcript_notes(app)))
        await pilot.pause()
        said = [(level, text) for level, text in transcript_notes(app) if "ctrl+nope" in text]
        assert said == [("error", 'settings.toml: keymap.app.expand-tools: expected key names such as "ctrl+j" or '
                                  '"alt+enter", got "ctrl+nope"; keeping "ctrl+o"')]


async def test_an_unknown_theme_falls_back_to_dark_with_a_notice(make_app, wait) -> None:
    app = make_app(settings=Settings(theme="nope"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        assert app.theme == "dark"
        assert ("error", "theme 'nope' not found; using 'dark' (see /theme)") in transcript_notes(app)
        app.theme = "nord"  # Textual's own themes work too: pi-tui's colours are derived
        await pilot.pause()
        assert app.theme_variables["tool-success-bg"] == variable_defaults(BUILTIN_THEMES["nord"])[
            "tool-success-bg"]


async def test_keys_are_remapped_by_binding_id(make_app, fixed_session, wait) -> None:
    app = make_app(session=fixed_session(), model=None, settings=Settings(keymap={"app.expand-tools": "f2"}))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert not app.main.transcript.tools_expanded
        await pilot.press("f2")
        await pilot.pause()
        assert app.main.transcript.tools_expanded


def test_every_binding_has_a_unique_id_and_hotkeys_show_remaps() -> None:
    ids = [binding.id for bindings in GROUPS.values() for binding in bindings]
    assert all(ids) and len(ids) == len(set(ids))
    assert {b.id for b in APP} >= {"app.abort", "app.expand-tools", "app.toggle-thinking"}
    assert {b.id for b in EDITOR} >= {"editor.submit", "editor.follow-up"}
    listing = hotkeys_text({"editor.submit": "ctrl+j"}).splitlines()
    row = listing[listing.index(" " * KEYS_COLUMN + "id editor.submit") - 1]
    assert row.split()[0] == "ctrl+j" and "send (steers while the agent works)" in row


async def test_hotkeys_fit_an_80_column_terminal(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(80, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/hotkeys", opens=TextViewScreen)
        text = app.screen.query_one("#view-text")
        lines = hotkeys_text({}).splitlines()
        assert text.virtual_size.height == len(lines)  # no row wraps onto a second line
        assert "  ctrl+right, alt+right" in lines  # key lists read as lists


async def test_the_theme_watcher_creates_the_home_and_its_themes_folder_private(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("PI_TUI_HOME", str(home))
    stop = asyncio.Event()
    stop.set()  # the watcher makes its folder, then ends at once
    await watch_themes(lambda path: None, stop)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE(user_themes_dir().stat().st_mode) == 0o700
