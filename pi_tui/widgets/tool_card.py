"""One card per tool call: what was called, on what, how it went, how long it took, and its output.

A card is a single Static (one widget however long the output), collapsed to its header by default:
long sessions hold hundreds of calls and their outputs are what the pruner summarises anyway. An
`edit` shows its coloured diff even collapsed, an error its first lines, because those are what a
reader looks for. Colours come from theme variables only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from textual.content import Content
from textual.widgets import Static

from condense.plural import counted
from pi_tui.conversation.call_subject import key_argument
from pi_tui.conversation.diff import DiffKind, diff_kind, diff_lines
from pi_tui.conversation.model import Call

Status = Literal["pending", "running", "done", "error", "missing", "aborted"]
Clock = Callable[[], float]

COLLAPSED_DIFF_LINES = 12
COLLAPSED_ERROR_LINES = 3
EXPANDED_LINES = 400
KEY_ARGUMENT_CHARS = 96
PATH_TOOLS = ("read", "write", "edit", "ls")  # their key argument is a path: shortened to fit one line


def _lines(text: str) -> list[str]:
    return text.expandtabs(4).rstrip("\n").split("\n") if text.strip() else []


def _clip(lines: list[str], limit: int) -> tuple[list[str], int]:
    return (lines, 0) if len(lines) <= limit else (lines[:limit], len(lines) - limit)


DIFF_STYLES: dict[DiffKind, str] = {"added": "$diff-added", "removed": "$diff-removed", "hunk": "$accent",
                                    "context": "$diff-context"}


def diff_line(line: str) -> Content:
    """One line of a unified diff in the theme's diff colours."""
    return Content.styled(line, DIFF_STYLES[diff_kind(line)])


def shorten_path(path: str, width: int) -> str:
    """`path` in at most `width` cells, cut from the left: a file's name and nearest folders are what
    tell calls apart, and a path wrapped onto two lines breaks inside a word."""
    if len(path) <= width:
        return path
    return "…" + path[len(path) - max(width, 2) + 1:]


def format_elapsed(seconds: float) -> str:
    return f"{seconds:.1f}s" if seconds < 60 else f"{int(seconds // 60)}m{int(seconds % 60):02d}s"


class ToolCard(Static):
    """A tool call; `expanded` shows its whole output (Ctrl+O expands every card)."""

    DEFAULT_CSS = """
    ToolCard { padding: 0 1; margin-top: 1; background: $tool-pending-bg; }
    ToolCard.-success { background: $tool-success-bg; }
    ToolCard.-error { background: $tool-error-bg; }
    """

    def __init__(self, call: Call, *, expanded: bool = False, clock: Clock, mark: str = "",
                 pending: bool = False) -> None:
        super().__init__(classes="tool-card")
        self.call = call
        self.expanded = expanded
        self.mark = mark
        self._clock = clock
        self._started: float | None = None
        self.elapsed: float | None = None
        self.partial = ""
        self.status: Status = "pending" if pending else finished_status(call)

    # ----- live updates -------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._apply()

    def start(self) -> None:
        self.status = "running"
        self._started = self._clock()
        self.set_interval(0.5, self._tick, name="elapsed")
        self._apply()

    def _tick(self) -> None:
        if self.status == "running":
            self._apply()

    def progress(self, text: str) -> None:
        self.partial = text
        self._apply()

    def finish(self, result: Mapping[str, Any] | None = None, is_error: bool | None = None) -> None:
        if result is not None:
            self.call.result = result
        if self._started is not None and self.elapsed is None:
            self.elapsed = self._clock() - self._started
        error = self.call.is_error if is_error is None else is_error
        self.status = "error" if error else "done"
        self._apply()

    def never_ran(self, aborted: bool) -> None:
        """The reply that made this call was aborted or failed: the call will not run. An abort is the
        user's doing and says so; "no result" would read as if the tool had failed silently."""
        if self.status in ("pending", "missing"):
            self.status = "aborted" if aborted else "missing"
            self._apply()

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.expanded:
            self.expanded = expanded
            self._apply()

    def refresh_args(self) -> None:
        """The call's arguments arrive whole when its streaming ends."""
        self._apply()

    def set_mark(self, mark: str) -> None:
        if mark != self.mark:
            self.mark = mark
            self._apply()

    def on_click(self) -> None:
        self.set_expanded(not self.expanded)

    def on_resize(self) -> None:
        self._apply()  # the header's path is shortened to the width

    # ----- rendering ----------------------------------------------------------------------------

    def _apply(self) -> None:
        shown = card_class(self.status)
        for name in ("-pending", "-success", "-error"):
            self.set_class(name == shown, name)
        self.update(self.render_card())

    def _elapsed_text(self) -> str:
        if self.status == "running" and self._started is not None:
            return format_elapsed(self._clock() - self._started)
        return format_elapsed(self.elapsed) if self.elapsed is not None else ""

    def render_card(self) -> Content:
        # the content region is 0 wide until laid out (`on_resize` renders again)
        return card_content(self.call, self.status, expanded=self.expanded, mark=self.mark,
                            elapsed=self._elapsed_text(), partial=self.partial, width=self.content_region.width)


def finished_status(call: Call) -> Status:
    """The status of a call of a finished reply: its result says how it went."""
    if call.result is None:
        return "missing"
    return "error" if call.is_error else "done"


def card_class(status: Status) -> str:
    """The class that colours a card's background: pending, success or error."""
    return {"done": "-success", "error": "-error"}.get(status, "-pending")


def card_header(call: Call, status: Status, *, expanded: bool, mark: str, elapsed: str, partial: str,
                width: int) -> Content:
    status_styles = {"pending": ("…", "$warning"), "running": ("running", "$warning"),
                     "done": ("ok", "$success"), "error": ("error", "$error"),
                     "missing": ("no result", "$muted"), "aborted": ("aborted", "$warning")}
    word, style = status_styles[status]
    argument = key_argument(call.name, call.args)
    if len(argument) > KEY_ARGUMENT_CHARS:
        argument = argument[: KEY_ARGUMENT_CHARS - 1] + "…"
    lines = len(_lines(call.output or partial))
    head: list[str | tuple[str, str]] = [("● ", style), (call.name, "bold $tool-title")]
    tail: list[str | tuple[str, str]] = ["  ", (word, style)]
    if elapsed:
        tail += [(f" {elapsed}", "$muted")]
    if lines and not expanded:
        tail += [(f" · {counted(lines, 'line')}", "$muted")]
    if mark:
        tail += [(f" · {mark}", "$custom-message-label")]
    if call.name in PATH_TOOLS and width:
        argument = shorten_path(argument, width - Content.assemble(*head, " ", *tail).cell_length)
    if argument:
        head += [" ", (argument, "$accent")]
    return Content.assemble(*head, *tail)


def card_body(call: Call, status: Status, *, expanded: bool, partial: str) -> list[Content]:
    details = (call.result or {}).get("details")
    diff = details.get("diff") if isinstance(details, dict) else None
    if isinstance(diff, str) and diff and status == "done":
        lines, hidden = _clip(diff_lines(diff), EXPANDED_LINES if expanded else COLLAPSED_DIFF_LINES)
        body = [diff_line(line) for line in lines]
    else:
        text = call.output or partial
        style = "$error" if status == "error" else "$foreground"
        if expanded:
            limit = EXPANDED_LINES
        elif status == "error":
            limit = COLLAPSED_ERROR_LINES
        else:
            return []
        lines, hidden = _clip(_lines(text), limit)
        body = [Content.styled(line, style) for line in lines]
    if hidden:
        body.append(Content.styled(f"… {hidden} more lines", "$muted"))
    return body


def card_content(call: Call, status: Status, *, expanded: bool, mark: str, elapsed: str = "", partial: str = "",
                 width: int = 0) -> Content:
    """What a card shows: its header and, as folding allows, its output. The transcript's earlier items
    (pi_tui/widgets/history.py) draw the same content without a card widget."""
    header = card_header(call, status, expanded=expanded, mark=mark, elapsed=elapsed, partial=partial, width=width)
    return Content("\n").join([header, *card_body(call, status, expanded=expanded, partial=partial)])
