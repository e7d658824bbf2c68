"""What the screens look like, pinned as SVG snapshots (regenerate deliberately: `--snapshot-update`).

Every snapshot is of the fixed session (fixed texts, ids and usage; the footer shows `~/project`; the
clock is a counter; cursors do not blink; no notices, which time out), at a fixed terminal size.
"""

from __future__ import annotations

from typing import Any

from pi_tui.screens.form import SettingsFormScreen
from pi_tui.screens.pruner_tree import PrunerTreeScreen

SIZE = (100, 36)


def test_main_screen(make_app, fixed_session, wait, snap_compare) -> None:
    app = make_app(session=fixed_session(), model=None)

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await wait(pilot)
        app.clear_notifications()  # notices time out: a loaded machine may or may not still show them

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_pruner_tree(make_app, fixed_session, wait, send, snap_compare) -> None:
    app = make_app(session=fixed_session(), model=None)

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await wait(pilot)
        app.clear_notifications()  # notices time out: a loaded machine may or may not still show them
        await send(pilot, "/pruner tree", opens=PrunerTreeScreen)
        await pilot.press("down", "down")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_pruner_settings_overlay(make_app, fixed_session, wait, send, snap_compare) -> None:
    app = make_app(session=fixed_session(), model=None)

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await wait(pilot)
        app.clear_notifications()  # notices time out: a loaded machine may or may not still show them
        await send(pilot, "/pruner settings", opens=SettingsFormScreen)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_flush_progress_rows(make_app, fixed_session, wait, snap_compare) -> None:
    app = make_app(session=fixed_session(), model=None)

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await wait(pilot)
        app.clear_notifications()  # notices time out: a loaded machine may or may not still show them
        status = app.main.status
        status.working.show("Summarizing pending tool work… (esc to abort)")
        for batch, state, chars in ((0, "done", 1234), (1, "running", 512), (2, "failed", 0)):
            status.progress.report(batch, state, chars)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_pruner_settings_overlay_at_80_columns(make_app, fixed_session, wait, send, snap_compare) -> None:
    app = make_app(session=fixed_session(), model=None)

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await wait(pilot)
        app.clear_notifications()  # notices time out: a loaded machine may or may not still show them
        await send(pilot, "/pruner settings", opens=SettingsFormScreen)
        await pilot.press("down", "down", "enter")  # batching_mode: turn -> agent-message
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
