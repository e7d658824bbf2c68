"""Start-up: `pi-tui` with no arguments opens the TUI, and litellm is never on the way to its first frame.

Each case runs in a fresh interpreter (the only way to know what an import pulled in), through the CLI's
own `main([])`, headless; the probe records `sys.modules` at the first frame and when the warm-up runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import json, sys
from textual.app import App
import pi_tui.ai.litellm_client as client
from pi_tui.app import PiApp
from pi_tui.cli import main

seen = {"warm_up": []}
heavy = lambda: sorted(name for name in ("litellm", "openai") if name in sys.modules)
client.warm_up = lambda: seen["warm_up"].append(heavy())  # the probe does not pay the real import
ready = PiApp.on_ready

async def on_ready(self):
    seen["first_frame"] = heavy()
    await ready(self)
    warm = [w for w in self.workers if w.group == "warm-up"]
    if warm:  # (an empty list would mean every worker, the file watchers included)
        await self.workers.wait_for_complete(warm)
    seen["model"] = self.runtime.model.ref
    seen["screen"] = type(self.screen).__name__
    self.exit()

PiApp.on_ready = on_ready
PiApp.run = lambda self: App.run(self, headless=True)
code = main(sys.argv[1:])
print(json.dumps({**seen, "code": code}))
"""


def probe(tmp_path: Path, *args: str, key: str | None = None) -> dict:  # type: ignore[type-arg]
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    if key:
        env["OPENAI_API_KEY"] = key
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_no_arguments_open_the_tui_on_the_demo_without_litellm(tmp_path: Path) -> None:
    seen = probe(tmp_path)
    assert seen == {"warm_up": [], "first_frame": [], "model": "demo/demo", "screen": "MainScreen", "code": 0}


def test_a_real_model_warms_litellm_up_only_after_the_first_frame(tmp_path: Path) -> None:
    seen = probe(tmp_path, "--model", "openai/gpt-4o", key="sk-test")
    assert seen["first_frame"] == [] and seen["warm_up"] == [[]]
    assert seen["model"] == "openai/gpt-4o" and seen["code"] == 0
