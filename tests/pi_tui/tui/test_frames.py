"""What the terminal shows on the way: no frame tells something false or shows nothing while a long
session loads or `/tree` switches branches (every frame the app draws is recorded, not only the last)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from pi_tui.demo.client import DemoModelClient
from pi_tui.runtime.build import build_runtime
from pi_tui.runtime.launch import LaunchOptions
from pi_tui.screens.picker import PickerScreen
from pi_tui.screens.session_tree import SessionTreeScreen
from pi_tui.settings import LiveSettings, load_settings
from pi_tui.tui.app import PiApp, Started, TuiBridge
from pi_tui.widgets.transcript import Transcript
from tests.conftest import corpus_copy
from tests.support.tui import record_frames, transcript_rows


def large_session(tmp_path: Path) -> Path:
    copy = corpus_copy("pi-large-session.jsonl", tmp_path)
    return copy


async def test_no_frame_is_false_while_a_large_session_loads(tmp_path: Path, wait_for, shown) -> None:
    session = large_session(tmp_path)
    release = threading.Event()
    settings = LiveSettings(load_settings().settings)
    bridge = TuiBridge()
    options = LaunchOptions(model="demo", session=str(session), launch_dir=tmp_path)

    def build() -> Started:  # as `pi-tui --session large.jsonl` builds it: in a thread, after the first frame
        release.wait(60)
        return build_runtime(options, settings, ui=bridge, client=DemoModelClient()), settings, []

    app = PiApp(None, None, bridge, options, build=build, watch=False, cwd_display="~/project")
    app.animation_level = "none"
    frames = record_frames(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "starting…" in shown(app))
        release.set()
        await wait_for(pilot, lambda: app.ready.is_set() and "914 messages" in shown(app))
        await pilot.pause()
    assert len(frames) > 2
    assert not [frame for frame in frames if "new output below" in frame]  # nothing was ever below
    assert not [frame for frame in frames if "?%/0" in frame]  # no context window known is no figure
    assert "200k" in frames[-1]


async def test_continuing_from_an_earlier_entry_never_blanks_the_transcript(make_app, tmp_path: Path, send,
                                                                            wait, wait_for, monkeypatch) -> None:
    mount_all = Transcript.mount_all

    def slow_mount_all(self: Transcript, *args: Any, **kwargs: Any) -> Any:
        async def mount() -> Any:
            await asyncio.sleep(0.3)  # a new branch's page of widgets takes long to mount on a busy machine
            return await mount_all(self, *args, **kwargs)
        return mount()

    monkeypatch.setattr(Transcript, "mount_all", slow_mount_all)
    app = make_app(session=large_session(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await send(pilot, "/tree", opens=SessionTreeScreen)
        tree = app.screen
        tree.list.highlighted = len(tree.rows) - 40  # an assistant reply some way up the branch
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))  # summarise the branch left?
        frames = record_frames(app)
        await pilot.press("enter")  # no summary
        await wait_for(pilot, lambda: app.screen is app.main)
        await wait(pilot)
        assert frames
        # a frame with the conversation shows many rows; an emptied transcript at most its line of earlier items
        blank = [frame for frame in frames if sum(1 for row in transcript_rows(app, frame) if row.strip()) < 4]
        assert not blank, f"{len(blank)} of {len(frames)} frames showed an empty transcript"
