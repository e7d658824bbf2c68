"""Pi's editor keys: the kill ring (Ctrl+K/U/W, Alt+D cut; Ctrl+Y, Alt+Y put back), images attached
from the clipboard (Ctrl+V, through a real clipboard tool process) or a pasted image path, and Alt+Up
taking queued messages back. Keys go through Textual's key parser as a terminal sends them."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest

from pi_tui.tui.app import PiApp
from tests.support.tui import screen_text, transcript_notes, two_queued, type_raw

# a 1x1 PNG
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJ"
                       "RU5ErkJggg==")
CTRL_K, CTRL_U, CTRL_W, CTRL_Y = "\x0b", "\x15", "\x17", "\x19"
CTRL_V, ALT_UP = "\x16", "\x1b[1;3A"


async def test_cuts_go_to_the_kill_ring_and_ctrl_y_alt_y_put_them_back(make_app, wait, wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        editor = app.main.editor
        type_raw(app, "alpha beta gamma" + CTRL_W + CTRL_W)  # two cuts in a row: one entry, in text order
        await wait_for(pilot, lambda: editor.text == "alpha ")
        await pilot.press("ctrl+a")
        type_raw(app, CTRL_K)  # cut to the line's end: a second entry
        await wait_for(pilot, lambda: editor.text == "")
        type_raw(app, CTRL_Y)
        await wait_for(pilot, lambda: editor.text == "alpha ")
        # Alt+letter: a terminal sends ESC and the letter, which Textual reads as one key after a pause
        await pilot.press("alt+y")  # right after Ctrl+Y: the earlier cut instead
        await wait_for(pilot, lambda: editor.text == "beta gamma")
        await pilot.press("space", "x", "alt+y")  # after typing, Alt+Y does nothing
        await pilot.pause()
        assert editor.text == "beta gamma x"
        type_raw(app, CTRL_U + "start " + CTRL_Y)
        await wait_for(pilot, lambda: editor.text == "start beta gamma x")
        editor.move_cursor((0, 0))
        await pilot.press("alt+d", "alt+d")  # the words after the cursor
        await wait_for(pilot, lambda: editor.text == " gamma x")
        assert editor.kill_ring.peek() == "start beta"


def fake_clipboard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    """An `xclip` on PATH that prints `data` as the clipboard's image/png, as the real one does."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "clip.png").write_bytes(data)
    tool = folder / "xclip"
    tool.write_text(f"#!/bin/sh\ncat '{folder / 'clip.png'}'\n", encoding="utf-8")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def user_messages(app: PiApp) -> list[dict[str, Any]]:
    return [entry["message"] for entry in app.runtime.host.session.entries
            if entry.get("type") == "message" and entry["message"]["role"] == "user"]


async def test_ctrl_v_attaches_the_clipboard_image_to_the_next_message(make_app, wait, wait_for, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    fake_clipboard(tmp_path, monkeypatch, PNG)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        editor = app.main.editor
        type_raw(app, "what is in this picture?" + CTRL_V)
        await wait_for(pilot, lambda: len(editor.images) == 1)
        assert "clipboard image 1" in str(editor.border_title)
        await pilot.press("enter")
        await wait(pilot)
        [message] = user_messages(app)
        image = {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}
        assert message["content"] == [{"type": "text", "text": "what is in this picture?"}, image]
        assert not editor.images and not editor.border_title


async def test_ctrl_v_without_an_image_attaches_nothing_and_says_so(make_app, wait, wait_for, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    fake_clipboard(tmp_path, monkeypatch, b"just some text")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        type_raw(app, CTRL_V)
        warning = ("warning", "no image on the clipboard: copy an image, or paste the image file's path")
        await wait_for(pilot, lambda: warning in transcript_notes(app))  # where the work is, not a toast
        assert not app.main.editor.images and not app._notifications


async def test_ctrl_v_without_a_clipboard_tool_says_what_to_install_in_the_transcript(
        make_app, wait, wait_for, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        monkeypatch.setenv("PATH", str(tmp_path))  # no wl-paste, xclip or pngpaste
        type_raw(app, CTRL_V)
        await wait_for(pilot, lambda: any("install wl-clipboard" in text for _, text in transcript_notes(app)))
        assert not app._notifications


async def test_a_pasted_image_path_attaches_the_image_and_ctrl_c_drops_it(make_app, wait, wait_for,
                                                                         tmp_path: Path) -> None:
    picture = tmp_path / "my screenshot.png"
    picture.write_bytes(PNG)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        editor = app.main.editor
        type_raw(app, f"\x1b[200~'{picture}'\x1b[201~")  # a file dropped on the terminal: a quoted path pasted
        await wait_for(pilot, lambda: len(editor.images) == 1)
        assert editor.text == "" and "my screenshot.png" in str(editor.border_title)
        type_raw(app, "\x1b[200~not a path\x1b[201~")  # any other paste is text
        await wait_for(pilot, lambda: editor.text == "not a path")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not editor.images and editor.text == "")


async def test_a_message_sent_with_an_image_shows_its_image_line_live_and_reopened(make_app, wait, wait_for,
                                                                                  tmp_path: Path) -> None:
    picture = tmp_path / "shot.png"
    picture.write_bytes(PNG)
    line = "[image: image/png, 1 KB]"  # as `pi-tui show` prints it
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        type_raw(app, "what is this?" + f"\x1b[200~{picture}\x1b[201~")
        await wait_for(pilot, lambda: len(app.main.editor.images) == 1)
        type_raw(app, "\r")

        def under_the_question() -> str:
            rows = screen_text(app).splitlines()
            question = next((n for n, row in enumerate(rows) if "what is this?" in row), None)
            return rows[question + 1] if question is not None and question + 1 < len(rows) else ""

        await wait_for(pilot, lambda: line in under_the_question())  # the send reaches the transcript in its turn
        await wait(pilot)  # and the demo's reply is written: the session file holds the turn
        path = app.runtime.host.session.path
    reopened = make_app(session=path)
    async with reopened.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await pilot.press("home")  # the first message: the demo's long reply fills the view below it
        await wait_for(pilot, lambda: line in screen_text(reopened))


@pytest.mark.parametrize("pasted", [
    "\r".join(f"line {n} of a pasted note" for n in range(1, 7)),  # tmux paste-buffer -p: line breaks as CR
    "a long line " * 30,  # one line longer than a file name may be (ENAMETOOLONG)
    "~nosuchuser/shot.png",  # a home folder that does not exist
], ids=["cr-lines", "long-line", "unknown-user"])
async def test_pasted_text_that_names_no_image_lands_in_the_editor_whole(make_app, wait, wait_for,
                                                                         pasted: str) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        editor = app.main.editor
        type_raw(app, "my draft: ")
        type_raw(app, f"\x1b[200~{pasted}\x1b[201~")
        expected = "my draft: " + pasted.replace("\r", "\n")
        await wait_for(pilot, lambda: editor.text == expected)
        assert app.is_running and not editor.images


async def test_alt_up_takes_the_queued_messages_back_and_the_agent_goes_on(make_app, wait, wait_for) -> None:
    async with two_queued(make_app) as (app, pilot):
        editor = app.main.editor
        editor.load_text("draft")
        type_raw(app, ALT_UP)  # Alt+Up as a terminal sends it
        await wait_for(pilot, lambda: editor.text == "steer now\n\nand later this\n\ndraft")
        assert not app.live.queued and not app.main.status.lines.display
        assert not app.runtime.host.is_idle  # the agent was not stopped
        app.client.delay = 0
        await wait(pilot)
        assert [message["content"][0]["text"] for message in user_messages(app)] == ["fix the failing test"]
        replies = [item for item in app.main.transcript.conversation.items if item.kind == "assistant"]
        assert replies[-1].message["stopReason"] == "stop"  # the task ran to its end


CTRL_A, CTRL_C, CTRL_D, CTRL_E, CTRL_T, HOME, END = "\x01", "\x03", "\x04", "\x05", "\x14", "\x1b[H", "\x1b[F"


@pytest.mark.parametrize(("burst", "text"), [
    ("hello wor" + CTRL_D, "hello wor"),  # not empty when Ctrl+D comes: no quit, nothing lost
    ("abc def" + CTRL_A + "X" + CTRL_E + "Y", "Xabc defY"),
    ("abc def" + HOME + "X" + END + "Y", "Xabc defY"),
    ("some text" + CTRL_C + "new", "new"),  # Ctrl+C clears what was typed before it, not after
    ("look at @inv\t", "look at @invoicer/"),  # Tab completes what was typed, as typed slowly
    ("look at @invoicer/pri\tnow", "look at @invoicer/pricing.py now"),
], ids=["ctrl-d", "ctrl-a-ctrl-e", "home-end", "ctrl-c", "tab", "tab-then-typing"])
async def test_every_key_of_a_burst_acts_on_the_text_typed_before_it(make_app, wait, wait_for, burst: str,
                                                                      text: str) -> None:
    """Keys that come in one burst (tmux send-keys, typing ahead on a busy machine, SSH), fed as one chunk of
    terminal bytes: all are queued before the first is handled."""
    app = make_app(clock_step=1.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        type_raw(app, burst)
        await wait_for(pilot, lambda: app.main.editor.text == text)
        await wait(pilot)
        assert app.is_running and app.main.editor.text == text


async def test_the_apps_keys_work_with_the_focus_away_from_the_editor(make_app, wait, wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        app.set_focus(None)
        await pilot.pause()
        transcript = app.main.transcript
        type_raw(app, CTRL_T)
        await wait_for(pilot, lambda: transcript.show_thinking)
        type_raw(app, CTRL_D)  # the editor is empty: quit
        await wait_for(pilot, lambda: not app.is_running)
