"""`/model` lists every chat model litellm's map knows, marks those whose provider has a key, finds them
by fuzzy search, and says a refusal in the transcript (where it stays), not in a toast."""

from __future__ import annotations

import pytest

from pi_tui.ai.model_map import chat_models
from pi_tui.screens.picker import MAX_SHOWN, PickerScreen
from tests.support.pi_home import KEY_VARIABLE, MODEL, PROVIDER, pi_agent_dir, write_models_json
from tests.support.tui import transcript_notes


@pytest.fixture
def anthropic_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")


async def test_every_model_litellm_knows_is_listed_marked_and_found_fuzzily(make_app, send, wait, wait_for,
                                                                          anthropic_key: None) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/model", opens=PickerScreen)
        picker = app.screen
        refs = [choice.value for choice in picker.choices]
        assert len(refs) == len(set(refs)) == 1 + len(chat_models()) > 1000  # the demo and every chat model
        assert refs[:2] == ["demo", "anthropic/claude-sonnet-4-5"]  # a key's provider first, its usual model leading
        described = {choice.value: choice.description for choice in picker.choices}
        assert described["anthropic/claude-sonnet-4-5"] == "200k context · ✓ key"
        assert described["openai/gpt-5.1"] == "272k context · no key: set OPENAI_API_KEY"
        assert len(picker.shown) == MAX_SHOWN and "more: type to narrow" in str(picker.hint_line.content)
        await pilot.press(*"son45")
        await wait_for(pilot, lambda: bool(picker.shown) and picker.shown[0].value == "anthropic/claude-sonnet-4-5")
        picker.input.value = "gpt"
        await wait_for(pilot, lambda: bool(picker.shown) and all("gpt" in c.value for c in picker.shown))
        assert "openai/gpt-5.1" in [choice.value for choice in picker.shown]
        await pilot.press("escape")


async def test_a_model_without_its_key_is_refused_in_the_transcript(make_app, send, wait, wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/model", opens=PickerScreen)
        await pilot.press(*"son45")
        await wait_for(pilot, lambda: "claude-sonnet-4-5" in app.screen.shown[0].value)
        assert app.screen.shown[0].value == "anthropic/claude-sonnet-4-5"  # no key anywhere: usual models first
        await pilot.press("enter")
        await wait(pilot)
        assert app.runtime.model.provider == "demo"
        level, text = transcript_notes(app)[-1]
        assert (level, text) == ("error", "/model anthropic/claude-sonnet-4-5: not switched, still on demo: no API"
                                          " key for anthropic: set ANTHROPIC_API_KEY")
        assert not app._notifications  # nothing that vanishes before it is read


async def test_an_unknown_provider_is_refused_in_the_transcript(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/model nosuch/model-1")
        level, text = transcript_notes(app)[-1]
        assert level == "error"
        assert text.startswith("/model nosuch/model-1: not switched, still on demo: unknown provider 'nosuch'")
        assert app.runtime.model.provider == "demo"


async def test_a_model_the_models_json_provider_does_not_list_is_refused(make_app, send, wait,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    write_models_json(pi_agent_dir(), "http://127.0.0.1:9/v1")
    monkeypatch.setenv(KEY_VARIABLE, "sk-local")
    app = make_app(model=f"{PROVIDER}/{MODEL}")
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, f"/model {PROVIDER}/qwen-9")  # the provider's URL is no --base-url: not any name
        assert transcript_notes(app)[-1] == ("error", f"/model {PROVIDER}/qwen-9: not switched, still on"
                                             f" {PROVIDER}/{MODEL}: models.json's provider {PROVIDER} has no model"
                                             f" 'qwen-9': it has {MODEL}; add the model to models.json, or give"
                                             " --base-url to reach a server by any model name")
        assert app.runtime.model.ref == f"{PROVIDER}/{MODEL}"
