"""Large pastes as one marker in the editor, as Pi shows them.

A paste of more than 10 lines or 1,000 characters goes into the editor as `[paste #1 +3000 lines]` (more
than 10 lines) or `[paste #2 1500 chars]`, and the message sent holds the whole text in the marker's place
(so do Ctrl+G's editor and the prompt history). The marker moves and deletes as one unit; changed by hand
it is plain text. Numbers start at 1 again with each message.
"""

from __future__ import annotations

import re

from pi_tui.terminal import without_controls

MAX_LINES = 10
MAX_CHARS = 1000
# a marker with its size, or without it (Pi expands both)
_MARKER = re.compile(r"\[paste #(\d+)(?: (?:\+\d+ lines|\d+ chars))?\]")


def clean(text: str) -> str:
    """A paste as the editor takes it: line breaks of every convention as `\\n` (terminals paste CR), and
    no control characters but tabs (they would go to the model as they are)."""
    return without_controls(text.replace("\r\n", "\n").replace("\r", "\n"))


class Pastes:
    """The large pastes of the message being written, by number."""

    def __init__(self) -> None:
        self.texts: dict[int, str] = {}

    def add(self, text: str) -> str:
        """What the editor shows for a paste: the text itself, or a marker that stands for a large one."""
        lines = text.count("\n") + 1
        if lines <= MAX_LINES and len(text) <= MAX_CHARS:
            return text
        number = len(self.texts) + 1
        self.texts[number] = text
        return f"[paste #{number} +{lines} lines]" if lines > MAX_LINES else f"[paste #{number} {len(text)} chars]"

    def expand(self, text: str) -> str:
        """`text` with each marker replaced by its paste (in one pass: a paste that quotes a marker stays as
        it was pasted)."""
        return _MARKER.sub(lambda marker: self.texts.get(int(marker[1]), marker[0]), text)

    def spans(self, line: str) -> list[tuple[int, int]]:
        """Where the markers of this message's pastes stand in `line`, as (start, end) columns."""
        return [found.span() for found in _MARKER.finditer(line) if int(found[1]) in self.texts]

    def clear(self) -> None:
        self.texts = {}
