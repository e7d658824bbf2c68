"""The prompt editor: multi-line, with history and completion.

Enter sends (the app steers the agent with it while it works), Alt+Enter queues a follow-up,
Shift+Enter or Ctrl+J starts a new line. Up on the first line and Down on the last walk the
history; anywhere else they move the cursor. `/` and `@` open the completion menu as you type;
Tab completes. Keys come from `pi_tui.widgets.keymap`, so users can remap them.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from pi_tui.widgets import keymap
from pi_tui.widgets.completion import Completer, CompletionMenu, Suggestion

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

    def __init__(self, menu: CompletionMenu, completer: Completer) -> None:
        super().__init__(id="editor", soft_wrap=True, show_line_numbers=False, tab_behavior="focus",
                         placeholder=PLACEHOLDER)
        self.menu = menu
        self.completer = completer
        self.prompts: list[str] = []
        self._history_pos: int | None = None  # index into history while walking it
        self._draft = ""

    # ----- keys ---------------------------------------------------------------------------------

    def key_actions(self) -> dict[str, str]:
        """The editor's keys (after the user's `[keymap]` remapping) and their actions. The editor runs
        them from its own key handler, so they act on the text typed just before them."""
        remapped: dict[str, str] = getattr(self.app, "key_remaps", {})
        actions: dict[str, str] = {}
        for binding in keymap.EDITOR:
            for key in remapped.get(binding.id or "", binding.key).split(","):
                actions[key.strip()] = binding.action
        return actions

    async def _on_key(self, event: events.Key) -> None:
        action = self.key_actions().get(event.key)
        if action is None:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        await self.run_action(action)

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

    def _send(self, follow_up: bool) -> None:
        text = self.text
        if not text.strip():
            return
        self.remember(text)
        self.load_text("")
        self.menu.hide()
        self.post_message(self.Submitted(text, follow_up))

    def action_submit(self) -> None:
        if self.menu.is_open:
            # keys typed in one burst (a paste, tmux send-keys) reach us before the text-changed
            # messages that refresh the menu: a menu made for older text is replaced (a current one keeps
            # the entry the user picked with Up/Down)
            start, suggestions = self._suggest()
            if (start, suggestions) != (self.menu.start, self.menu.suggestions):
                self.menu.show(start, suggestions)
        if self.menu.is_open:
            self.accept(self.menu.chosen())
            if not self.text.startswith("/"):
                return  # a path: keep writing; a command (or its argument) runs at once
        self._send(follow_up=False)

    def action_follow_up(self) -> None:
        self._send(follow_up=True)

    def action_newline(self) -> None:
        self.insert("\n")

    async def action_home(self) -> None:
        """Home moves to the line's start; with nothing typed there is no line, and it goes to the
        transcript's first message instead."""
        if self.text:
            self.action_cursor_line_start()
        else:
            await self.run_action("app.jump_to_top")

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
        if event.text_area is not self:
            return
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
