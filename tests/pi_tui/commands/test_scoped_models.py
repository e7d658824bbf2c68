"""`/scoped-models` chooses the models Ctrl+P and Shift+Ctrl+P cycle through (saved as Pi's enabledModels);
the keys switch the session's model in that order, the footer shows it and the transcript says it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pi_tui.commands import app_registry
from pi_tui.commands.scoped_models import SAVE, cycle
from pi_tui.paths import settings_file
from pi_tui.screens.picker import PickerScreen
from pi_tui.settings import Settings
from tests.pi_tui.commands.test_handlers import RecordingContext
from tests.support.tui import transcript_notes

OPENAI, ANTHROPIC, GROQ = "openai/gpt-5.1", "anthropic/claude-sonnet-4-5", "groq/llama-3.3-70b-versatile"
GPT_4O = "openai/gpt-4o"


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GROQ_API_KEY"):
        monkeypatch.setenv(name, "sk-test")


async def test_scoped_models_toggles_models_and_saves_them(tmp_path: Path) -> None:
    context = RecordingContext(tmp_path, [ANTHROPIC, OPENAI, ANTHROPIC, GROQ, SAVE])
    assert await app_registry(context).dispatch("/scoped-models")
    assert tomllib.loads(settings_file().read_text(encoding="utf-8"))["enabled_models"] == [OPENAI, GROQ]
    assert context.settings.enabled_models == [OPENAI, GROQ]
    last = context.asked[-1]
    assert isinstance(last, PickerScreen)
    assert [c.label for c in last.choices][:1] == ["✓ save"] and f"[x] {GROQ}" in [c.label for c in last.choices]
    assert context.notes[-1].startswith(f"Ctrl+P and Shift+Ctrl+P now cycle through {OPENAI}, {GROQ}")


async def test_escape_keeps_the_choice_for_the_session_says_so_and_saves_nothing(tmp_path: Path) -> None:
    context = RecordingContext(tmp_path, [OPENAI, GROQ, None])
    assert await app_registry(context).dispatch("/scoped-models")
    assert not settings_file().exists() and context.settings.enabled_models == []
    assert cycle(context) == [OPENAI, GROQ]  # as in Pi: a toggle applies to the session at once
    assert context.notes == [f"warning: Ctrl+P and Shift+Ctrl+P cycle through {OPENAI}, {GROQ} for this session, "
                             "not saved: /scoped-models and ✓ save keep them"]
    context.answers = [SAVE]  # opened again: the session's choice, saved with the save row
    assert await app_registry(context).dispatch("/scoped-models")
    assert tomllib.loads(settings_file().read_text(encoding="utf-8"))["enabled_models"] == [OPENAI, GROQ]
    assert context.scoped_models is None and cycle(context) == [OPENAI, GROQ]


async def test_escape_with_nothing_toggled_closes_without_a_word(tmp_path: Path) -> None:
    context = RecordingContext(tmp_path, [None])
    assert await app_registry(context).dispatch("/scoped-models")
    assert context.notes == [] and not settings_file().exists()


async def test_the_list_says_what_esc_does_and_that_a_toggle_is_not_saved(make_app, wait, wait_for,
                                                                          shown) -> None:
    app = make_app(model=OPENAI)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        app.main.editor.load_text("/scoped-models")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert "Esc closes: the choice holds for this session only" in str(picker.hint_line.render())
        await pilot.press("down", "enter")  # the first model toggled; the list opens again
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen) and "(not saved)" in shown(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: "for this session, not saved" in " ".join(shown(app).split()))
        assert not settings_file().exists()


async def test_ctrl_p_cycles_the_scoped_models_forward_and_back(make_app, wait, wait_for, shown) -> None:
    settings = Settings.model_validate({"enabled_models": [OPENAI, ANTHROPIC, GROQ, "xai/grok-4"]})  # no xAI key
    app = make_app(model=OPENAI, settings=settings)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait(pilot)
        seen = []
        for key in ("ctrl+p", "ctrl+p", "ctrl+p", "ctrl+shift+p"):
            await pilot.press(key)
            await wait(pilot)
            seen.append(app.runtime.model.ref)
        assert seen == [ANTHROPIC, GROQ, OPENAI, GROQ], "in order, round, back; the model without a key passed over"
        await wait_for(pilot, lambda: "llama-3.3-70b-versatile" in shown(app).splitlines()[-2])  # the footer
        assert app.runtime.host.session.build_context().model == ("groq", "llama-3.3-70b-versatile")


async def test_with_nothing_chosen_ctrl_p_goes_through_the_models_with_a_key(make_app, wait) -> None:
    app = make_app(model=OPENAI)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait(pilot)
        await pilot.press("ctrl+p")
        await wait(pilot)
        assert app.runtime.model.ref == GROQ, "the next provider with a key after openai, in /model's order"


async def test_ctrl_p_says_the_model_it_switched_to_in_the_transcript(make_app, wait) -> None:
    settings = Settings.model_validate({"enabled_models": [OPENAI, ANTHROPIC, GPT_4O],
                                        "default_thinking_level": "high"})
    app = make_app(model=OPENAI, settings=settings)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait(pilot)
        said = []
        for key in ("ctrl+p", "ctrl+p", "ctrl+shift+p"):
            await pilot.press(key)
            await wait(pilot)
            said.append(transcript_notes(app)[-1])
        assert said == [("info", f"Switched to {ANTHROPIC} (thinking: high)"),
                        ("info", f"Switched to {GPT_4O}"),  # not a reasoning model: no thinking level
                        ("info", f"Switched to {ANTHROPIC} (thinking: high)")]
        assert not app._notifications, "said where it stays, not in a toast"
