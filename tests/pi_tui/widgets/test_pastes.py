"""Large pastes as Pi shows them: a marker in the editor, the whole text in the message sent and in the
session; the marker moves and deletes as one unit. Pastes go through Textual's key parser as a terminal
sends them (bracketed paste, line breaks as CR)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tui.widgets.pastes import Pastes, clean
from tests.support.tui import type_raw

LEFT, BACKSPACE, CTRL_W = "\x1b[D", "\x7f", "\x17"


def paste(app: Any, text: str) -> None:
    type_raw(app, f"\x1b[200~{text}\x1b[201~")


def sent_texts(app: Any) -> list[str]:
    return [entry["message"]["content"][0]["text"] for entry in app.runtime.host.session.entries
            if entry.get("type") == "message" and entry["message"]["role"] == "user"]


@pytest.mark.parametrize(("lines", "chars", "shown"), [
    (10, 20, None),  # at most 10 lines and 1,000 characters: the text itself
    (1, 1000, None),
    (11, 5, "[paste #1 +11 lines]"),
    (1, 1001, "[paste #1 1001 chars]"),
    (3, 600, "[paste #1 1802 chars]"),  # 3 x 600 and two line breaks
])
def test_a_paste_collapses_past_10_lines_or_1000_characters(lines: int, chars: int, shown: str | None) -> None:
    text = "\n".join("x" * chars for _ in range(lines))
    pastes = Pastes()
    assert pastes.add(text) == (shown or text)
    assert pastes.expand(f"see {shown or text} here") == f"see {text} here"


def test_markers_expand_with_or_without_their_size_and_only_their_own() -> None:
    pastes = Pastes()
    big = "\n".join(f"row {n} [paste #2]" for n in range(12))  # a paste that quotes a marker stays as pasted
    assert pastes.add(big) == "[paste #1 +12 lines]"
    assert pastes.expand("[paste #1] and [paste #1 +12 lines] and [paste #7 +20 lines]") == \
        f"{big} and {big} and [paste #7 +20 lines]"
    assert clean("a\r\nb\rc\x1b[31m\x00d\te") == "a\nb\nc[31md\te"


async def test_a_3000_line_paste_is_a_marker_and_the_message_holds_it_whole(make_app, wait, wait_for) -> None:
    lines = [f"log line {n}" for n in range(1, 3001)]
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        editor = app.main.editor
        type_raw(app, "what failed in ")
        paste(app, "\r".join(lines))  # tmux paste-buffer -p: line breaks as CR
        type_raw(app, "?")
        await wait_for(pilot, lambda: editor.text == "what failed in [paste #1 +3000 lines]?")
        assert editor.document.line_count == 1
        type_raw(app, "\r")
        await wait(pilot)
        assert sent_texts(app) == ["what failed in " + "\n".join(lines) + "?"]
        paste(app, "\r".join(lines[:20]))  # numbers start again with the next message
        await wait_for(pilot, lambda: editor.text == "[paste #1 +20 lines]")


async def test_a_marker_moves_and_deletes_as_one_unit(make_app, wait, wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        editor = app.main.editor
        type_raw(app, "a ")
        paste(app, "y" * 1200)
        type_raw(app, " b" + LEFT + LEFT + LEFT + "<")  # left over " b", then over the whole marker
        await wait_for(pilot, lambda: editor.text == "a <[paste #1 1200 chars] b")
        editor.move_cursor((0, len("a <[paste #1 1200 chars]")))
        type_raw(app, BACKSPACE)
        await wait_for(pilot, lambda: editor.text == "a < b")
        paste(app, "z" * 1300)
        type_raw(app, CTRL_W)  # the word before the cursor: the marker
        await wait_for(pilot, lambda: editor.text == "a < b")
        paste(app, "w" * 1400)
        await wait_for(pilot, lambda: editor.text == "a <[paste #3 1400 chars] b")
        editor.move_cursor((0, len("a <[paste #3")))  # a click inside it, then typing: plain text now
        type_raw(app, "!")
        await wait_for(pilot, lambda: editor.text == "a <[paste #3! 1400 chars] b")
        type_raw(app, "\r")
        await wait(pilot)
        assert sent_texts(app) == ["a <[paste #3! 1400 chars] b"]
