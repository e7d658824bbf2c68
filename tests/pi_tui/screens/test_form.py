"""The settings overlay: what its hint says Enter does is what Enter does."""

from __future__ import annotations

from pi_tui.screens.form import SettingsFormScreen
from pi_tui.screens.picker import PickerScreen
from tests.support.tui import change_field


async def test_the_hint_says_what_enter_does_on_a_choice(make_app, send, wait, wait_for, shown) -> None:
    app = make_app()
    async with app.run_test(size=(200, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "/settings", opens=SettingsFormScreen)
        form = app.screen
        assert isinstance(form, SettingsFormScreen)
        assert "short choices move on, long ones open a list" in shown(app)
        await change_field(pilot, "theme")  # more than a few themes: a list to pick from
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is form)
        before = app.settings.double_escape_action  # tree, fork or none: a few, so Enter moves on
        await change_field(pilot, "double_escape_action")
        await wait_for(pilot, lambda: app.settings.double_escape_action != before)
        assert app.screen is form
