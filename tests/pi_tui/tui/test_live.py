"""A model request that fails is said once in the transcript, in the provider's one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai import litellm_client
from pi_tui.ai.litellm_client import LiteLLMClient
from pi_tui.runtime.build import LaunchOptions, build_runtime
from pi_tui.settings import LiveSettings, Settings
from pi_tui.tui.app import PiApp, TuiBridge
from pi_tui.widgets.assistant import AssistantBlock
from tests.support.fake_openai import FakeOpenAI, server_error, text_reply


async def test_a_missing_key_is_said_once_and_writes_no_turn(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, send, wait, wait_for, shown) -> None:
    monkeypatch.setattr(litellm_client, "warm_up", lambda: None)  # not the 5 s import: no request is sent
    settings, bridge, client = LiveSettings(Settings()), TuiBridge(), LiteLLMClient()
    options = LaunchOptions(model="anthropic/claude-sonnet-4-5", launch_dir=tmp_path)
    runtime = build_runtime(options, settings, ui=bridge, client=client)
    app = PiApp(runtime, settings, bridge, options, client=client, watch=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "hi")
        await wait_for(pilot, lambda: runtime.host.is_idle and "no API key" in shown(app))
        await wait(pilot)
        assert shown(app).count("no API key for anthropic: set ANTHROPIC_API_KEY") == 1
        assert runtime.host.agent.messages == []
        assert [e["type"] for e in runtime.host.session.entries] == ["model_change", "thinking_level_change"]
        assert not list(app.main.transcript.query(AssistantBlock))



def served_app(tmp_path: Path, fake_openai: FakeOpenAI, retry: dict[str, Any]) -> PiApp:
    """The app on litellm, its model served by `fake_openai`, with the `[retry]` settings given."""
    settings = LiveSettings(Settings.model_validate({"retry": retry}))
    bridge, client = TuiBridge(), LiteLLMClient()
    options = LaunchOptions(model="openai/fake-model", base_url=fake_openai.base_url, launch_dir=tmp_path)
    runtime = build_runtime(options, settings, ui=bridge, client=client)
    return PiApp(runtime, settings, bridge, options, client=client, watch=False)


async def test_a_retried_failure_passes_in_the_status_and_the_final_one_is_shown_once(
        tmp_path: Path, fake_openai: FakeOpenAI, send, wait, wait_for) -> None:
    fake_openai.push(*(server_error(503) for _ in range(4)))
    app = served_app(tmp_path, fake_openai, {"base_delay_ms": 1})
    runtime = app.runtime
    retries: list[int] = []
    runtime.host.bus.on("auto_retry_start", lambda e: retries.append(e["attempt"]))
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: runtime.host.is_idle and len(fake_openai.requests) == 4, timeout=60)
        await wait(pilot)
        assert retries == [1, 2, 3]
        errors = [str(line.render()) for line in app.main.transcript.query(".assistant-error")]
        assert len(errors) == 1 and errors[0].startswith("Error: ")
        assert len(list(app.main.transcript.query(AssistantBlock))) == 1


async def test_a_stream_with_a_chunk_that_is_not_json_is_said_as_a_malformed_stream(
        tmp_path: Path, fake_openai: FakeOpenAI, send, wait, wait_for) -> None:
    fake_openai.push(text_reply("half an answer that breaks", invalid_json_at=2))
    app = served_app(tmp_path, fake_openai, {"enabled": False})
    runtime = app.runtime
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: runtime.host.is_idle and len(fake_openai.requests) == 1, timeout=60)
        await wait(pilot)
        [error] = [str(line.render()) for line in app.main.transcript.query(".assistant-error")]
        assert f"{fake_openai.base_url} sent a malformed stream (a chunk that is not JSON)" in error
        assert "check that server" in error and "line 1 column" not in error


async def test_the_retry_status_fits_80_columns(tmp_path: Path, fake_openai: FakeOpenAI, wait, wait_for,
                                                shown) -> None:
    fake_openai.push(server_error(503))
    app = served_app(tmp_path, fake_openai, {"base_delay_ms": 60_000})
    runtime = app.runtime
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        app.main.editor.load_text("hello")
        await pilot.press("enter")  # not `send`: it waits for the run, and the retry waits a minute
        said = "Retrying in 60s (attempt 1/3): HTTP 503: Service unavailable."
        await wait_for(pilot, lambda: said in shown(app), timeout=60)
        [row] = [line for line in shown(app).splitlines() if "Retrying" in line]
        assert "Try again" not in row and row.rstrip().endswith(said)
        await pilot.press("escape")
        await wait_for(pilot, lambda: runtime.host.is_idle)
