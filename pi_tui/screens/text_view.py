"""A bordered, scrollable overlay with a title: plain text (an original tool output) or Markdown
(a whole summary, `/hotkeys`). Esc or q closes it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Markdown, Static

from pi_tui.widgets import keymap


class TextViewScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.OVERLAY]
    DEFAULT_CSS = """
    TextViewScreen { align: center middle; }
    TextViewScreen > #view {
        width: 90%; height: 85%; border: round $primary; background: $surface; padding: 0 1;
    }
    TextViewScreen .view-title { color: $accent; text-style: bold; }
    TextViewScreen .view-hint { color: $muted; }
    TextViewScreen VerticalScroll { height: 1fr; }
    TextViewScreen Markdown { background: $surface; margin: 0; padding: 0; }
    """

    def __init__(self, title: str, text: str, *, markdown: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.markdown = markdown

    def compose(self) -> Iterator[Widget]:
        with Vertical(id="view"):
            yield Static(Content(self.title_text), classes="view-title")
            with VerticalScroll(id="view-body"):
                yield Markdown(self.text) if self.markdown else Static(Content(self.text.expandtabs(4)),
                                                                       id="view-text")
            yield Static(Content("↑↓ PgUp PgDn scroll · Esc close"), classes="view-hint")

    def on_mount(self) -> None:
        self.query_one("#view-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)
