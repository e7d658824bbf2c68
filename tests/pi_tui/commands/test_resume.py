"""/resume reaches every session: Tab switches its picker between this folder's sessions and every
folder's (Pi's key), a deleted folder's included, and Pi's own sessions are offered, marked `pi`."""

from __future__ import annotations

from pathlib import Path

from pi_tui.paths import sessions_root
from pi_tui.screens.session_picker import SessionPickerScreen
from pi_tui.session.listing import pi_sessions_root
from tests.support.session_lines import saved_session
from tests.support.tui import transcript_user_texts


async def test_tab_switches_the_picker_to_every_folder_and_back(make_app, send, wait, wait_for, shown,
                                                                tmp_path: Path) -> None:
    here, gone = tmp_path / "launch", tmp_path / "deleted-project"
    saved_session(sessions_root(), here, "fix the parser", "ours-1", modified=1_000)
    pis = saved_session(pi_sessions_root(), here, "write the docs", "pis-1", modified=2_000)
    other = saved_session(sessions_root(), gone, "old work", "ours-2", modified=3_000)
    before = other.read_bytes()
    app = make_app(launch_dir=here)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/resume", opens=SessionPickerScreen)
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        assert [choice.label for choice in picker.shown] == ["write the docs", "fix the parser"]
        assert picker.shown[0].value == pis
        assert picker.shown[0].description.endswith(" · 2 entries · pi")
        assert "Resume a session (this folder)" in shown(app) and "Tab: all folders" in shown(app)
        await pilot.press("tab")
        await wait_for(pilot, lambda: len(picker.shown) == 3)
        assert [choice.label for choice in picker.shown] == ["old work", "write the docs", "fix the parser"]
        assert picker.shown[0].description.endswith(f" · {gone}")
        await wait_for(pilot, lambda: "Resume a session (all folders)" in shown(app))
        assert "Tab: this folder" in shown(app)
        await pilot.press("tab")
        await wait_for(pilot, lambda: len(picker.shown) == 2)
        assert "Resume a session (this folder)" in shown(app)
        await pilot.press("tab", *"old")
        await wait_for(pilot, lambda: [choice.label for choice in picker.shown] == ["old work"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: transcript_user_texts(app) == ["old work"])
        assert other.read_bytes() == before  # the demo continues a session it did not make in a new file


async def test_a_folder_without_sessions_still_opens_the_picker_to_reach_the_others(make_app, send, wait,
                                                                                    wait_for, shown,
                                                                                    tmp_path: Path) -> None:
    other = saved_session(sessions_root(), tmp_path / "elsewhere", "old work", "ours-2", modified=3_000)
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/resume", opens=SessionPickerScreen)
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        assert picker.shown == []
        await wait_for(pilot, lambda: "no sessions in this folder · Tab: all folders" in shown(app))
        await pilot.press("tab")
        await wait_for(pilot, lambda: [choice.value for choice in picker.shown] == [other])


async def test_a_pi_session_opens_from_the_picker_and_pis_file_stays_as_it_was(make_app, send, wait, wait_for,
                                                                               tmp_path: Path) -> None:
    here = tmp_path / "launch"
    pis = saved_session(pi_sessions_root(), here, "write the docs", "pis-1", modified=2_000)
    before = pis.read_bytes()
    app = make_app(launch_dir=here)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/resume", opens=SessionPickerScreen)
        await pilot.press("enter")
        await wait_for(pilot, lambda: transcript_user_texts(app) == ["write the docs"])
        await send(pilot, "fix the failing test")
        assert transcript_user_texts(app) == ["write the docs", "fix the failing test"]
        assert pis.read_bytes() == before  # the demo's turns go to a new file of pi-tui's
