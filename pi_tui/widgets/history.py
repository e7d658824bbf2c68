"""The transcript's earlier items as lines: one widget however long the session is.

Textual lays out every mounted widget at every refresh, so the transcript mounts only its newest items
as widgets (see transcript.py); a page of earlier ones mounted on request took seconds on a long
session and made every later frame slower. Everything before those widgets is drawn here instead,
through Textual's line API: an item is rendered to lines once (from the same contents its block
shows) and only the rows in view are painted, so loading a page costs milliseconds and the whole
history scrolls.

Items are rendered when the reader comes to them. The rendered ones form two runs: from the first item
on (after Home) and up to the first widget (PageUp at the top, scrolling up); the line between them
says how many are not rendered yet and is filled in as it comes into view. A click on an item unfolds
its tool output and thinking, as a click on its cards does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from markdown_it import MarkdownIt
from rich.markdown import Heading, Markdown
from rich.segment import Segment
from textual import events
from textual.content import Content
from textual.message import Message
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual
from textual.widget import Widget

from condense.plural import counted
from pi_tui.conversation.folds import fold_body
from pi_tui.conversation.model import Call, Item, ending_line
from pi_tui.widgets.blocks import (
    bash_content,
    custom_content,
    fold_header,
    thinking_content,
    user_content,
)
from pi_tui.widgets.tool_card import card_class, card_content, finished_status

MarkFor = Callable[[Call], str]
Row = list[Segment]  # one row's segments: a Strip each is made only when painted (a Strip holds caches)
ChainFor = Callable[[Mapping[str, Any]], str]
PADDING = 1  # cells left and right of every block, as the blocks' CSS has it


@dataclass
class Look:
    """What decides how an item is drawn: the transcript's folding keys and condense's marks. The
    transcript owns it; its history reads it."""

    tools_expanded: bool = False
    show_thinking: bool = False
    mark_for: MarkFor = lambda call: ""
    chain_for: ChainFor = lambda message: ""


class _LeftHeading(Heading):
    """Headings start at the left, as the live transcript's Markdown has them (rich centres `#`)."""

    LEVEL_ALIGN: ClassVar[dict[str, Any]] = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


class _Markdown(Markdown):
    elements: ClassVar[dict[str, Any]] = {**Markdown.elements, "heading_open": _LeftHeading}

    def __init__(self, markup: str) -> None:
        """rich's own sets up a new markdown-it parser per text (a millisecond each, more than the parse);
        one parser, set up as rich sets it up, serves every text."""
        self.markup = markup
        self.parsed = _parser().parse(markup)
        self.code_theme = self.inline_code_theme = "monokai"
        self.justify = None
        self.style = "none"
        self.hyperlinks = True
        self.inline_code_lexer = None


@functools.cache
def _parser() -> MarkdownIt:
    return MarkdownIt().enable("strikethrough").enable("table")


def calls_of(item: Item) -> list[Call]:
    """The tool calls an item shows: an assistant reply's, or an orphan result's own."""
    if item.kind == "result":
        message = item.message
        return [Call(str(message.get("toolCallId", "")), str(message.get("toolName", "")), {}, message)]
    return list(item.calls.values())


class History(Widget):
    """Items `0 .. end` of the conversation, rendered in two runs: `0 .. head_end` and `tail_start .. end`."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "history--gap", "history--user", "history--note", "history--note-warning", "history--note-error",
        "history--thinking", "history--fold", "history--fold-header", "history--custom", "history--bash",
        "history--card-pending", "history--card-success", "history--card-error", "history--error",
        "history--aborted",
    }
    # mirrors the blocks' CSS (blocks.py, tool_card.py, assistant.py): the same items look the same here
    DEFAULT_CSS = """
    History { height: auto; }
    History > .history--gap { color: $accent; text-style: italic; }
    History > .history--user { background: $user-message-bg; }
    History > .history--note { color: $muted; }
    History > .history--note-warning { color: $warning; }
    History > .history--note-error { color: $error; }
    History > .history--thinking { color: $thinking-text; text-style: italic; }
    History > .history--fold { background: $custom-message-bg; }
    History > .history--fold-header { background: $custom-message-bg; color: $custom-message-label; }
    History > .history--custom { background: $custom-message-bg; }
    History > .history--bash { background: $tool-pending-bg; }
    History > .history--card-pending { background: $tool-pending-bg; }
    History > .history--card-success { background: $tool-success-bg; }
    History > .history--card-error { background: $tool-error-bg; }
    History > .history--error { color: $error; }
    History > .history--aborted { color: $warning; }
    """

    class GapPressed(Message):
        """The line of items not rendered yet was clicked."""

    def __init__(self, look: Look) -> None:
        super().__init__()
        self.look = look
        self.items: list[Item] = []
        self.end = 0
        self.head_end = 0
        self.tail_start = 0
        self.unfolded: set[int] = set()  # the items a click unfolded, by id(item)
        self._width = 0
        # by id(item): an item inserted among them (a summary beside its turn) moves the others' indexes
        self._cache: dict[int, tuple[tuple[Any, ...], list[Row]]] = {}
        self._rows: list[Row] = []
        self._row_items: list[int] = []  # the item of each row; -1 for the gap line
        self._gap_row = 0

    # ----- which items are rendered ------------------------------------------------------------

    def reset(self, items: list[Item], end: int) -> None:
        """A newly shown conversation: none of its `end` earlier items rendered yet."""
        self.items = items
        self.end = self.tail_start = end
        self.head_end = 0
        self.unfolded.clear()
        self._cache.clear()
        self.relayout()

    @property
    def gap(self) -> int:
        """How many items are not rendered."""
        return self.tail_start - self.head_end

    @property
    def gap_row(self) -> int | None:
        """The row of the line that stands for the items not rendered (None when all are)."""
        return self._gap_row if self.gap else None

    def earlier(self, count: int) -> int:
        """Render up to `count` items before the later run; returns how many rows that added above the
        rows after the gap (the caller keeps what the reader sees in place)."""
        before = len(self._rows)
        self.tail_start = max(self.head_end, self.tail_start - count)
        self.relayout()
        return len(self._rows) - before

    def later(self, count: int) -> None:
        """Render up to `count` items after the first run (rows below the gap move down)."""
        self.head_end = min(self.tail_start, self.head_end + count)
        self.relayout()

    def extend_to(self, end: int) -> None:
        """Items the transcript stopped showing as widgets join the history. The reader is at the
        bottom (the transcript drops widgets only then): they stay unrendered until scrolled to."""
        if not self.gap:
            self.head_end = self.end  # everything was rendered: one run from the first item
        self.end = self.tail_start = end
        self.relayout()

    def forget(self) -> None:
        """Render nothing again until the reader comes back (after Ctrl+O or Ctrl+T at the bottom: a
        whole history unfolded takes a second to render, and nobody is looking at it)."""
        self.head_end, self.tail_start = 0, self.end
        self.relayout()

    def inserted(self, index: int) -> None:
        """The conversation took an item at `index`, among the history's (condense's summary of a turn
        above the widgets, put beside that turn): it is drawn there if its neighbours are."""
        self.end += 1
        if index < self.head_end:
            self.head_end += 1
        if index < self.tail_start:
            self.tail_start += 1
        self.relayout()

    def unfold(self, index: int) -> None:
        self.unfolded.symmetric_difference_update({id(self.items[index])})
        self.relayout()

    # ----- rows ---------------------------------------------------------------------------------

    def relayout(self) -> None:
        """Lay the rows out again, rendering what is new or looks different now (a fold, a mark)."""
        self.display = self.end > 0
        if not self._width:
            return  # not laid out yet: `get_content_height` does it with the width
        rows: list[Row] = []
        owners: list[int] = []
        shown = [*range(self.head_end), *([-1] if self.gap else []), *range(self.tail_start, self.end)]
        for index in shown:
            if index < 0:
                self._gap_row = len(rows)
            lines = self._gap_lines() if index < 0 else self._lines(index)
            rows += lines
            owners += [index] * len(lines)
        self._rows, self._row_items = rows, owners
        self.refresh(layout=True)

    @property
    def rows_not_laid_out(self) -> int:
        """Rows added since the last layout (the next refresh makes the transcript that much taller)."""
        return len(self._rows) - self.size.height if self.display else 0

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        if width != self._width:
            self._width = width
            self._cache.clear()
            self.relayout()
        return len(self._rows)

    def render_line(self, y: int) -> Strip:
        return Strip(self._rows[y], self._width) if 0 <= y < len(self._rows) else Strip.blank(self._width)

    def item_at(self, row: int) -> int | None:
        """The item drawn on a row of this widget (None on the gap line or past the end)."""
        index = self._row_items[row] if 0 <= row < len(self._row_items) else -1
        return index if index >= 0 else None

    def on_click(self, event: events.Click) -> None:
        index = self.item_at(event.y)
        if index is None:
            self.post_message(self.GapPressed())
        else:
            self.unfold(index)

    # ----- rendering ----------------------------------------------------------------------------

    def _gap_lines(self) -> list[Row]:
        hidden = self.gap
        where = "PageUp at the top, or Home for the first" if self.head_end == 0 else "scroll on"
        text = f"{'▲' if self.head_end == 0 else '⋯'} {counted(hidden, 'earlier item')} · {where}"
        return self._block(Content(text), "history--gap", margin=False)

    def _key(self, index: int) -> tuple[Any, ...]:
        """Everything an item's lines depend on: when it changes, the item is rendered again."""
        item, look = self.items[index], self.look
        unfolded = id(item) in self.unfolded
        marks = tuple(look.mark_for(call) for call in calls_of(item))
        chain = look.chain_for(item.message) if item.kind == "user" else ""
        return self._width, look.tools_expanded or unfolded, look.show_thinking or unfolded, marks, chain

    def _lines(self, index: int) -> list[Row]:
        key = self._key(index)
        item = self.items[index]
        cached = self._cache.get(id(item))
        if cached is None or cached[0] != key:
            cached = key, self._render_item(item, key[1], key[2], key[3], key[4])
            self._cache[id(item)] = cached
        return cached[1]

    def _render_item(self, item: Item, tools: bool, thinking: bool, marks: tuple[str, ...],
                     chain: str) -> list[Row]:
        message = item.message
        if item.kind == "assistant":
            return self._assistant(item, tools, thinking, marks)
        if item.kind == "user":
            return self._block(user_content(message, chain), "history--user")
        if item.kind == "result":
            return self._cards(calls_of(item), tools, marks)
        if item.kind == "bash":
            return self._block(bash_content(message, tools), "history--bash")
        if item.kind == "custom":
            return self._block(custom_content(message), "history--custom")
        if item.kind in ("summary", "compaction", "branch"):
            header = self._block(fold_header(item, tools), "history--fold-header")
            body = self._markdown(fold_body(item), "history--fold", margin=False) if tools else []
            return header + body
        level = "" if item.level == "info" else f"-{item.level}"
        return self._block(Content(str(message.get("text", ""))), f"history--note{level}")

    def _assistant(self, item: Item, tools: bool, thinking: bool, marks: tuple[str, ...]) -> list[Row]:
        lines: list[Row] = []
        calls = dict(zip(item.calls, marks, strict=False))
        for block in item.message.get("content") or []:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and str(block.get("text", "")).strip():
                lines += self._markdown(str(block["text"]), None)
            elif kind == "thinking" and (str(block.get("thinking", "")).strip() or block.get("redacted")):
                content = thinking_content(str(block.get("thinking", "")), thinking, bool(block.get("redacted")))
                lines += self._block(content, "history--thinking")
            elif kind == "toolCall" and (call := item.calls.get(str(block.get("id", "")))) is not None:
                lines += self._cards([call], tools, (calls.get(call.id, ""),))
        ending = ending_line(item.message)
        if ending is not None:
            lines += self._block(Content(ending[0]), f"history--{ending[1]}")
        return lines

    def _cards(self, calls: list[Call], expanded: bool, marks: tuple[str, ...]) -> list[Row]:
        lines: list[Row] = []
        for call, mark in zip(calls, marks, strict=False):
            status = finished_status(call)
            content = card_content(call, status, expanded=expanded, mark=mark, width=self._inner_width)
            lines += self._block(content, f"history--card{card_class(status)}")
        return lines

    @property
    def _inner_width(self) -> int:
        return max(1, self._width - 2 * PADDING)

    def _style(self, component: str | None) -> Style:
        return self.get_visual_style(component) if component else self.visual_style

    def _padded(self, lines: list[list[Segment]], style: Style, margin: bool) -> list[Row]:
        """Lines of the inner width as rows: the blocks' padding either side, their top margin above."""
        pad = Segment(" " * PADDING, style.rich_style)
        rows = [[pad, *line, pad] for line in lines]
        return [[Segment(" " * self._width, self.visual_style.rich_style)], *rows] if margin else rows

    def _block(self, content: Content, component: str, margin: bool = True) -> list[Row]:
        style = self._style(component)
        strips = Visual.to_strips(self, content, self._inner_width, None, style, pad=True)
        return self._padded([list(strip) for strip in strips], style, margin)

    def _markdown(self, text: str, component: str | None, margin: bool = True) -> list[Row]:
        """Markdown drawn by rich: a page of it costs a millisecond, where Textual's Markdown widget
        costs one widget per paragraph."""
        style = self._style(component)
        console = self.app.console
        options = console.options.update(width=self._inner_width, height=None)
        rendered = console.render_lines(_Markdown(text), options, style=style.rich_style, pad=True)
        return self._padded(rendered, style, margin)

