"""TUI start-up: time to the first frame, and to a large session on screen, against a bare Textual app.

Run: .venv/bin/python benchmarks/tui.py [--runs 5]

Each figure is the median over N rounds of fresh processes, timed from Popen to a line the child prints: the bare
app (one Static) at its first frame; pi-tui at its first frame and once its empty session is shown;
pi-tui opening pi-before-compaction.jsonl once the transcript shows it; pi-tui opening the `/pruner
settings` overlay (timed inside the process, from the command to the overlay's first frame). pi-tui runs
its real entry path, `python -m pi_tui --model demo [--session FILE]`: the child imports nothing of
pi-tui first, it only makes every Textual app headless and prints a line when one posts its Ready event
(its first frame is drawn). Both children are timed the same way; ratios are against the bare app's
first frame, each the median of the rounds' own ratios: a round runs every child once, one after the
other, so a machine that gets busier between rounds does not skew a ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import runpy
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
LARGE = CORPUS / "pi-before-compaction.jsonl"


def instrument(then: Callable[[Any], Awaitable[None]]) -> None:
    """Every Textual app runs headless, prints FRAME when its first frame is drawn, then runs `then`."""
    from textual import events
    from textual.app import App

    run, post = App.run, App.post_message

    def post_message(self: App[Any], message: Any) -> bool:
        posted = post(self, message)
        if isinstance(message, events.Ready):
            print("FRAME", flush=True)
            self.run_worker(then(self))
        return posted

    App.post_message = post_message  # type: ignore[method-assign]
    App.run = lambda self, **_: run(self, headless=True)  # type: ignore[method-assign]


def run_bare() -> None:
    from textual.app import App
    from textual.widgets import Static

    class Bare(App[None]):
        def compose(self):  # type: ignore[no-untyped-def]
            yield Static("hello")

    async def done(app: App[None]) -> None:
        app.exit()

    instrument(done)
    Bare().run()


def run_pi(session: str | None, overlay: bool = False) -> None:
    async def loaded(app: Any) -> None:
        await app.ready.wait()  # the runtime is built and the session shown
        print("LOADED", "litellm" in sys.modules, flush=True)
        if overlay:
            await open_overlay(app)
        app.exit()

    instrument(loaded)
    sys.path.insert(0, str(ROOT))
    sys.argv = ["pi-tui", "--model", "demo", *(["--session", session] if session else [])]
    runpy.run_module("pi_tui", run_name="__main__")


async def open_overlay(app: Any) -> None:
    from pi_tui.screens.form import SettingsFormScreen

    painted = asyncio.Event()
    start = time.perf_counter()
    await app.run_input("/pruner settings")
    while not isinstance(app.screen, SettingsFormScreen) or not app.screen.is_mounted:
        await asyncio.sleep(0.001)
    app.screen.call_after_refresh(painted.set)
    await painted.wait()
    print("OVERLAY", time.perf_counter() - start, flush=True)


def timed(args: list[str], env: dict[str, str]) -> dict[str, float]:
    """Seconds from Popen to each marker line the child prints (or the seconds it prints after a mark)."""
    marks: dict[str, float] = {}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        word, *rest = line.split()
        marks[word] = time.perf_counter() - start
        if word == "LOADED" and rest == ["True"]:
            raise SystemExit("litellm was imported on the way to the first frame")
        if word == "OVERLAY":
            marks[word] = float(rest[0])
    proc.wait()
    return marks


def one_round(env: dict[str, str], large: Path | None) -> dict[str, float]:
    """Every figure once, one child after the other, so that all of them see the same load."""
    pi = timed(["--child", "pi"], env)
    row = {"bare": timed(["--child", "bare"], env)["FRAME"], "frame": pi["FRAME"], "shown": pi["LOADED"],
           "overlay": timed(["--child", "pi", "--overlay"], env)["OVERLAY"]}
    if large is not None:
        row["large"] = timed(["--child", "pi", "--session", str(large)], env)["LOADED"]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", choices=["bare", "pi"], help=argparse.SUPPRESS)
    parser.add_argument("--session", help=argparse.SUPPRESS)
    parser.add_argument("--overlay", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "bare":
        run_bare()
        return
    if args.child == "pi":
        with contextlib.suppress(SystemExit):  # the CLI's exit status
            run_pi(args.session, args.overlay)
        return
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PI_TUI_HOME": str(Path(tmp) / "home"), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        env.pop("COLUMNS", None)
        env.pop("LINES", None)
        large = Path(tmp) / LARGE.name if LARGE.exists() else None
        if large is not None:
            shutil.copy(LARGE, large)
        rounds = [one_round(env, large) for _ in range(args.runs)]
    names = {"bare": "bare Textual app: first frame", "frame": "pi-tui --model demo: first frame",
             "shown": "pi-tui --model demo: session shown",
             "large": f"pi-tui opening {LARGE.name}: transcript shown",
             "overlay": "pi-tui: /pruner settings overlay open (command to first frame)"}
    print(f"{'what':<62} {'median':>8} {'ratio':>7}")
    for key, what in names.items():
        if key in rounds[0]:  # the ratio is the median of each round's own: a busy machine slows a round
            seconds = statistics.median(row[key] for row in rounds)
            ratio = statistics.median(row[key] / row["bare"] for row in rounds)
            print(f"{what:<62} {seconds:7.2f}s {ratio:6.2f}x")


if __name__ == "__main__":
    main()
