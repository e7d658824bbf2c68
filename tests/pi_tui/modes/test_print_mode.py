"""`pi-tui -p` on the demo: a finished task says what to run next, not "send any message"."""

from __future__ import annotations

import io
from pathlib import Path

from pi_tui.demo.client import NEXT_TASK_HINT
from pi_tui.modes.print_mode import EXIT_OK, run_print
from pi_tui.runtime.build import LaunchOptions, build_runtime
from pi_tui.settings import LiveSettings, load_settings


async def test_a_demo_task_in_print_mode_ends_with_what_to_run_next(tmp_path: Path) -> None:
    runtime = build_runtime(LaunchOptions(model="demo", launch_dir=tmp_path), LiveSettings(load_settings().settings))
    runtime.host.agent.client.delay = 0  # type: ignore[attr-defined]
    out, err = io.StringIO(), io.StringIO()
    assert await run_print(runtime.host, "fix the failing test", out, err) == EXIT_OK
    last = out.getvalue().rstrip().splitlines()[-1]
    assert NEXT_TASK_HINT not in out.getvalue()
    assert last.startswith("(demo task 1/") and 'pi-tui -p "next task" --continue' in last
    assert str(runtime.host.cwd) in last
