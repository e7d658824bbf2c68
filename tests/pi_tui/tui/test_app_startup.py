"""Start-up: `pi-tui` with no arguments opens the TUI, and litellm is never on the way to its first frame
(nor `pi_tui.modes`, the other ways to run pi-tui, at all).

Each case runs in a fresh interpreter (the only way to know what an import pulled in), through the CLI's
own `main([])`, headless; the probe records `sys.modules` at the first frame and when the warm-up runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from pi_tui.demo.client import DemoModelClient
from pi_tui.errors import UserError
from pi_tui.runtime.build import build_runtime
from pi_tui.runtime.launch import LaunchOptions
from pi_tui.settings import LiveSettings, load_settings
from pi_tui.tui.app import PiApp, Started, TuiBridge

PROBE = r"""
import json, sys
from textual.app import App
from pi_tui.tui.app import PiApp
from pi_tui import cli
from pi_tui.cli import main

seen = {"warm_up": []}
heavy = lambda: sorted(name for name in ("litellm", "openai") if name in sys.modules)
RUNTIME = ("condense.engine", "pi_tui.agent.host", "pi_tui.session.store", "pi_tui.tools", "pi_tui.settings",
           "pydantic")
runtime_parts = lambda: [name for name in RUNTIME if name in sys.modules]
PiApp._warm_up = lambda self: seen["warm_up"].append(heavy())  # the probe does not pay the real import
ready = PiApp.on_ready

async def on_ready(self):
    seen["first_frame"] = heavy()
    seen["runtime_at_first_frame"] = runtime_parts()
    await ready(self)
    await self.ready.wait()
    seen["model"] = self.runtime.model.ref
    seen["screen"] = type(self.screen).__name__
    seen["modes"] = sorted(name for name in sys.modules if name.startswith("pi_tui.modes"))
    self.exit()

PiApp.on_ready = on_ready
PiApp.run = lambda self: App.run(self, headless=True)
cli.has_terminal = lambda: True  # headless: the app draws nowhere, where pi-tui itself would run print mode
code = main(sys.argv[1:])
print(json.dumps({**seen, "code": code}))
"""


def probe(tmp_path: Path, *args: str, key: str | None = None) -> dict:  # type: ignore[type-arg]
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    if key:
        env["OPENAI_API_KEY"] = key
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=tmp_path, env=env, capture_output=True,
                          stdin=subprocess.DEVNULL, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answer: dict[Any, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def test_no_arguments_open_the_tui_on_the_demo_without_litellm(tmp_path: Path) -> None:
    seen = probe(tmp_path)
    assert seen == {"warm_up": [], "first_frame": [], "runtime_at_first_frame": [], "model": "demo/demo",
                    "screen": "MainScreen", "modes": [], "code": 0}


def test_a_real_model_warms_litellm_up_only_after_the_first_frame(tmp_path: Path) -> None:
    seen = probe(tmp_path, "--model", "openai/gpt-4o", key="sk-test")
    assert seen["first_frame"] == [] and seen["warm_up"] == [[]]
    assert seen["model"] == "openai/gpt-4o" and seen["code"] == 0
    assert seen["modes"] == []  # print mode, replay and whatif are never loaded by the TUI


FAILING_START = r"""
import sys
from textual.app import App
from pi_tui.tui.app import PiApp
from pi_tui import cli
from pi_tui.cli import main

PiApp.run = lambda self: App.run(self, headless=True)
cli.has_terminal = lambda: True
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(("args", "said"), [
    (["--session", "no-such-session"], "pi-tui: error: no-such-session: no such session file, and no session"),
    (["--model", "nope"], "pi-tui: error: model 'nope' is not of the form provider/id"),
])
def test_a_runtime_that_cannot_be_built_is_one_line_and_exit_status_2(tmp_path: Path, args: list[str],
                                                                       said: str) -> None:
    """The session and the model are opened after the first frame now; their errors still end pi-tui as
    they did before it started."""
    done = subprocess.run([sys.executable, "-c", FAILING_START, *args], cwd=tmp_path, capture_output=True,
                          stdin=subprocess.DEVNULL, text=True, timeout=120)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(said)


# ----- the runtime built after the first frame (Pilot) ------------------------------------------


def slow_start(tmp_path: Path, release: threading.Event, fail: Exception | None = None) -> PiApp:
    """An app whose runtime is built, as `pi-tui` builds it, in a thread that waits for `release`."""
    settings = LiveSettings(load_settings().settings)
    bridge = TuiBridge()
    options = LaunchOptions(model="demo", launch_dir=tmp_path)

    def build() -> Started:
        release.wait(60)
        if fail is not None:
            raise fail
        runtime = build_runtime(options, settings, ui=bridge, client=DemoModelClient())
        return runtime, settings, ["settings: a problem found while starting"]

    app = PiApp(None, None, bridge, options, build=build, watch=False, cwd_display="~/project")
    app.animation_level = "none"
    return app


async def test_a_message_sent_before_the_runtime_is_ready_is_sent_once_it_is(tmp_path: Path, wait_for,
                                                                             shown) -> None:
    release = threading.Event()
    app = slow_start(tmp_path, release)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: "starting…" in shown(app))
        assert "folder ~/project" in shown(app)  # the header and the footer, before the runtime
        await pilot.press(*"hello", "enter")
        await pilot.press(*"next", "ctrl+o", "escape", "ctrl+l")  # keys meant for the runtime do nothing yet
        assert not app.ready.is_set() and app.main.editor.text == "next"
        release.set()
        await wait_for(pilot, app.ready.is_set)
        await app.workers.wait_for_complete()  # the message that waited, and the demo's answer to it
        await wait_for(pilot, lambda: "starting…" not in shown(app))
        users = [entry["message"] for entry in app.runtime.host.session.entries
                 if entry.get("type") == "message" and entry["message"]["role"] == "user"]
        assert [user["content"][0]["text"] for user in users] == ["hello"]
        notes = "\n".join(item.message["text"] for item in app.main.transcript.conversation.items
                          if item.kind == "note")
        assert "model demo (offline, scripted)" in notes and "a problem found while starting" in notes
        assert "starting…" not in notes
        assert app.main.editor.text == "next"


async def test_a_runtime_error_after_the_first_frame_ends_the_app_with_it(tmp_path: Path, wait_for,
                                                                          shown) -> None:
    release = threading.Event()
    error = UserError("--model nope: not of the form provider/id")
    app = slow_start(tmp_path, release, fail=error)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: "starting…" in shown(app))
        await pilot.press(*"hi", "enter")  # waits for a runtime that never comes: no crash
        release.set()
        await wait_for(pilot, lambda: not app.is_running)
    assert app.startup_failure is error  # run_tui raises it for the CLI to say


def test_a_session_whose_model_pi_tui_cannot_call_opens_on_the_model_it_would_choose(tmp_path: Path) -> None:
    """A library store records `library/agent`, which no provider serves: the TUI opens it anyway."""
    from condense import OpenAICondenser

    with OpenAICondenser(tmp_path / "store") as store:
        store.add_sync([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    [path] = (tmp_path / "store").glob("*.jsonl")
    seen = probe(tmp_path, "--session", str(path))
    assert (seen["code"], seen["model"], seen["screen"]) == (0, "demo/demo", "MainScreen")
