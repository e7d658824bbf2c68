"""The terminal driver: Textual's own, except that a terminal that went away is written to no more.

When the terminal closes (a killed tmux pane, a closed window, a dropped ssh link), every write to it
fails with EIO. Textual's writer thread dies on the first such failure, and the app's next writes fill its
queue and block the event loop for good: pi-tui could then neither stop the bash tool's processes nor
save the stopped turn on the SIGHUP that follows, and never exited. Writes that find the terminal gone
are dropped instead, so the app ends as it would on a quit.
"""

from __future__ import annotations

from typing import IO, Any

from textual.drivers.linux_driver import LinuxDriver


class _Terminal:
    """A text stream to a terminal that may go away: once a write or flush fails, the rest are dropped."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except OSError:
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except OSError:
                self.gone = True

    def fileno(self) -> int:
        return self._stream.fileno()


class TerminalDriver(LinuxDriver):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        stream = self._file
        assert stream is not None  # Textual's driver writes to sys.__stderr__, which a terminal app has
        self._file = _Terminal(stream)  # type: ignore[assignment]  # the writer thread needs write, flush, fileno
