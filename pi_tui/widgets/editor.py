"""The prompt editor: multi-line, with history, completion, Emacs' kill ring and image attachments.

Enter sends (the app steers the agent with it while it works), Alt+Enter queues a follow-up,
Shift+Enter or Ctrl+J starts a new line. Up on the first line and Down on the last walk the
history; anywhere else they move the cursor. `/` and `@` open the completion menu as you type;
Tab completes. Ctrl+K, Ctrl+U, Ctrl+W and Alt+D cut into a kill ring, Ctrl+Y puts the last cut back and
Alt+Y swaps it for an earlier one, as in Pi. A large paste shows as a marker (`pi_tui.widgets.pastes`).
Ctrl+V attaches the clipboard's image to the next message, and so does pasting (or dropping) an image
file's path. Keys come from `pi_tui.widgets.keymap`, so users can remap them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from textual import events
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Location

from condense.messages import ImageContent
from pi_tui.widgets import keymap
from pi_tui.widgets.completion import Completer, CompletionMenu, Suggestion
from pi_tui.widgets.kill_ring import KillRing
from pi_tui.widgets.pastes import Pastes, clean

Cut = Literal["line_end", "line_start", "word_left", "word_right"]

KeyBindings = Callable[[str, bool], Awaitable[bool]]  # run a key's bindings (priority ones or the rest)

HISTORY_LIMIT = 200
PLACEHOLDER = "Ask anything · / commands · @ files · !cmd runs a shell command"


class PromptEditor(TextArea):
    DEFAULT_CSS = """
    PromptEditor {
        height: auto; min-height: 3; max-height: 12; padding: 0 1;
        border: none; border-top: solid $primary 60%; border-bottom: solid $primary 60%;
        background: $background;
    }
    PromptEditor:focus { border: none; border-top: solid $primary; border-bottom: solid $primary; }
    PromptEditor .text-area--cursor-line { background: transparent; }
    """

    @dataclass
    class Submitted(Message):
        text: str
        follow_up: bool = False
        images: list[ImageContent] = field(default_factory=list)

    @dataclass
    class Problem(Message):
        """Something the user asked for that could not be done: the app shows it in the transcript."""

        text: str

    def __init__(self, menu: CompletionMenu, completer: Completer, bindings: KeyBindings) -> None:
        super().__init__(id="editor", soft_wrap=True, show_line_numbers=False, tab_behavior="focus",
                         placeholder=PLACEHOLDER)
        self.menu = menu
        self.completer = completer
        self.bindings = bindings
        self._followed = ""  # the text the menu and the history walk were last brought up to date with
        self.prompts: list[str] = []
        self._history_pos: int | None = None  # index into history while walking it
        self._draft = ""
        self.kill_ring = KillRing()
        self._last_action = ""  # the previous key's action: cuts in a row join, Alt+Y follows Ctrl+Y
        self._yanked: tuple[Location, Location] | None = None  # where Ctrl+Y put its text
        self.images: list[tuple[str, ImageContent]] = []  # (name, block): sent with the next message
        self.pastes = Pastes()  # large pastes, shown as markers

    # ----- keys ---------------------------------------------------------------------------------

    def key_actions(self) -> dict[str, str]:
        """The editor's keys (after the user's `[keymap]` remapping) and their actions."""
        remapped: dict[str, str] = getattr(self.app, "key_remaps", {})
        actions: dict[str, str] = {}
        for binding in keymap.EDITOR:
            for key in remapped.get(binding.id or "", binding.key).split(","):
                actions[key.strip()] = binding.action
        return actions

    async def _on_key(self, event: events.Key) -> None:
        """Each key does its work at its turn, on the text every key before it left: keys typed in one burst
        (tmux send-keys, a busy machine, SSH) all wait in the editor's queue, so the app leaves its bindings
        to the editor while it has focus (`bindings`: the app's priority ones first, then the editor's, then
        the rest of the chain, as Textual would order them), and the menu and the history walk follow the
        text before a key acts, not when that text's change message comes after it."""
        self._follow_text()
        action = self.key_actions().get(event.key)
        if await self.bindings(event.key, True):
            action = ""
        elif action is not None:
            await self.run_action(action)
        elif await self.bindings(event.key, False):
            action = ""
        else:
            self._last_action = ""
            await super()._on_key(event)  # typing
            return
        event.stop()
        event.prevent_default()
        self._last_action = action.partition("(")[0]

    # ----- history ------------------------------------------------------------------------------

    def load_history(self, texts: list[str]) -> None:
        """Start from a session's earlier prompts."""
        self.prompts = [text for text in texts if text.strip()][-HISTORY_LIMIT:]
        self._history_pos = None

    def remember(self, text: str) -> None:
        if text.strip() and (not self.prompts or self.prompts[-1] != text):
            self.prompts.append(text)
            del self.prompts[:-HISTORY_LIMIT]
        self._history_pos = None

    def set_text(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def action_history(self, step: int) -> None:
        if self.menu.is_open:
            self.menu.move(step)
            return
        row = self.cursor_location[0]
        last_row = self.document.line_count - 1
        if step < 0 and row > 0:
            self.action_cursor_up()
            return
        if step > 0 and row < last_row:
            self.action_cursor_down()
            return
        self._walk_history(step)

    def _walk_history(self, step: int) -> None:
        if not self.prompts:
            return
        if self._history_pos is None:
            if step > 0:
                return
            self._draft = self.text
            position = len(self.prompts) - 1
        else:
            position = self._history_pos + step
        if position >= len(self.prompts):
            self._history_pos = None
            self.set_text(self._draft)
            return
        self._history_pos = max(0, position)
        self.set_text(self.prompts[self._history_pos])

    # ----- sending ------------------------------------------------------------------------------

    @property
    def full_text(self) -> str:
        """The message as it is sent: the editor's text with each paste marker's whole paste in its place."""
        return self.pastes.expand(self.text)

    def _send(self, follow_up: bool) -> None:
        text = self.full_text
        if not text.strip() and not self.images:
            return
        images = [block for _, block in self.images]
        self.remember(text)
        self.discard()
        self.menu.hide()
        self.post_message(self.Submitted(text, follow_up, images))

    def discard(self) -> None:
        """No text and no attachment (sent, or Ctrl+C)."""
        self.load_text("")
        self.images = []
        self.pastes.clear()
        self._show_images()

    def action_submit(self) -> None:
        if self.menu.is_open:
            self.accept(self.menu.chosen())
            if not self.text.startswith("/"):
                return  # a path: keep writing; a command (or its argument) runs at once
        self._send(follow_up=False)

    def action_follow_up(self) -> None:
        self._send(follow_up=True)

    def action_newline(self) -> None:
        self.insert("\n")

    # ----- the kill ring ------------------------------------------------------------------------

    def _cut_range(self, cut: Cut) -> tuple[Location, Location]:
        row, column = self.cursor_location
        line = self.document.get_line(row)
        if cut == "line_end":  # at the end of a line, its newline
            end = (row, len(line)) if column < len(line) else (row + 1, 0) if row + 1 < self.document.line_count \
                else (row, column)
            return (row, column), end
        if cut == "line_start":
            start = (row, 0) if column > 0 else (row - 1, len(self.document.get_line(row - 1))) if row else (0, 0)
            return start, (row, column)
        if cut == "word_left":
            return self.get_cursor_word_left_location(), (row, column)
        return (row, column), self.get_cursor_word_right_location()

    def action_kill(self, cut: Cut) -> None:
        """Cut into the kill ring; cuts in a row join into one entry, in the order the text stood."""
        start, end = self._cut_range(cut)
        text = self.get_text_range(start, end)
        if not text:
            return
        self.kill_ring.push(text, before=cut in ("line_start", "word_left"), join=self._last_action == "kill")
        self.delete(start, end)

    def action_yank(self) -> None:
        text = self.kill_ring.peek()
        if text is not None:
            start = self.cursor_location
            self._yanked = start, self.insert(text).end_location

    def action_yank_pop(self) -> None:
        """Right after Ctrl+Y (or Alt+Y): the earlier cut instead of the one just put back."""
        if self._last_action not in ("yank", "yank_pop") or self._yanked is None:
            return
        text = self.kill_ring.rotate()
        if text is not None:
            start, end = self._yanked
            self._yanked = start, self.replace(text, start, end).end_location

    # ----- images ---------------------------------------------------------------------------------

    def attach(self, name: str, image: ImageContent) -> None:
        self.images.append((name, image))
        self._show_images()

    def _show_images(self) -> None:
        names = ", ".join(name for name, _ in self.images)
        self.border_title = f"📎 {names} · sent with the message · Ctrl+C drops" if self.images else None

    async def action_paste_image(self) -> None:
        """Ctrl+V: the clipboard's image, read by a clipboard tool (it may take a moment: a thread)."""
        from pi_tui.agent.images import clipboard_image, clipboard_tools  # the read tool: not on the first frame's path

        image = await asyncio.to_thread(clipboard_image)
        if image is not None:
            self.attach(f"clipboard image {len(self.images) + 1}", image)
        elif clipboard_tools():
            self.post_message(self.Problem("no image on the clipboard: copy an image, or paste the image file's path"))
        else:
            self.post_message(self.Problem("no clipboard tool to read an image: install wl-clipboard, xclip or "
                                           "pngpaste, or paste the image file's path"))

    async def _on_paste(self, event: events.Paste) -> None:
        """A pasted (or dropped) image file's path attaches the image; any other paste goes in as text, its
        line breaks of any kind as line breaks, a large one as a marker standing for it (as in Pi)."""
        from pi_tui.agent.images import image_at

        event.stop()
        event.prevent_default()  # TextArea's own handler would insert the paste as it came
        found = image_at(event.text, self.completer.cwd)
        if found is not None:
            self.attach(*found)
            return
        text = self.pastes.add(clean(event.text))
        if text:
            self.move_cursor(self.replace(text, *self.selection, maintain_selection_offset=False).end_location)

    # ----- paste markers: one unit ----------------------------------------------------------------

    def _outside_marker(self, location: Location, leftwards: bool) -> Location:
        """`location`, or the edge of the paste marker it falls inside: a marker moves and deletes as one
        unit, as in Pi (these four are what TextArea moves, deletes and Ctrl+W/Alt+D cut by)."""
        row, column = location
        for start, end in self.pastes.spans(self.document.get_line(row)):
            if start < column < end:
                return row, start if leftwards else end
        return location

    def get_cursor_left_location(self) -> Location:
        return self._outside_marker(super().get_cursor_left_location(), leftwards=True)

    def get_cursor_right_location(self) -> Location:
        return self._outside_marker(super().get_cursor_right_location(), leftwards=False)

    def get_cursor_word_left_location(self) -> Location:
        return self._outside_marker(super().get_cursor_word_left_location(), leftwards=True)

    def get_cursor_word_right_location(self) -> Location:
        return self._outside_marker(super().get_cursor_word_right_location(), leftwards=False)

    # ----- keys the app answers -----------------------------------------------------------------

    async def action_app(self, action: str) -> None:
        """A key of the editor's whose work is the app's (Alt+Up, Ctrl+G), run in order with the typing."""
        await self.run_action(f"app.{action}")

    async def action_home(self) -> None:
        """Home moves to the line's start; with nothing typed there is no line, and it goes to the
        transcript's first message instead."""
        if self.text:
            self.action_cursor_line_start()
        else:
            await self.run_action("app.jump_to_top")

    async def action_end(self) -> None:
        """End moves to the line's end; with nothing typed, it goes back to the newest output (Home's pair)."""
        if self.text:
            self.action_cursor_line_end()
        else:
            await self.run_action("app.jump_to_bottom")

    # ----- completion ---------------------------------------------------------------------------

    def _suggest(self) -> tuple[int, list[Suggestion]]:
        row, column = self.cursor_location
        before = self.document.get_line(row)[:column]
        return self.completer.suggest(before, first_line=row == 0)

    def refresh_menu(self) -> None:
        start, suggestions = self._suggest()
        self.menu.show(start, suggestions)

    def action_complete(self) -> None:
        if self.menu.is_open:
            self.accept(self.menu.chosen())
            return
        start, suggestions = self._suggest()
        if len(suggestions) == 1:
            self.menu.show(start, suggestions)
            self.accept(suggestions[0])
        else:
            self.menu.show(start, suggestions)

    def accept(self, suggestion: Suggestion | None) -> None:
        if suggestion is None:
            return
        row, column = self.cursor_location
        start = self.menu.start
        self.replace(suggestion.insert, (row, start), (row, column))
        self.move_cursor((row, start + len(suggestion.insert)))
        self.menu.hide()
        if suggestion.insert.endswith("/") or (suggestion.insert.endswith(" ") and row == 0):
            self.refresh_menu()  # a folder opens its entries; a command its arguments

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is self:
            self._follow_text()

    def _follow_text(self) -> None:
        """The history walk and the menu after a change of the text: before the next key acts, or when the
        change's message comes, whichever is first; once per text, so a late message never resets the row
        a key after it chose."""
        if self.text == self._followed:
            return
        self._followed = self.text
        self._history_pos = None if self.text != self._current_history_text() else self._history_pos
        if self._history_pos is not None:
            # a recalled prompt opens no menu: Up and Down must go on walking the history, not the menu
            self.menu.hide()
            return
        row, column = self.cursor_location
        before = self.document.get_line(row)[:column]
        if before.startswith("/") or "@" in before:
            self.refresh_menu()
        else:
            self.menu.hide()

    def _current_history_text(self) -> str | None:
        if self._history_pos is None:
            return None
        return self.prompts[self._history_pos]
