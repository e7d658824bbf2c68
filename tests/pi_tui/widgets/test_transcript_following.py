"""The transcript follows the work: new output stays in view unless the user scrolled up to read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai.litellm_client import LiteLLMClient
from pi_tui.conversation.model import Conversation
from pi_tui.runtime.build import LaunchOptions, build_runtime
from pi_tui.settings import LiveSettings, Settings
from pi_tui.tui.app import PiApp, TuiBridge
from pi_tui.widgets.transcript import Transcript
from tests.support.fake_openai import FakeOpenAI, Reply

PAGE_UP, PAGE_DOWN = "\x1b[5~", "\x1b[6~"


def long_conversation(items: int, lines: int) -> Conversation:
    body = "\n".join(f"line {n}" for n in range(1, lines))
    return Conversation.from_messages([
        {"role": "user", "content": [{"type": "text", "text": f"message {n}\n{body}"}], "timestamp": n}
        for n in range(items)])


def at_bottom(transcript: Transcript) -> bool:
    return transcript.max_scroll_y > 0 and transcript.scroll_y == transcript.max_scroll_y


async def write_lines(transcript: Transcript, pilot: Any, count: int, tag: str) -> None:
    for n in range(count):
        await transcript.add_note(f"{tag} {n}\nmore output\nand more")
    await pilot.pause()


async def test_back_at_the_bottom_after_paging_up_new_output_is_followed(make_app, wait, wait_for,
                                                                         raw) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        transcript = app.main.transcript
        await write_lines(transcript, pilot, 30, "before")
        await wait_for(pilot, lambda: at_bottom(transcript))
        await pilot.press("pageup")
        await write_lines(transcript, pilot, 5, "while up")
        assert not at_bottom(transcript)  # the user reads: the view stays where it is
        for _ in range(3):  # back down, and once more at the bottom
            await pilot.press("pagedown")
        await wait_for(pilot, lambda: at_bottom(transcript))
        await write_lines(transcript, pilot, 10, "after")
        await wait_for(pilot, lambda: at_bottom(transcript))


async def test_a_burst_of_page_downs_while_output_streams_reaches_the_bottom_and_follows(make_app, wait,
                                                                                        wait_for, raw) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        transcript = app.main.transcript
        await write_lines(transcript, pilot, 30, "before")
        await pilot.press("pageup", "pageup", "pageup")
        raw(app, PAGE_DOWN * 4)  # keys held down or sent by tmux: all queued before the first is handled
        await write_lines(transcript, pilot, 3, "streaming")
        await wait(pilot)
        await write_lines(transcript, pilot, 10, "after")
        await wait_for(pilot, lambda: at_bottom(transcript) and not transcript.new_below.display)


async def test_new_output_below_is_marked_and_ctrl_end_jumps_to_it(make_app, wait, wait_for, shown) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        transcript = app.main.transcript
        await write_lines(transcript, pilot, 30, "before")
        await pilot.press("pageup", "pageup")
        assert "new output below" not in shown(app)
        await write_lines(transcript, pilot, 3, "while up")
        await wait_for(pilot, lambda: "▼ new output below" in shown(app))
        assert "while up 2" not in shown(app)
        await pilot.press("ctrl+end")
        await wait_for(pilot, lambda: "while up 2" in shown(app) and "new output below" not in shown(app))
        await write_lines(transcript, pilot, 3, "followed")
        await wait_for(pilot, lambda: "followed 2" in shown(app))


async def test_sending_jumps_to_the_bottom_and_command_output_shows(make_app, wait, wait_for, shown) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        transcript = app.main.transcript
        await write_lines(transcript, pilot, 30, "before")
        await pilot.press("pageup", "pageup")
        await wait_for(pilot, lambda: not at_bottom(transcript))
        app.main.editor.load_text("/pruner status")
        await pilot.press("enter")
        await wait(pilot)
        await wait_for(pilot, lambda: at_bottom(transcript) and "new output below" not in shown(app))
        assert transcript.conversation.items[-1].kind == "note"  # the status is the newest item...
        status_lines = transcript.conversation.items[-1].message["text"].splitlines()
        assert status_lines[-1].strip() in shown(app)  # ... and it is on screen


async def test_a_burst_of_page_ups_pages_through_the_widgets_and_the_history(make_app, wait, wait_for, raw) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        transcript = app.main.transcript
        await transcript.show(long_conversation(400, 10))  # items of 11 rows: a page of them is 220 rows
        await wait(pilot)
        await wait_for(pilot, lambda: transcript.history.size.height == 1)  # the line of earlier items
        assert transcript.scroll_y == transcript.max_scroll_y > 0
        # one burst, as a held-down key or a fast hand sends it: all queued before the first is handled;
        # it goes through the widgets (220 rows) and two pages of earlier items rendered on the way
        raw(app, PAGE_UP * 30)
        await wait(pilot)
        page = transcript.scrollable_content_region.height
        assert transcript.max_scroll_y - transcript.scroll_y == 30 * page  # each key moved one page up
        assert transcript.history.gap <= 400 - 3 * Transcript.PAGE


async def test_command_output_taller_than_the_view_shows_from_its_start(make_app, wait, wait_for, shown) -> None:
    app = make_app()
    async with app.run_test(size=(80, 16)) as pilot:
        await wait(pilot)
        app.main.editor.load_text("/pruner status")
        await pilot.press("enter")
        await wait(pilot)
        status = app.main.transcript.conversation.items[-1].message["text"].splitlines()
        assert len(status) > 12  # taller than the transcript's part of a 16-row terminal
        await wait_for(pilot, lambda: status[0].strip() in shown(app))


async def test_a_click_on_the_new_output_mark_jumps_to_it(make_app, wait, wait_for, shown) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        transcript = app.main.transcript
        await write_lines(transcript, pilot, 30, "before")
        await pilot.press("pageup")
        await write_lines(transcript, pilot, 3, "while up")
        await wait_for(pilot, lambda: transcript.new_below.display)
        await pilot.click(transcript.new_below)
        await wait_for(pilot, lambda: "while up 2" in shown(app) and transcript.is_following)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # litellm's own, on pydantic
@pytest.mark.parametrize("size", [(80, 24), (130, 40)])
async def test_a_reply_streaming_below_the_view_is_marked_until_the_reader_is_back(
        tmp_path: Path, fake_openai: FakeOpenAI, size: tuple[int, int], wait, wait_for, shown) -> None:
    # one slow text reply: no new item arrives while it streams, only its text grows
    fake_openai.push(Reply(text="slow words " * 400, chunk_size=6, delay=0.02))
    settings, bridge, client = LiveSettings(Settings()), TuiBridge(), LiteLLMClient()
    options = LaunchOptions(model="openai/fake-model", base_url=fake_openai.base_url, launch_dir=tmp_path)
    runtime = build_runtime(options, settings, ui=bridge, client=client)
    app = PiApp(runtime, settings, bridge, options, client=client, watch=False)
    async with app.run_test(size=size) as pilot:
        await wait(pilot)
        transcript = app.main.transcript
        await write_lines(transcript, pilot, 30, "before")
        app.main.editor.load_text("tell me slowly")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "slow words" in shown(app))
        items = len(transcript.conversation.items)
        await pilot.press("pageup", "pageup")
        await wait_for(pilot, lambda: "▼ new output below" in shown(app) and not runtime.host.is_idle)
        assert len(transcript.conversation.items) == items  # the mark is for the growing reply
        await pilot.press("ctrl+end")
        await wait_for(pilot, lambda: "new output below" not in shown(app) and transcript.is_following)
        await wait_for(pilot, lambda: runtime.host.is_idle)
        await wait(pilot)
        assert "new output below" not in shown(app)
