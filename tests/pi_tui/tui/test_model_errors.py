"""A model request that fails is said once in the transcript, in the provider's one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.ai import litellm_client
from pi_tui.ai.litellm_client import LiteLLMClient
from pi_tui.app import PiApp, TuiBridge
from pi_tui.runtime import LaunchOptions, build_runtime
from pi_tui.settings import Settings
from pi_tui.widgets.assistant import AssistantBlock


async def test_a_request_failing_before_it_streams_shows_its_error_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, send, wait, wait_for) -> None:
    monkeypatch.setattr(litellm_client, "warm_up", lambda: None)  # not the 5 s import: no request is sent
    settings, bridge, client = Settings(), TuiBridge(), LiteLLMClient()
    options = LaunchOptions(model="anthropic/claude-sonnet-4-5", launch_dir=tmp_path)
    runtime = build_runtime(options, settings, ui=bridge, client=client)
    app = PiApp(runtime, settings, bridge, options, client=client, watch=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "hi")
        await wait_for(pilot, lambda: runtime.host.is_idle and len(runtime.host.agent.messages) == 2)
        await wait(pilot)
        (block,) = app.main.transcript.query(AssistantBlock)
        errors = [str(line.render()) for line in block.query(".assistant-error")]
        assert errors == ["Error: no API key for anthropic: set ANTHROPIC_API_KEY"]
