"""A Pi user's `~/.pi/agent` works in the TUI as it is: the models.json provider answers, the prompt template
and the skill complete on Tab and reach the model expanded, the skill is listed in the system prompt."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai.litellm_client import LiteLLMClient
from pi_tui.commands.model import model_choices
from pi_tui.runtime.build import LaunchOptions, build_runtime
from pi_tui.settings import LiveSettings, Settings
from pi_tui.tui.app import PiApp, TuiBridge
from tests.support.fake_openai import FakeOpenAI, text_reply
from tests.support.pi_home import KEY_VARIABLE, MODEL, PROVIDER, SKILL, TEMPLATE, pi_user_files

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning:litellm"),
    pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning"),
]
REF = f"{PROVIDER}/{MODEL}"


def app_on_pi_files(tmp_path: Path, fake_openai: FakeOpenAI) -> PiApp:
    pi_user_files(fake_openai.base_url)
    settings, bridge, client = LiveSettings(Settings()), TuiBridge(), LiteLLMClient()
    options = LaunchOptions(model=REF, launch_dir=tmp_path)
    runtime = build_runtime(options, settings, ui=bridge, client=client)
    return PiApp(runtime, settings, bridge, options, client=client, watch=False, cwd_display="~/project")


async def test_tab_completes_the_template_and_the_skill_with_their_descriptions(
        tmp_path: Path, fake_openai: FakeOpenAI, wait: Callable[[Any], Any], shown: Callable[[Any], str]) -> None:
    app = app_on_pi_files(tmp_path, fake_openai)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        assert f"skills and prompts: /{TEMPLATE} /skill:{SKILL}" in shown(app)
        await pilot.press(*"/rev")
        await pilot.pause()
        assert [(s.label, s.description) for s in app.main.menu.suggestions] == [
            (f"/{TEMPLATE}", "Review a file for bugs (user)")]
        await pilot.press("tab")
        await pilot.pause()
        assert app.main.editor.text == f"/{TEMPLATE} "
        app.main.editor.load_text("")
        await pilot.press(*"/skill:rel")
        await pilot.pause()
        assert [s.label for s in app.main.menu.suggestions] == [f"/skill:{SKILL}"]
        assert REF in [choice.label for choice in model_choices(app.command_context)]


async def test_a_template_reaches_the_models_json_provider_expanded_with_the_skills_listed(
        tmp_path: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch,
        send: Callable[..., Any], wait_for: Callable[..., Any]) -> None:
    monkeypatch.setenv(KEY_VARIABLE, "sk-local")
    fake_openai.push(text_reply("No bugs."))
    app = app_on_pi_files(tmp_path, fake_openai)
    async with app.run_test(size=(110, 30)) as pilot:
        await send(pilot, f"/{TEMPLATE} src/app.py the tax rule")
        await wait_for(pilot, lambda: app.runtime.host.is_idle and len(fake_openai.requests) == 1)
    system, user = fake_openai.requests[0]["messages"]
    assert user["content"] == [{"type": "text", "text": "Review src/app.py for bugs. Focus: the tax rule"}]
    assert f"<name>{SKILL}</name>" in system["content"] and fake_openai.authorizations == ["Bearer sk-local"]
    replies = [e["message"] for e in app.runtime.host.session.entries if e["type"] == "message"]
    assert (replies[-1]["provider"], replies[-1]["model"]) == (PROVIDER, MODEL), "recorded as Pi records it"
