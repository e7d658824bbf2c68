"""The footer, laid out like Pi's: where you are, what the session cost, and what extensions report.

Line 1: the working folder (home as `~`), its git branch, the session's name.
Line 2: token and cost totals over every assistant message in the session file (all branches), the
context window in use (warning colour past 70%, error past 90%), and on the right the model and its
thinking level. Line 3: the status texts extensions set (condense's `prune: ON · ...`), by key, with
`│` between them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from textual.content import Content
from textual.widget import Widget

from condense.stats import format_tokens as format_tokens  # re-exported: screens show counts as the footer does


def _fixed(value: float, places: int) -> str:
    """`toFixed`: ties away from zero on the exact value (1250 tokens read 1.3k)."""
    return str(Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def display_path(path: str | Path, home: Path | None = None) -> str:
    text = str(path)
    home_text = str(home or Path.home())
    if text == home_text or text.startswith(home_text.rstrip("/") + "/"):
        return "~" + text[len(home_text.rstrip("/")):]
    return text


def git_branch(folder: Path) -> str | None:
    """The checked-out branch of the repository holding `folder` (short hash when detached)."""
    for candidate in (folder, *folder.parents):
        dot_git = candidate / ".git"
        try:
            if dot_git.is_file():  # a worktree or submodule: `gitdir: <path>`
                target = dot_git.read_text(encoding="utf-8").strip().removeprefix("gitdir:").strip()
                dot_git = (candidate / target).resolve()
            if not dot_git.is_dir():
                continue
            head = (dot_git / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if head.startswith("ref: "):
            return head.removeprefix("ref: ").removeprefix("refs/heads/")
        return head[:7] or None
    return None


@dataclass
class UsageTotals:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0

    def add(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        self.input += int(usage.get("input") or 0)
        self.output += int(usage.get("output") or 0)
        self.cache_read += int(usage.get("cacheRead") or 0)
        self.cache_write += int(usage.get("cacheWrite") or 0)
        cost = usage.get("cost")
        if isinstance(cost, dict):
            self.cost += float(cost.get("total") or 0.0)

    @classmethod
    def of_entries(cls, entries: list[dict[str, Any]]) -> UsageTotals:
        totals = cls()
        for entry in entries:
            message = entry.get("message")
            if entry.get("type") == "message" and isinstance(message, dict) and message.get("role") == "assistant":
                totals.add(message.get("usage"))
        return totals

    def text(self) -> str:
        parts = [f"↑{format_tokens(self.input)}" if self.input else "",
                 f"↓{format_tokens(self.output)}" if self.output else "",
                 f"R{format_tokens(self.cache_read)}" if self.cache_read else "",
                 f"W{format_tokens(self.cache_write)}" if self.cache_write else "",
                 f"${_fixed(self.cost, 3)}" if self.cost else ""]
        return " ".join(part for part in parts if part)


@dataclass
class FooterState:
    cwd: str = ""
    branch: str | None = None
    session_name: str | None = None
    totals: UsageTotals = field(default_factory=UsageTotals)
    context_percent: float | None = None
    context_window: int = 0
    model: str = ""
    thinking: str | None = None  # shown for reasoning models only
    statuses: dict[str, str] = field(default_factory=dict)


def context_style(percent: float | None) -> str:
    if percent is not None and percent > 90:
        return "$error"
    if percent is not None and percent > 70:
        return "$warning"
    return "$muted"


def _one_line(text: str) -> str:
    return " ".join(text.split())


class PiFooter(Widget):
    DEFAULT_CSS = """
    PiFooter { height: auto; padding: 0 1; color: $muted; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, id: str | None = "footer") -> None:
        super().__init__(id=id)
        self.state = FooterState()

    def show(self, state: FooterState) -> None:
        self.state = state
        self.refresh(layout=True)

    def lines(self, width: int) -> list[Content]:
        state = self.state
        where = state.cwd + (f" ({state.branch})" if state.branch else "")
        if state.session_name:
            where += f" • {state.session_name}"
        percent = "?" if state.context_percent is None else _fixed(state.context_percent, 1)
        # no window before the model is known (the first frame): no figure, rather than a false `?%/0`
        context = f"{percent}%/{format_tokens(state.context_window)}" if state.context_window else ""
        left = Content.assemble((state.totals.text() + "  " if state.totals.text() else "", "$muted"),
                                (context, context_style(state.context_percent)))
        right_text = state.model + (f" • {state.thinking}" if state.thinking else "")
        right = Content.styled(right_text, "$muted")
        gap = max(2, width - left.cell_length - right.cell_length)
        lines = [Content.styled(where, "$dim"), Content.assemble(left, " " * gap, right)]
        # Pi's statuses lead with a bar to part them on its shared line; on a line of their own that bar
        # would stand alone at the start: the bars go between them only.
        texts = [_one_line(state.statuses[key]).removeprefix("│").strip() for key in sorted(state.statuses)]
        statuses = " │ ".join(text for text in texts if text)
        if statuses:
            lines.append(Content.styled(statuses, "$muted"))
        return lines

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Content:
        return Content("\n").join(self.lines(self.content_size.width or self.size.width))
