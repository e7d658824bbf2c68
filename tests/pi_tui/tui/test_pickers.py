"""Pickers and the `/pruner tree` filter: what the user types into a filter is on screen while they type."""

from __future__ import annotations

from pi_tui.screens.picker import PickerScreen
from pi_tui.screens.pruner_tree import PrunerTreeScreen


def filter_row(text: str, typed: str) -> str:
    return next((line for line in text.splitlines() if typed in line and "│" in line), "")


async def test_every_picker_shows_the_filter_text_being_typed(make_app, send, wait, wait_for, shown) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")
        await send(pilot, "/new")  # so that /resume has a session to offer
        for command, typed in (("/model", "dem"), ("/theme", "lig"), ("/resume", "fix"), ("/pruner", "sta")):
            await send(pilot, command, opens=PickerScreen)
            await pilot.press(*typed)
            picker = app.screen
            assert isinstance(picker, PickerScreen)
            await wait_for(pilot, lambda: picker.input.value == typed)  # noqa: B023
            await wait_for(pilot, lambda: filter_row(shown(app), typed) != "")  # noqa: B023
            assert filter_row(shown(app), typed).split("│")[1].strip() == typed, command
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.main)


async def test_the_pruner_tree_filter_shows_what_is_typed(make_app, fixed_session, send, wait_for,
                                                          shown) -> None:
    app = make_app(session=fixed_session(), model=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/pruner tree", opens=PrunerTreeScreen)
        await pilot.press("slash", *"pricing")
        screen = app.screen
        assert isinstance(screen, PrunerTreeScreen)
        await wait_for(pilot, lambda: screen.filter_input.value == "pricing")
        await wait_for(pilot, lambda: filter_row(shown(app), "pricing").split("│")[1].strip() == "pricing")
        assert "t2 read invoicer/pricing.py" in shown(app)
        assert "t1 bash" not in shown(app)
