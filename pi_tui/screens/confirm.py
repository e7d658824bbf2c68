"""A yes/no question in an overlay (y or Enter: yes; n or Esc: no), for a step the user may not mean:
sending an unknown `/word` to the model as a paid request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from pi_tui.widgets import keymap


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.CONFIRM]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > #confirm {
        width: 80%; max-width: 90; height: auto; border: round $warning; background: $surface; padding: 0 1;
    }
    ConfirmScreen .confirm-question { color: $text; text-style: bold; }
    ConfirmScreen .confirm-hint { color: $muted; }
    """

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> Iterator[Widget]:
        with Vertical(id="confirm"):
            if self.detail:
                yield Static(Content(self.detail), classes="confirm-detail")
            yield Static(Content(self.question), classes="confirm-question")
            yield Static(Content("y / Enter: yes · n / Esc: no"), classes="confirm-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
