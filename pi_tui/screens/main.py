"""The main screen: transcript, the rows above the editor, completion, the editor, the footer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from textual.screen import Screen
from textual.widget import Widget

from pi_tui.widgets.completion import Completer, CompletionMenu
from pi_tui.widgets.editor import KeyBindings, PromptEditor
from pi_tui.widgets.footer import PiFooter
from pi_tui.widgets.status import StatusArea
from pi_tui.widgets.tool_card import Clock
from pi_tui.widgets.transcript import Transcript


class MainScreen(Screen[None]):
    CSS_PATH = Path(__file__).with_name("main.tcss")
    AUTO_FOCUS = "#editor"

    def __init__(self, clock: Clock, completer: Completer, bindings: KeyBindings) -> None:
        super().__init__(id="main")
        self.transcript = Transcript(clock)
        self.status = StatusArea()
        self.menu = CompletionMenu()
        self.editor = PromptEditor(self.menu, completer, bindings)
        self.footer = PiFooter()

    def compose(self) -> Iterator[Widget]:
        yield self.transcript
        yield self.status
        yield self.menu
        yield self.editor
        yield self.footer
