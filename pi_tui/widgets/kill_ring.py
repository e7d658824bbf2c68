"""Emacs' kill ring, as Pi's editor keeps it: what Ctrl+K, Ctrl+U, Ctrl+W and Alt+D cut, for Ctrl+Y
to put back and Alt+Y to swap for an earlier cut.

Cuts made one after the other join into one entry (Ctrl+W three times is one entry of three words, in
the order they stood); the ring keeps the newest `SIZE`.
"""

from __future__ import annotations

SIZE = 60


class KillRing:
    def __init__(self) -> None:
        self.entries: list[str] = []  # oldest first; the last is what Ctrl+Y puts back

    def push(self, text: str, *, before: bool, join: bool) -> None:
        """Keep a cut. `before`: it stood before the cursor (it goes in front when joined); `join`: the
        previous key cut too, so this extends that entry."""
        if not text:
            return
        if join and self.entries:
            last = self.entries[-1]
            self.entries[-1] = text + last if before else last + text
            return
        self.entries.append(text)
        del self.entries[:-SIZE]

    def peek(self) -> str | None:
        return self.entries[-1] if self.entries else None

    def rotate(self) -> str | None:
        """Make the entry before the newest the one Ctrl+Y puts back (Alt+Y after Ctrl+Y); returns it."""
        if len(self.entries) > 1:
            self.entries.insert(0, self.entries.pop())
        return self.peek()
