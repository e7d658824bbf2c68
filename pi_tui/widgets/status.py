"""The rows above the editor: the working spinner, `/pruner now` progress, queued messages and the
line widgets extensions set (`set_widget`).

Spinners advance on a timer only while something runs, and not at all when the app's animation
level is "none" (tests and snapshots), so a still screen renders the same every time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPIN_INTERVAL = 0.1


class Spinning(Static):
    """A Static whose content depends on a spinner frame that ticks while `spinning` is true."""

    def __init__(self, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.frame = 0
        self._timer: Timer | None = None

    def on_mount(self) -> None:
        self.redraw()

    def _set_spinning(self, spinning: bool) -> None:
        if spinning and self._timer is None and self.app.animation_level != "none":
            self._timer = self.set_interval(SPIN_INTERVAL, self._tick)
        elif not spinning and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _tick(self) -> None:
        self.frame = (self.frame + 1) % len(SPINNER)
        self.redraw()

    @property
    def glyph(self) -> str:
        return SPINNER[self.frame]

    def redraw(self) -> None:
        raise NotImplementedError


class WorkingIndicator(Spinning):
    """`⠋ Working… (esc to abort)` while the agent runs; the retry countdown while it backs off."""

    DEFAULT_CSS = """
    WorkingIndicator { padding: 0 1; color: $accent; text-wrap: nowrap; text-overflow: ellipsis; }
    WorkingIndicator.-retry { color: $warning; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.text = ""
        self.display = False

    def show(self, text: str | None, retry: bool = False) -> None:
        self.text = text or ""
        self.display = bool(text)
        self.set_class(retry, "-retry")
        self._set_spinning(bool(text))
        self.redraw()

    def redraw(self) -> None:
        self.update(Content(f"{self.glyph} {self.text}") if self.text else Content(""))


@dataclass
class BatchRow:
    state: str = "running"  # running | done | failed
    chars: int = 0


class FlushProgress(Spinning):
    """`/pruner now`: one row per batch, its streamed summary size, then ✓ or ⚠."""

    DEFAULT_CSS = """
    FlushProgress { padding: 0 1; color: $muted; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[int, BatchRow] = {}
        self.display = False

    def report(self, batch: int, state: str, chars: int) -> None:
        """condense's progress callback: (batch index from 0, running|done|failed, summary chars)."""
        row = self.rows.setdefault(batch, BatchRow())
        row.state, row.chars = state, max(chars, row.chars) if state == "running" else chars
        self.display = True
        self._set_spinning(any(r.state == "running" for r in self.rows.values()))
        self.redraw()

    def clear(self) -> None:
        self.rows.clear()
        self.display = False
        self._set_spinning(False)
        self.redraw()

    def lines(self) -> Iterator[Content]:
        for batch in sorted(self.rows):
            row = self.rows[batch]
            size = f"{row.chars:,} chars"
            if row.state == "done":
                yield Content.assemble(("✓", "$success"), f" batch {batch + 1}  summary {size}")
            elif row.state == "failed":
                yield Content.assemble(("⚠", "$warning"), f" batch {batch + 1}  no summary (kept pending)")
            else:
                yield Content.assemble((self.glyph, "$accent"), f" batch {batch + 1}  summarizing… {size}")

    def redraw(self) -> None:
        self.update(Content("\n").join(list(self.lines())))


class LineWidgets(Static):
    """Line widgets of extensions and of the app (queued messages), by key; nothing when empty."""

    DEFAULT_CSS = """
    LineWidgets { padding: 0 1; color: $muted; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.widgets: dict[str, list[str]] = {}
        self.display = False

    def set(self, key: str, lines: list[str] | None) -> None:
        if lines:
            self.widgets[key] = list(lines)
        else:
            self.widgets.pop(key, None)
        rows = [line for name in sorted(self.widgets) for line in self.widgets[name]]
        self.display = bool(rows)
        self.update(Content("\n".join(rows)))


class StatusArea(Vertical):
    DEFAULT_CSS = """
    StatusArea { height: auto; }
    """

    def __init__(self) -> None:
        super().__init__(id="status-area")
        self.working = WorkingIndicator()
        self.progress = FlushProgress()
        self.lines = LineWidgets()

    def compose(self) -> Iterator[Widget]:
        yield self.progress
        yield self.lines
        yield self.working
