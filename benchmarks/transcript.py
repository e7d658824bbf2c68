"""Earlier messages of a long session: what a page of them costs, and how many keys reach the first one.

Run: .venv/bin/python benchmarks/transcript.py [--session FILE]

Opens a copy of pi-large-session.jsonl in pi-tui's transcript (headless, 80x24; the transcript alone,
with the app's theme) and goes back to its first message two ways, side by side in one process:

- widgets (before): what the transcript did until its history was drawn as lines. PageUp at the top
  mounted the previous 20 items as widgets above the others and kept the item being read in view;
  every other PageUp scrolled one screen. Each page is timed from the mount until the next frame is
  drawn; every page mounted makes every later frame slower.
- lines (now): PageUp at the top renders the previous 20 items into the history widget (history.py);
  timed from the key until the next frame. Home (Ctrl+Home) renders the first page and shows it.

Printed: milliseconds per page of 20 earlier items (median and worst), as wall time and as this
process's CPU time (on a machine shared with other work the wall time is mostly waiting for a core),
keys and seconds to the first message, and the ratios. Nothing here is asserted: timings depend on the
machine.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual.app import App  # noqa: E402

from pi_tui.conversation.model import Conversation  # noqa: E402
from pi_tui.session.store import Session  # noqa: E402
from pi_tui.themes import variable_defaults  # noqa: E402
from pi_tui.widgets.transcript import Transcript  # noqa: E402

LARGE = ROOT.parent / "shared" / "corpus" / "pi-large-session.jsonl"
SIZE = (80, 24)


class TranscriptApp(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return variable_defaults(self.current_theme)

    def compose(self) -> Any:
        yield Transcript(clock=lambda: 0.0)


async def drawn(transcript: Transcript) -> None:
    """Until the next frame (layout and paint) is done."""
    done = asyncio.Event()
    transcript.call_after_refresh(done.set)
    await done.wait()


Timing = tuple[float, float]  # seconds: wall, CPU


async def timed(transcript: Transcript, action: Callable[[], Awaitable[Any]]) -> Timing:
    start, cpu = time.perf_counter(), time.process_time()
    await action()
    await drawn(transcript)
    return time.perf_counter() - start, time.process_time() - cpu


async def opened(app: TranscriptApp, conversation: Conversation) -> Transcript:
    transcript = app.query_one(Transcript)
    await transcript.show(conversation)
    await drawn(transcript)
    await drawn(transcript)
    return transcript


async def with_widgets(conversation: Conversation) -> tuple[list[Timing], int, float]:
    """The transcript before its history: earlier pages mounted as widgets, PageUp by PageUp."""
    app = TranscriptApp()
    async with app.run_test(size=SIZE):
        transcript = await opened(app, conversation)
        transcript.history.display = False  # the earlier items come as widgets here
        first, live = transcript.first_live, list(transcript.live)
        pages: list[Timing] = []
        keys, start = 0, time.perf_counter()
        while first > 0 or transcript.scroll_y > 0:
            keys += 1
            if transcript.scroll_y > 0:
                transcript.scroll_to(y=transcript.scroll_y - transcript.scrollable_content_region.height,
                                     animate=False, immediate=True)
                await drawn(transcript)
                continue
            begin = max(0, first - Transcript.PAGE)
            widgets = [transcript.make(item) for item in conversation.items[begin:first]]
            reading = live[0]

            async def mount(page: list[Any] = widgets) -> None:
                await transcript.mount_all(page, before=0)

            pages.append(await timed(transcript, mount))
            transcript.scroll_to_widget(reading, animate=False, top=True)
            await drawn(transcript)
            live, first = widgets + live, begin
        return pages, keys, time.perf_counter() - start


async def with_lines(conversation: Conversation) -> tuple[list[Timing], int, float, float]:
    """The transcript now: PageUp to the first message, then (opened again) Home."""
    app = TranscriptApp()
    async with app.run_test(size=SIZE):
        transcript = await opened(app, conversation)
        pages: list[Timing] = []
        keys, start = 0, time.perf_counter()
        while transcript.history.gap or transcript.scroll_y > 0:
            keys += 1
            gap = transcript.history.gap
            timing = await timed(transcript, lambda: transcript.page(-1))
            if transcript.history.gap != gap:
                pages.append(timing)
        up = time.perf_counter() - start
        transcript = await opened(app, conversation)

        async def home() -> None:
            transcript.home()

        return pages, keys, up, (await timed(transcript, home))[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--session", type=Path, default=LARGE)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / args.session.name
        shutil.copy(args.session, copy)
        conversation = Conversation.from_messages(Session.open(copy).messages())
    print(f"{args.session.name}: {len(conversation.items)} items, {Transcript.PAGE} per page, {SIZE[0]}x{SIZE[1]}")
    old_pages, old_keys, old_seconds = asyncio.run(with_widgets(conversation))
    new_pages, new_keys, new_seconds, home = asyncio.run(with_lines(conversation))
    rows: list[tuple[str, float, float, str]] = []
    for clock, which in (("wall", 0), ("CPU", 1)):
        before, now = [page[which] for page in old_pages], [page[which] for page in new_pages]
        rows += [(f"earlier 20 items, median ({clock})", 1000 * statistics.median(before),
                  1000 * statistics.median(now), "ms"),
                 (f"earlier 20 items, worst ({clock})", 1000 * max(before), 1000 * max(now), "ms")]
    rows += [
        ("PageUps to the first message", old_keys, new_keys, "keys"),
        ("PageUp to the first message, all of them", old_seconds, new_seconds, "s"),
        ("keys to the first message", old_keys, 1, "keys (now: Home)"),
        ("Home to the first message drawn", old_seconds, home, "s"),
    ]
    print(f"{'what':<44} {'widgets':>9} {'lines':>9} {'ratio':>8}")
    for what, before_value, now_value, unit in rows:
        print(f"{what:<44} {before_value:9.1f} {now_value:9.1f} {before_value / now_value:7.1f}x  {unit}")


if __name__ == "__main__":
    main()
