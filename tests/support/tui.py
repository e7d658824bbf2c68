"""Driving the TUI in a test as a person would: send what they type, wait for what it started, read
what the terminal shows. The fixtures over these (an app on the demo model, the fixed session) are in
tests/pi_tui/conftest.py."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual._xterm_parser import XTermParser


async def settle(pilot: Any) -> None:
    """Wait until every worker (agent runs, commands) is done and the screen has caught up."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def until(pilot: Any, predicate: Callable[[], bool], timeout: float = 60.0,
                every: Callable[[], None] | None = None) -> None:
    """Pause until `predicate()` holds; `every` runs before each look (to repeat an outside action until
    the app reacts). The timeout is a generous safety net for a loaded machine, never a timing assertion."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if every is not None:
            every()
        if predicate():
            return
        await pilot.pause(0.05)
    raise AssertionError("the screen never reached the expected state")


def edit_file(path: Path, text: str) -> Callable[[], None]:
    """An outside edit to repeat until a file watcher notices it: the watcher starts in the background,
    so the first writes may come before it looks. Each write differs (a comment), so none is a no-op."""
    writes = iter(range(1_000_000))

    def write() -> None:
        path.write_text(f"{text}\n# edit {next(writes)}\n", encoding="utf-8")

    return write


async def type_and_send(pilot: Any, text: str, opens: type | None = None) -> None:
    """Put `text` in the editor and press Enter, as a user would, then wait for what it started; for a
    command that opens a screen and waits for the user (`opens`), wait for that screen instead."""
    pilot.app.main.editor.load_text(text)
    await pilot.pause()
    await pilot.press("enter")
    if opens is None:
        await settle(pilot)
    else:
        await until(pilot, lambda: isinstance(pilot.app.screen, opens))


async def change_field(pilot: Any, dotted: str, text: str | None = None) -> None:
    """In a settings overlay: move to a field and press Enter (a switch flips, a choice moves on); with
    `text`, type it into the edit line that opens and press Enter to save it."""
    form = pilot.app.screen
    form.focus_field(dotted)
    await pilot.pause()
    await pilot.press("enter")
    if text is not None:
        await until(pilot, lambda: form.editing is not None)
        form.edit.value = text
        await pilot.press("enter")
    await pilot.pause()


def screen_text(app: Any) -> str:
    """What the terminal shows now, as plain lines: for asserting what a person can actually read."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def type_raw(app: Any, data: str) -> None:
    """Bytes from the terminal, all at once, through Textual's own key parser and driver, as a real tty
    delivers them (a burst of keys is queued before any of them is handled)."""
    for event in XTermParser().feed(data):
        app._driver.process_message(event)


def record_frames(app: Any) -> list[str]:
    """Every frame the main screen draws from now on, as the text `screen_text` reads. Headless, the app
    draws nothing, but it still hands each frame to `_display`, after a batch of updates ends (what a
    terminal would show)."""
    frames: list[str] = []
    display = app._display

    def record(screen: Any, renderable: Any) -> None:
        if not app._batch_count and screen is app.main and app.screen is app.main:
            frames.append(screen_text(app))
        display(screen, renderable)

    app._display = record
    return frames


def transcript_rows(app: Any, frame: str) -> list[str]:
    """The rows of a frame where the transcript is."""
    region = app.main.transcript.region
    return frame.split("\n")[region.y:region.y + region.height]


async def start_working(pilot: Any) -> None:
    """Send the demo's task and wait until the agent works on it (a slow client keeps it working)."""
    app = pilot.app
    app.main.editor.load_text("fix the failing test")
    await pilot.press("enter")
    await until(pilot, lambda: not app.runtime.host.is_idle)


async def send_while_working(pilot: Any, steer: str = "steer now", follow_up: str = "and later this") -> None:
    """Start the demo's task and, while it works, send `steer` (Enter) and `follow_up` (Alt+Enter). With a
    slow client (a 0.5 s delay) both wait in the queue."""
    await start_working(pilot)
    editor = pilot.app.main.editor
    editor.load_text(steer)
    await pilot.press("enter")
    editor.load_text(follow_up)
    await pilot.press("alt+enter")


def transcript_user_texts(app: Any) -> list[str]:
    """The user messages the transcript shows (a resumed session's included), in order."""
    return [item.message["content"][0]["text"] for item in app.main.transcript.conversation.items
            if item.kind == "user"]


def transcript_notes(app: Any) -> list[tuple[str, str]]:
    """What the app said in the transcript (its own notes, not the session), with their levels."""
    return [(item.level, item.message["text"]) for item in app.main.transcript.conversation.items
            if item.kind == "note"]


@asynccontextmanager
async def two_queued(make_app: Callable[..., Any]) -> AsyncIterator[tuple[Any, Any]]:
    """An app (slow demo client) whose agent works on a task with `steer now` and `and later this`
    waiting in its queue: (app, pilot)."""
    app = make_app(delay=0.5)  # slow: the steer waits in the queue (it goes after the tool being streamed)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await send_while_working(pilot)
        await until(pilot, lambda: len(app.live.queued) == 2)
        yield app, pilot
