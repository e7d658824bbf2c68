"""What the command line hands the TUI: `pi-tui "a" "b"` sends both once it is up, each after the one
before is answered; `--resume` opens the session picker first; `--no-session` saves nothing."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_tui.demo.client import DemoModelClient
from pi_tui.runtime.build import build_runtime
from pi_tui.runtime.launch import LaunchOptions
from pi_tui.screens.picker import PickerScreen
from pi_tui.settings import LiveSettings, load_settings
from pi_tui.tui.app import PiApp, Started, TuiBridge
from tests.support.typed import plain


def launched(options: LaunchOptions) -> PiApp:
    """The app as `run_tui` builds it, on the demo model at full speed."""
    settings = LiveSettings(load_settings().settings)
    bridge = TuiBridge()

    def build() -> Started:
        return build_runtime(options, settings, ui=bridge, client=DemoModelClient()), settings, []

    app = PiApp(None, None, bridge, options, build=build, watch=False, cwd_display="~/project")
    app.animation_level = "none"
    return app


def user_texts(app: PiApp) -> list[str]:
    return [m["content"][0]["text"] for m in plain(app.runtime.host.session.messages()) if m["role"] == "user"]


async def test_messages_on_the_command_line_are_sent_in_turn_and_no_session_saves_nothing(
        tmp_path: Path, wait_for: Callable[..., Any]) -> None:
    options = LaunchOptions(model="demo", launch_dir=tmp_path, messages=["fix the failing test", "next task"],
                            no_session=True)
    app = launched(options)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set() and len(user_texts(app)) == 2)
        await app.workers.wait_for_complete()
        replies = [m for m in app.runtime.host.session.messages() if m["role"] == "assistant"]
        assert user_texts(app) == ["fix the failing test", "next task"]
        assert replies[-1]["stopReason"] == "stop"
        assert app.runtime.host.session.path is None
    assert not list((Path(os.environ["PI_TUI_HOME"]) / "sessions").rglob("*.jsonl"))


async def test_resume_opens_the_session_picker_first(tmp_path: Path, wait_for: Callable[..., Any]) -> None:
    first = launched(LaunchOptions(model="demo", launch_dir=tmp_path, messages=["fix the failing test"]))
    async with first.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: first.ready.is_set() and user_texts(first))
        await first.workers.wait_for_complete()
    app = launched(LaunchOptions(model="demo", launch_dir=tmp_path, resume=True))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
