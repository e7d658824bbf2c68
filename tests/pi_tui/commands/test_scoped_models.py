"""`/scoped-models` chooses the models Ctrl+P and Shift+Ctrl+P cycle through (saved as Pi's enabledModels);
the keys switch the session's model in that order and the footer shows it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pi_tui.commands import app_registry
from pi_tui.commands.scoped_models import SAVE
from pi_tui.paths import settings_file
from pi_tui.screens.picker import PickerScreen
from pi_tui.settings import Settings
from tests.pi_tui.commands.test_handlers import RecordingContext

OPENAI, ANTHROPIC, GROQ = "openai/gpt-5.1", "anthropic/claude-sonnet-4-5", "groq/llama-3.3-70b-versatile"


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


async def test_escape_leaves_the_choice_as_it_was(tmp_path: Path) -> None:
    context = RecordingContext(tmp_path, [OPENAI, None])
    assert await app_registry(context).dispatch("/scoped-models")
    assert not settings_file().exists() and context.settings.enabled_models == []


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
