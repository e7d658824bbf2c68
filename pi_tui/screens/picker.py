"""A searchable list in an overlay: `/model`, `/resume`, `/theme`, `/tree`, `/pruner`.

Typing filters names (prefix, then substring, then letters in order; descriptions when no name
matches); a choice is one line, its description cut with `…`. Up/Down move; Enter chooses; Esc
closes with None. `custom` lets Enter accept text that matches nothing (a model ref not listed), and
with `empty_custom` no text at all (a label removed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from textual import events
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from pi_tui.widgets import keymap
from pi_tui.widgets.completion import ranked
from pi_tui.widgets.option_rows import fitted, row_width

MAX_SHOWN = 200  # rows: `/model` lists thousands, and a list that long is read by typing, not scrolling
MIN_LABEL = 16  # cells a label keeps however long its description: fewer name nothing
ID_SHARE = 2 / 3  # of a row, what an identifier label keeps before its description gives way
NARROW = 100  # columns below which the picker takes the terminal's whole width
KEYS_HINT = "type to filter · ↑↓ move · Enter choose · Esc close"


@dataclass(frozen=True)
class Choice:
    value: Any
    label: str
    description: str = ""


def filter_choices(choices: list[Choice], query: str) -> list[Choice]:
    """Names first (prefix, then substring, then letters in order); descriptions only when no name
    matches, so a word that appears in many descriptions does not bury the one name it starts."""
    q = query.strip().lower()
    if not q:
        return list(choices)
    by_name = ranked(choices, q, lambda choice: choice.label)
    return by_name or ranked(choices, q, lambda choice: choice.description)


class PickerScreen(ModalScreen[Any]):
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.PICKER]
    # at 80 columns 80% left `/model` rows 16 cells of id: `anthropic/claud…` four times over. Not a
    # ClassVar: Textual declares it as an instance variable, which a ClassVar may not override
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]  # noqa: RUF012
    DEFAULT_CSS = """
    PickerScreen { align: center middle; }
    PickerScreen > #picker {
        width: 80%; max-width: 110; height: auto; max-height: 80%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    PickerScreen.-narrow > #picker { width: 100%; }
    PickerScreen .picker-title { color: $accent; text-style: bold; }
    PickerScreen Input { background: $surface; }
    PickerScreen OptionList { height: auto; max-height: 24; border: none; background: $surface;
                              text-wrap: nowrap; text-overflow: ellipsis; }
    PickerScreen .picker-hint { color: $muted; }
    """

    def __init__(self, title: str, choices: list[Choice], *, query: str = "", current: Any = None,
                 custom: Callable[[str], Any] | None = None, hint: str = "", empty_custom: bool = False,
                 placeholder: str = "filter…") -> None:
        """`placeholder`: what the empty input is for (a picker with no choices takes text, not a filter)."""
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.query_text = query
        self.current = current
        self.custom = custom
        self.empty_custom = empty_custom
        self.hint = hint or KEYS_HINT
        self.shown: list[Choice] = []
        # compact: one row that keeps its text when focused (the focus style draws a tall border over it)
        self.input = Input(query, placeholder=placeholder, id="picker-filter", compact=True)
        self.options = OptionList(id="picker-options")
        self.hint_line = Static(Content(self.hint), classes="picker-hint")

    def compose(self) -> Iterator[Widget]:
        with Vertical(id="picker"):
            yield Static(Content(self.title_text), classes="picker-title")
            yield self.input
            yield self.options
            yield self.hint_line

    def on_mount(self) -> None:
        self._fill(self.query_text)
        self.input.focus()
        self.call_after_refresh(self._refit)  # laid out now: the rows' real width

    def _fill(self, query: str, keep: int | None = None) -> None:
        """The choices `query` finds; `keep`: the row to highlight (the current choice, else the first)."""
        found = filter_choices(self.choices, query)
        self.shown = found[:MAX_SHOWN]
        more = len(found) - len(self.shown)
        self.hint_line.update(Content(f"{more} more: type to narrow · {self.hint}" if more > 0 else self.hint))
        width = row_width(self.options, len(self.shown), self.app.size.width)
        self.options.clear_options()
        self.options.add_options([self._option(choice, width) for choice in self.shown])
        if self.shown:
            values = [choice.value for choice in self.shown]
            current = values.index(self.current) if self.current in values and not query else 0
            self.options.highlighted = keep if keep is not None and keep < len(values) else current

    def _option(self, choice: Choice, width: int) -> Option:
        """A choice's row: its description (a session's date and size) is not cut away by a long label,
        which gives way down to a few words (MIN_LABEL cells). A label that is an identifier (no spaces: a
        model's provider/id) is what tells the row apart: it keeps up to ID_SHARE of the row, the
        description giving way first, and is cut in its middle."""
        mark = "● " if choice.value == self.current and self.current is not None else "  "
        tail = Content.styled("  " + choice.description, "$muted") if choice.description else Content()
        label = Content(choice.label)
        if choice.label and not any(char.isspace() for char in choice.label):
            keep = min(label.cell_length, int(width * ID_SHARE))
            return Option(fitted(Content(mark), label, tail, width, keep=keep, middle=True))
        return Option(fitted(Content(mark), label, tail, width, keep=MIN_LABEL))

    def on_resize(self, _: events.Resize) -> None:
        self._refit()

    def _refit(self) -> None:
        self._fill(self.input.value, self.options.highlighted)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def action_move(self, step: int) -> None:
        if self.shown:
            self.options.highlighted = ((self.options.highlighted or 0) + step) % len(self.shown)

    def action_choose(self) -> None:
        if self.shown and self.options.highlighted is not None:
            self.dismiss(self.shown[self.options.highlighted].value)
        elif self.custom is not None and (self.input.value.strip() or self.empty_custom):
            self.dismiss(self.custom(self.input.value.strip()))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the filter, after every letter typed before it."""
        event.stop()
        self.action_choose()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if 0 <= event.option_index < len(self.shown):
            self.dismiss(self.shown[event.option_index].value)

    def action_close(self) -> None:
        self.dismiss(None)
