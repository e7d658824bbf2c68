"""Pickers and the `/pruner tree` filter: what the user types into a filter is on screen while they type."""

from __future__ import annotations

from pi_tui.screens.picker import Choice, PickerScreen, filter_choices
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


async def test_the_pruner_picker_matches_names_first_and_keeps_each_choice_on_one_line(make_app, send, wait,
                                                                                       wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await send(pilot, "/pruner", opens=PickerScreen)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        # every choice on one line, its description cut with … (it wrapped under the next choice)
        await wait_for(pilot, lambda: picker.options.virtual_size.height == len(picker.shown))
        await pilot.press(*"sta")
        await wait_for(pilot, lambda: picker.input.value == "sta")
        names = [choice.label for choice in picker.shown]
        assert names and all("sta" in name for name in names), names  # no `off`, `dedup`, ...
        assert names[0].startswith("sta")
        await pilot.press(*["backspace"] * 3, *"summaries")  # in no name: the descriptions are searched
        await wait_for(pilot, lambda: picker.input.value == "summaries")
        assert picker.shown and all("summar" in choice.description.lower() for choice in picker.shown)


def test_a_fuzzy_filter_finds_the_tightest_match_first() -> None:
    far = Choice("b", "bedrock/us-gov-east-1/anthropic.claude-sonnet-4-5")  # s, o, n ... from "us-gov-east"
    near = Choice("a", "anthropic/claude-sonnet-4-5")
    assert filter_choices([far, near], "son45") == [near, far]
    assert filter_choices([far, near], "sonnet") == [far, near]  # a substring keeps the given order


async def test_enter_typed_in_one_burst_with_the_filter_chooses_what_was_typed(make_app, send, wait, wait_for,
                                                                               raw) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        before = app.theme
        assert before != "light"
        await send(pilot, "/theme", opens=PickerScreen)
        picker = app.screen
        await wait_for(pilot, lambda: picker.input.has_focus)  # mounted: the keys reach its filter
        raw(app, "ligh\r")  # a fast hand, a paste or tmux: every key queued before the first is handled
        # the choice is applied by the dismiss callback, which may run a beat after the picker is popped
        await wait_for(pilot, lambda: app.screen is app.main and app.theme != before)
        assert app.theme == "light"


async def test_a_long_label_gives_way_to_its_description_at_80_columns(make_app, wait, wait_for) -> None:
    """Two sessions that start with the same long message: their dates and sizes tell them apart (they
    were cut off the row's end at 80 columns)."""
    text = "check this: pasted line 1 pasted line 2 pasted line 3 pasted line 4 pasted line 5 and more"
    choices = [Choice(1, text, "2026-12-07 09:30 · 14 entries"), Choice(2, text, "2026-12-06 17:02 · 3 entries")]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        picker = PickerScreen("Resume a session", choices)
        app.push_screen(picker)

        def rows() -> list[str]:
            return [str(picker.options.get_option_at_index(i).prompt) for i in range(len(picker.shown))]

        await wait_for(pilot, lambda: len(rows()) == 2 and all(
            len(row) <= picker.options.scrollable_content_region.width for row in rows()))
        first, second = rows()
        assert first.endswith("2026-12-07 09:30 · 14 entries") and second.endswith("2026-12-06 17:02 · 3 entries")
        assert "…" in first and "…" in second


async def test_model_rows_are_told_apart_at_80_columns(make_app, send, wait, wait_for, shown) -> None:
    """Ids of one provider share their start: at 80 columns the picker takes the whole width and an id too
    long for its row keeps its end (they read `abliteration/ab…` four times over)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await send(pilot, "/model", opens=PickerScreen)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await pilot.press(*"abliteration/")
        await wait_for(pilot, lambda: len(picker.shown) == 4 and "abliterated" in shown(app))
        assert picker.query_one("#picker").outer_size.width == 80
        rows = [line for line in shown(app).splitlines() if "abliterated" in line]
        assert len(rows) == 4 and len(set(rows)) == 4
        for ending in ("model ", "model-large ", "large-v2 ", "large-flash "):
            assert sum(ending in row for row in rows) == 1, (ending, rows)
        await pilot.press(*["backspace"] * len("abliteration/"), *"claude-sonnet-4")
        await wait_for(pilot, lambda: picker.input.value == "claude-sonnet-4")
        labels = [choice.label for choice in picker.shown[:8]]
        await wait_for(pilot, lambda: all(label in shown(app) for label in labels))
