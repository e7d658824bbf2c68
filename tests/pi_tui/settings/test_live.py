"""Settings apply where they are changed: `/pruner`, its overlay, `/settings` and an edit of settings.toml
made outside the app all reach the running engine or agent, and every later `/new` and `/resume` session."""

from __future__ import annotations

import tomllib

from pi_tui.paths import settings_file
from pi_tui.screens.form import SettingsFormScreen
from pi_tui.screens.picker import PickerScreen


async def test_a_pruner_overlay_change_reaches_the_next_session(make_app, send, wait, change) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "/pruner settings", opens=SettingsFormScreen)
        await change(pilot, "min_batch_chars", "250")
        await pilot.press("escape")
        assert app.settings.condense.min_batch_chars == 250
        await send(pilot, "/new")
        assert app.runtime.engine.config.min_batch_chars == 250
        await send(pilot, "/pruner settings", opens=SettingsFormScreen)
        assert app.screen.values["min_batch_chars"] == 250


async def test_pruner_off_stays_off_in_new_and_resumed_sessions(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")  # a session worth resuming
        first = app.runtime.host.session.path
        await send(pilot, "/pruner off")
        await send(pilot, "/new")
        assert not app.runtime.engine.config.enabled
        assert app.bridge.statuses["condense"] == "│ prune: OFF"
        await send(pilot, "/resume", opens=PickerScreen)
        app.screen.dismiss(first)
        await wait(pilot)
        assert app.runtime.host.session.path == first
        assert not app.runtime.engine.config.enabled


async def test_a_general_setting_applies_to_the_running_agent_and_the_next_session(make_app, send, wait,
                                                                                   change) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "/settings", opens=SettingsFormScreen)
        await change(pilot, "steering_mode")  # one-at-a-time -> all
        assert app.runtime.host.config.steering_mode == "all"
        await pilot.press("escape")
        await send(pilot, "/new")
        assert app.runtime.host.config.steering_mode == "all"


async def test_an_outside_edit_of_condense_applies_live_and_is_not_written_back(make_app, send,
                                                                               wait_for) -> None:
    app = make_app(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.live is not None)
        path = settings_file()
        engine = app.runtime.engine
        for attempt in range(50):  # until the watcher, which starts in a worker, has seen an edit
            text = f"# mine, edit {attempt}\n[condense]\nmin_batch_chars = 300\nenabled = false\n"
            path.write_text(text, encoding="utf-8")
            try:
                await wait_for(pilot, lambda: engine.config.min_batch_chars == 300, timeout=1.0)
                break
            except AssertionError:
                continue
        assert not engine.config.enabled and app.bridge.statuses["condense"] == "│ prune: OFF"
        assert app.settings.condense.min_batch_chars == 300
        assert path.read_text(encoding="utf-8") == text  # applied, never saved over the user's comments
        old = app.runtime
        app.main.editor.load_text("/new")  # the watchers never finish: wait for the new session, not for them
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.runtime is not old and app.live.runtime is app.runtime)
        assert app.runtime.engine.config.min_batch_chars == 300
        await send(pilot, "/pruner settings", opens=SettingsFormScreen)
        form = app.screen
        assert form.values["min_batch_chars"] == 300
        assert tomllib.loads(path.read_text(encoding="utf-8"))["condense"]["min_batch_chars"] == 300
        path.write_text(text + "recovery_grace_turns = 7\n", encoding="utf-8")  # edited while the overlay is open
        await wait_for(pilot, lambda: " 7" in form.list.get_option("recovery_grace_turns").prompt.plain.split("\n")[0])


async def test_the_pruning_overlay_fits_80_columns_and_reads_like_text(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await send(pilot, "/pruner settings", opens=SettingsFormScreen)
        form = app.screen
        width = form.list.scrollable_content_region.width
        assert form.query_one("#form").region.right <= 80
        for dotted, spec in form.fields.items():
            prompt = form.list.get_option(dotted).prompt
            first = prompt.plain.split("\n")[0]
            assert len(first) <= width, first  # name and value on one line
            assert "`" not in prompt.plain  # descriptions render their Markdown
            if spec.kind == "bool":
                assert first.split()[-1] in ("On", "Off")


async def test_every_general_setting_says_what_it_does(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await send(pilot, "/settings", opens=SettingsFormScreen)
        form = app.screen
        assert all(spec.description for spec in form.fields.values())
        assert not any("`" in form.list.get_option(dotted).prompt.plain for dotted in form.fields)


async def test_the_light_theme_colours_the_editor_and_the_footer(make_app, send, wait, wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await send(pilot, "/theme light")
        light = app.available_themes["light"]
        await wait_for(pilot, lambda: app.main.editor.rich_style.bgcolor.name.lower() == light.background)
        footer = app.main.footer.rich_style
        assert footer.bgcolor.name.lower() == light.background
        assert footer.color.name.lower() == light.variables["muted"]
        assert app.main.editor.rich_style.color.name.lower() == light.foreground
