"""A setting changed in the app is written into the user's settings.toml without disturbing the rest of it."""

from __future__ import annotations

from pi_tui.paths import settings_file

HAND_WRITTEN = """\
# pi-tui settings, kept by hand
theme = "dark"  # easier on the eyes at night

# not a pi-tui key yet: mine
future_option = "kept"

[retry]
# give flaky proxies a chance
maxRetries = 7
"""


async def test_theme_from_the_app_keeps_comments_order_and_unknown_keys(make_app, send, wait) -> None:
    path = settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/theme light")
        assert app.theme == "light"
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN.replace('"dark"', '"light"')
