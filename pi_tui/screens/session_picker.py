"""`/resume`'s picker: a picker of sessions with Pi's scope toggle. Tab switches between this folder's
sessions and every folder's, as in Pi, so a session started elsewhere, or whose folder is gone, can be
reached; the title says which scope is shown. The filter text and the current session stay across a switch."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.binding import BindingType
from textual.content import Content
from textual.widgets import Static

from pi_tui.screens.picker import KEYS_HINT, Choice, PickerScreen
from pi_tui.widgets import keymap

TITLES = {False: "Resume a session (this folder)", True: "Resume a session (all folders)"}
HINTS = {False: "Tab: all folders", True: "Tab: this folder"}


def scope_hint(everywhere: bool, any_session: bool) -> str:
    """The picker's keys, Tab first; an empty scope says so, since the list alone shows nothing."""
    empty = "" if any_session else ("no sessions yet · " if everywhere else "no sessions in this folder · ")
    return f"{empty}{HINTS[everywhere]} · {KEYS_HINT}"


class SessionPickerScreen(PickerScreen):
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.PICKER, *keymap.SESSION_PICKER]

    def __init__(self, sessions: Callable[[bool], list[Choice]], *, query: str = "", current: object = None,
                 everywhere: bool = False) -> None:
        """`sessions(everywhere)`: the choices of one scope, read at each switch (a session saved since shows)."""
        choices = sessions(everywhere)
        super().__init__(TITLES[everywhere], choices, query=query, current=current,
                         hint=scope_hint(everywhere, bool(choices)))
        self.sessions = sessions
        self.everywhere = everywhere

    def action_toggle_scope(self) -> None:
        self.everywhere = not self.everywhere
        self.choices = self.sessions(self.everywhere)
        self.title_text = TITLES[self.everywhere]
        self.hint = scope_hint(self.everywhere, bool(self.choices))
        self.query_one(".picker-title", Static).update(Content(self.title_text))
        self._fill(self.input.value)
