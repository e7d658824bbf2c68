"""The real context window of the session's model reaches both the footer's percentage and condense's
budget trigger (0.735 of the window, at most 300k tokens): one figure, from litellm's map."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from condense.messages import AssistantMessage, ToolResultMessage
from pi_tui.runtime.build import LaunchOptions, Runtime, build_runtime
from pi_tui.settings import LiveSettings, Settings
from tests.support.typed import present

SONNET_WINDOW = 200_000  # litellm's map for claude-sonnet-4-5 (checked against litellm in tests/pi_tui/ai)


class Notes:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def notify(self, text: str, level: str = "info") -> None:
        self.lines.append(text)

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        return None


def sonnet_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ui: Notes) -> Runtime:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")  # never used: no request is made
    settings = Settings.model_validate({"condense": {"summarizer_model": "extractive", "budget_turn_delta": 0,
                                                     "min_batch_chars": 1}})
    options = LaunchOptions(model="anthropic/claude-sonnet-4-5", launch_dir=tmp_path)
    return build_runtime(options, LiveSettings(settings), ui)


async def one_tool_turn(runtime: Runtime, context_tokens: int, turn: int = 0) -> None:
    """A finished tool turn after which the host counts exactly `context_tokens` in the context."""
    call_id = f"call_{turn + 1}"
    result: ToolResultMessage = {"role": "toolResult", "toolCallId": call_id, "toolName": "read",
                                 "content": [{"type": "text", "text": f"x = {turn}\n" * 400}], "isError": False,
                                 "timestamp": 2 * turn + 2}
    assistant: AssistantMessage = {
        "role": "assistant", "content": [{"type": "toolCall", "id": call_id, "name": "read",
                                          "arguments": {"path": f"a{turn}.py"}}],
        "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "toolUse", "timestamp": 2 * turn + 1}
    host = runtime.host
    await host.insert_message(assistant)
    await host.insert_message(result)
    tail = present(present(host.context_usage()).tokens) - 1  # what the tool result adds to the reply's usage
    assistant["usage"]["totalTokens"] = context_tokens - tail
    assert present(host.context_usage()).tokens == context_tokens
    assert present(host.context_usage()).percent == pytest.approx(context_tokens / SONNET_WINDOW * 100)  # the footer's
    await runtime.engine.on_turn_end(assistant, [result], turn)


def test_the_footer_and_condense_read_the_models_real_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    runtime = sonnet_runtime(tmp_path, monkeypatch, Notes())
    assert present(runtime.host.context_usage()).context_window == SONNET_WINDOW  # the footer's source
    assert present(runtime.engine.host.context_usage()).context_window == SONNET_WINDOW  # what condense reads


@pytest.mark.parametrize(("tokens", "flushes"), [(146_999, False), (147_000, True)])
async def test_the_budget_trigger_fires_at_0735_of_the_real_window(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tokens: int, flushes: bool) -> None:
    ui = Notes()
    runtime = sonnet_runtime(tmp_path, monkeypatch, ui)
    threshold = min(300_000, 0.735 * SONNET_WINDOW)
    assert threshold == 147_000
    await one_tool_turn(runtime, tokens)  # the newest turn's output is left for the model to read
    await one_tool_turn(runtime, tokens, turn=1)
    summaries = [e for e in runtime.host.session.entries if e.get("customType") == "context-prune-summary"]
    assert bool(summaries) is flushes
    assert any("budget reached" in line for line in ui.lines) is flushes


def test_a_print_mode_runtime_starts_importing_litellm_while_it_is_built(tmp_path: Path) -> None:
    """`-p`: litellm's import (seconds) runs beside the session and engine loading, not after them inside
    the first request; a process of its own, so that nothing imported it before."""
    code = (
        "import sys, threading; from pathlib import Path\n"
        "from pi_tui.runtime.build import LaunchOptions, build_runtime\n"
        "from pi_tui.settings import LiveSettings, Settings\n"
        "before = 'litellm' in sys.modules\n"
        f"build_runtime(LaunchOptions(model='anthropic/claude-sonnet-4-5', launch_dir=Path({str(tmp_path)!r})),"
        " LiveSettings(Settings()), import_early=True)\n"
        "started = [t for t in threading.enumerate() if t.name == 'import litellm']\n"
        "for thread in started: thread.join()\n"
        "print(before, len(started), 'litellm' in sys.modules)\n")
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-test", "PI_TUI_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.split() == ["False", "1", "True"]
