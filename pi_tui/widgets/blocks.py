"""The transcript's blocks, one per display item (the assistant's lives in `assistant.py`).

Blocks that can hide a body (thinking, summaries, shell output, compactions) fold to one line; a click
unfolds one, Ctrl+T / Ctrl+O unfold them all. Text from the session is never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from condense.messages import content_text
from pi_tui.conversation.folds import fold_body, fold_label
from pi_tui.conversation.model import Item, user_text
from pi_tui.conversation.text import image_label

PREVIEW_CHARS = 100
BASH_PREVIEW_LINES = 5


def _one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def user_content(message: Mapping[str, Any], chain: str) -> Content:
    """A user message, a line for each image it carries (as `pi-tui show` writes it: no picture in a
    terminal, but the model saw one), and under it the mark of the chain condense compressed from it."""
    content = message.get("content")
    images = [block for block in content if block.get("type") == "image"] if isinstance(content, list) else []
    text = user_text(message).rstrip()
    lines = [Content(text)] if text or not images else []
    lines += [Content.styled(image_label(block), "$muted") for block in images]
    if chain:
        lines.append(Content.styled(chain, "$custom-message-label"))
    return Content("\n").join(lines)


def thinking_content(text: str, expanded: bool, redacted: bool = False) -> Content:
    if redacted:
        return Content("thinking (redacted)")
    if expanded:
        return Content("thinking\n") + Content(text.strip())
    preview = _one_line(text)
    return Content.assemble("▸ thinking", (f" · {preview}" if preview else "", "$dim"))


def custom_content(message: Mapping[str, Any]) -> Content:
    label = Content.styled(f"[{message.get('customType', 'custom')}]", "$custom-message-label")
    text = content_text(message.get("content") or "").rstrip()
    return Content("\n").join([label, Content(text)]) if text else label


def bash_content(message: Mapping[str, Any], expanded: bool) -> Content:
    code = message.get("exitCode")
    status = "cancelled" if message.get("cancelled") else f"exit {code}" if code is not None else ""
    parts: list[str | tuple[str, str]] = [("$ ", "$bash-mode"), (str(message.get("command", "")), "bold")]
    if status:
        parts.append((f"  {status}", "$success" if code == 0 else "$error"))
    if message.get("excludeFromContext"):
        parts.append((" · not in context", "$muted"))
    lines = str(message.get("output", "")).expandtabs(4).rstrip("\n").split("\n")
    shown = lines if expanded else lines[-BASH_PREVIEW_LINES:]
    body = [Content.styled(line, "$muted") for line in shown if line or len(shown) > 1]
    if len(shown) < len(lines):
        body.insert(0, Content.styled(f"… {len(lines) - len(shown)} earlier lines", "$dim"))
    return Content("\n").join([Content.assemble(*parts), *body])


def fold_header(item: Item, expanded: bool) -> Content:
    return Content(f"{'▾' if expanded else '▸'} {fold_label(item)}")


class UserBlock(Static):
    DEFAULT_CSS = """
    UserBlock { background: $user-message-bg; padding: 0 1; margin-top: 1; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__()
        self.item = item
        self.chain = ""
        self.update(self._content())

    def _content(self) -> Content:
        return user_content(self.item.message, self.chain)

    def set_chain(self, chain: str) -> None:
        """Mark the start of a conversation chain that condense compressed (`⊟ compressed chain b2 ...`)."""
        if chain != self.chain:
            self.chain = chain
            self.update(self._content())


class NoteBlock(Static):
    """Output of the app's own commands (`/session`, `/pruner status`): shown, never saved."""

    DEFAULT_CSS = """
    NoteBlock { padding: 0 1; margin-top: 1; color: $muted; }
    NoteBlock.-warning { color: $warning; }
    NoteBlock.-error { color: $error; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(Content(str(item.message.get("text", ""))), classes=f"-{item.level}")
        self.item = item


class Foldable(Static):
    """A block with a one-line header and a body shown when `expanded`."""

    def __init__(self, item: Item, expanded: bool = False) -> None:
        super().__init__()
        self.item = item
        self.expanded = expanded

    def on_mount(self) -> None:
        self.refresh_block()

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.expanded:
            self.expanded = expanded
            self.refresh_block()

    def on_click(self) -> None:
        self.set_expanded(not self.expanded)

    def refresh_block(self) -> None:
        self.update(self.render_block())

    def render_block(self) -> Content:
        raise NotImplementedError


class ThinkingBlock(Foldable):
    """The model's thinking: one dim line folded (Ctrl+T shows all thinking)."""

    DEFAULT_CSS = """
    ThinkingBlock { padding: 0 1; margin-top: 1; color: $thinking-text; text-style: italic; }
    """

    def __init__(self, item: Item, text: str, expanded: bool = False, redacted: bool = False) -> None:
        super().__init__(item, expanded)
        self.text = text
        self.redacted = redacted
        self._pending_refresh = False

    def append(self, delta: str) -> None:
        """Streamed thinking: coalesce repaints, a long thought arrives in thousands of pieces."""
        self.text += delta
        if not self._pending_refresh:
            self._pending_refresh = True
            self.set_timer(0.1, self._flush)

    def _flush(self) -> None:
        self._pending_refresh = False
        self.refresh_block()

    def render_block(self) -> Content:
        return thinking_content(self.text, self.expanded, self.redacted)


def markdown(text: str) -> Widget:
    """Textual's Markdown widget, imported when first shown: markdown-it and pygments are not needed
    for the first frame."""
    from textual.widgets import Markdown

    return Markdown(text)


class MarkdownFold(Vertical):
    """A summary the session holds: a one-line label, and its Markdown body when unfolded (the
    Markdown widget is mounted only then: a long session holds hundreds of these)."""

    DEFAULT_CSS = """
    MarkdownFold { height: auto; background: $custom-message-bg; margin-top: 1; padding: 0 1; }
    MarkdownFold > .summary-header { color: $custom-message-label; }
    MarkdownFold > Markdown { background: transparent; margin: 0; padding: 0; }
    """

    def __init__(self, item: Item, expanded: bool = False) -> None:
        super().__init__()
        self.item = item
        self.expanded = expanded
        self.header = Static(fold_header(item, expanded), classes="summary-header")

    @property
    def body(self) -> str:
        return fold_body(self.item)

    def compose(self) -> Any:
        yield self.header
        if self.expanded:
            yield markdown(self.body)

    async def set_expanded(self, expanded: bool) -> None:
        if expanded == self.expanded:
            return
        self.expanded = expanded
        self.header.update(fold_header(self.item, expanded))
        if expanded:
            await self.mount(markdown(self.body))
        else:
            await self.query("Markdown").remove()

    async def on_click(self) -> None:
        await self.set_expanded(not self.expanded)


class SummaryBlock(MarkdownFold):
    """A condense summary: `[pruner] Turn N summary (K tools)`."""


class CustomBlock(Foldable):
    """A displayed custom message of some extension: its type as a label, its text below."""

    DEFAULT_CSS = """
    CustomBlock { background: $custom-message-bg; padding: 0 1; margin-top: 1; }
    """

    def render_block(self) -> Content:
        return custom_content(self.item.message)


class BashBlock(Foldable):
    """A command the user ran with `!` (or `!!`, kept out of the model's context)."""

    DEFAULT_CSS = """
    BashBlock { padding: 0 1; margin-top: 1; background: $tool-pending-bg; }
    """

    def render_block(self) -> Content:
        return bash_content(self.item.message, self.expanded)


class SummaryTextBlock(MarkdownFold):
    """A compaction or branch summary from the session, written in Markdown (`## Goal`, lists)."""
