"""The transcript: a bounded, scrollable view of the conversation model.

Textual's cost grows with the number of live widgets (every Markdown block is one), so only a window
of the newest items is mounted: opening a session of thousands of messages mounts the last `PAGE`
items, and while the user follows the conversation at the bottom, items beyond `LIMIT` are dropped
from the top down to `KEEP`. The model (`Conversation`) keeps everything; "load earlier" (a click on
the top line, or PageUp at the top) mounts the previous page again, one page at a time however fast
PageUp is pressed.

The view follows new output (Textual's anchor) unless the user scrolled up; a scroll that ends at the
bottom follows again, and while it does not, a mark on the last line says that new output is below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from pi_tui.conversation.model import Call, Conversation, Item
from pi_tui.widgets.assistant import AssistantBlock, MarkFor
from pi_tui.widgets.blocks import (
    BashBlock,
    CustomBlock,
    MarkdownFold,
    NoteBlock,
    SummaryBlock,
    SummaryTextBlock,
    ThinkingBlock,
    UserBlock,
)
from pi_tui.widgets.tool_card import Clock, ToolCard

ChainFor = Callable[[Mapping[str, Any]], str]


class LoadEarlier(Static):
    """The top line while older items are not mounted."""

    DEFAULT_CSS = """
    LoadEarlier { color: $accent; padding: 0 1; text-style: italic; }
    LoadEarlier:hover { text-style: italic underline; }
    """

    class Pressed(Message):
        pass

    def on_click(self) -> None:
        self.post_message(self.Pressed())


class NewOutputBelow(Static):
    """The view's last line while the user reads above and new output arrives below."""

    DEFAULT_CSS = """
    NewOutputBelow { dock: bottom; height: 1; padding: 0 1; background: $panel; color: $accent;
                     text-style: bold; }
    NewOutputBelow:hover { text-style: bold underline; }
    """

    class Pressed(Message):
        pass

    def __init__(self) -> None:
        super().__init__(Content("▼ new output below · click here or press Ctrl+End to jump to it"))
        self.display = False

    def on_click(self) -> None:
        self.post_message(self.Pressed())


class Transcript(VerticalScroll):
    PAGE = 20  # items: several screens of a real session; each one more costs layout time at open
    LIMIT = 120
    KEEP = 80

    DEFAULT_CSS = """
    Transcript { height: 1fr; scrollbar-size-vertical: 1; padding-bottom: 1; }
    """

    def __init__(self, clock: Clock, *, mark_for: MarkFor | None = None, chain_for: ChainFor | None = None,
                 id: str | None = "transcript") -> None:
        super().__init__(id=id)
        self.clock = clock
        self.mark_for: MarkFor = mark_for or (lambda call: "")
        self.chain_for: ChainFor = chain_for or (lambda message: "")
        self.conversation = Conversation()
        self.first_live = 0
        self.live: list[Widget] = []  # the widgets of conversation.items[first_live:], in order
        self.tools_expanded = False
        self.show_thinking = False
        self.load_button = LoadEarlier()
        self.load_button.display = False
        self.new_below = NewOutputBelow()
        self._loading = False  # a page of earlier items is being mounted and scrolled to

    def compose(self) -> Iterator[Widget]:
        yield self.load_button
        yield self.new_below

    # ----- building -----------------------------------------------------------------------------

    def make(self, item: Item) -> Widget:
        """The widget that shows one item."""
        if item.kind == "assistant":
            return AssistantBlock(item, clock=self.clock, tools_expanded=self.tools_expanded,
                                  show_thinking=self.show_thinking, mark_for=self.mark_for)
        if item.kind == "user":
            block = UserBlock(item)
            block.set_chain(self.chain_for(item.message))
            return block
        if item.kind == "summary":
            return SummaryBlock(item, self.tools_expanded)
        if item.kind == "result":  # a result whose call is not on the branch (an old, pruned session)
            message = item.message
            call = Call(str(message.get("toolCallId", "")), str(message.get("toolName", "")), {}, message)
            return ToolCard(call, expanded=self.tools_expanded, clock=self.clock, mark=self.mark_for(call))
        if item.kind == "bash":
            return BashBlock(item, self.tools_expanded)
        if item.kind in ("compaction", "branch"):
            return SummaryTextBlock(item, self.tools_expanded)
        if item.kind == "custom":
            return CustomBlock(item, self.tools_expanded)
        return NoteBlock(item)

    def _update_load_button(self) -> None:
        hidden = self.first_live
        self.load_button.display = hidden > 0
        if hidden:
            self.load_button.update(Content(f"▲ {hidden} earlier items · click here, or PageUp at the top,"
                                            f" to load {min(hidden, self.PAGE)} more"))

    # ----- showing ------------------------------------------------------------------------------

    async def show(self, conversation: Conversation) -> None:
        """Replace everything with a (newly loaded) conversation, showing its newest page."""
        self.conversation = conversation
        if self.live:
            await self.remove_children(self.live)
        self.first_live = max(0, len(conversation.items) - self.PAGE)
        self.live = [self.make(item) for item in conversation.items[self.first_live:]]
        if self.live:
            await self.mount_all(self.live)
        self._update_load_button()
        self.follow()

    # ----- following ----------------------------------------------------------------------------

    @property
    def is_following(self) -> bool:
        """Whether new output scrolls into view: the user has not scrolled up since the last time the
        view was at the bottom (then old items may also be unmounted)."""
        return self.is_anchored and not self._anchor_released

    def follow(self) -> None:
        """Jump to the newest output and keep following it."""
        self.new_below.display = False  # first: the mark takes a line from the view while shown
        self.anchor()
        # and repaint once laid out: a jump made while the editor's menu closes and a toast opens (a
        # command typed in one burst whose reply is a toast) moved the view but left the terminal
        # showing the old picture, and scroll keys seemed dead until something else repainted
        self.call_after_refresh(self.refresh)

    def release_anchor(self) -> None:
        """Every scroll by the user releases the anchor. Textual takes it again only when the position
        changes to the bottom, so a PageDown or wheel turn already at the bottom would stop following
        for good: one that ends at the bottom follows again here, checked as soon as the scroll is done
        (not after the next refresh: output streaming in meanwhile would have moved the bottom)."""
        super().release_anchor()
        self.call_next(self._follow_at_bottom)

    def _follow_at_bottom(self) -> None:
        if self.is_anchored and self.scroll_y >= self.max_scroll_y:
            self.follow()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.is_following:
            self.new_below.display = False

    def on_new_output_below_pressed(self, _: NewOutputBelow.Pressed) -> None:
        self.follow()

    async def page(self, direction: int) -> None:
        """PageUp / PageDown. PageUp at the top loads the previous page; while it loads, more PageUps at
        the top are dropped, so a burst of them loads one page, not one page per key."""
        if direction < 0 and self.scroll_y <= 0 and self.first_live > 0:
            await self.load_earlier()
            return
        # at once: Textual's page scroll waits for a refresh and starts from the position before it, so
        # a burst of keys would move one page in all
        page = self.scrollable_content_region.height
        self.scroll_to(y=self.scroll_y + direction * page, animate=False, immediate=True)

    # ----- adding -------------------------------------------------------------------------------

    async def append(self, item: Item) -> Widget:
        """Show an item that was just added to the conversation: at the end, or where the conversation put
        it (a summary beside its turn)."""
        widget = self.make(item)
        items = self.conversation.items
        if items and items[-1] is not item:
            await self._insert(item, widget)
            return widget
        self.live.append(widget)
        await self.mount(widget)
        if not self.is_following:  # asked after the mount: keys handled meanwhile may have moved the view
            self.new_below.display = True
        elif len(self.live) > self.LIMIT:
            await self._drop_oldest(len(self.live) - self.KEEP)
        return widget

    async def _insert(self, item: Item, widget: Widget) -> None:
        """Mount `widget` where `item` stands among the mounted items; one placed among those not mounted
        (above the view) is shown when they are."""
        items = self.conversation.items
        position = next(i for i in range(len(items) - 1, -1, -1) if items[i] is item) - self.first_live
        if position < 0:
            self.first_live += 1
            self._update_load_button()
            return
        await self.mount(widget, before=self.live[position])
        self.live.insert(position, widget)

    async def retract(self, widget: Widget) -> None:
        """Take back the newest item (a failed attempt the agent retries): the retry replaces it."""
        if not self.live or self.live[-1] is not widget:
            return
        self.live.pop()
        self.conversation.items.pop()
        await widget.remove()

    async def add_note(self, text: str, level: str = "info") -> Widget:
        """Show the app's own output (`/pruner status`): when it is taller than the view, from its start."""
        following = self.is_following
        widget = await self.append(self.conversation.note(text, level))
        if following:
            self.call_after_refresh(self._show_start, widget)
        return widget

    def _show_start(self, widget: Widget) -> None:
        if widget.outer_size.height > self.scrollable_content_region.height:
            self.scroll_to_widget(widget, animate=False, top=True)

    async def _drop_oldest(self, count: int) -> None:
        old, self.live = self.live[:count], self.live[count:]
        self.first_live += count
        await self.remove_children(old)
        self._update_load_button()

    async def load_earlier(self) -> int:
        """Mount the page of items before the first one shown; returns how many were added (none while
        another page is still being mounted and scrolled to)."""
        if self.first_live == 0 or self._loading:
            return 0
        self._loading = True
        start = max(0, self.first_live - self.PAGE)
        widgets = [self.make(item) for item in self.conversation.items[start:self.first_live]]
        keep_in_view = self.live[0] if self.live else None
        await self.mount_all(widgets, after=self.load_button)
        self.live = widgets + self.live
        self.first_live = start
        self._update_load_button()
        self.call_after_refresh(self._landed, keep_in_view)
        return len(widgets)

    def _landed(self, keep_in_view: Widget | None) -> None:
        """The earlier page is laid out: keep the item that was being read where it was."""
        if keep_in_view is not None:
            self.scroll_to_widget(keep_in_view, animate=False, top=True)
        self._loading = False

    async def on_load_earlier_pressed(self, _: LoadEarlier.Pressed) -> None:
        await self.load_earlier()

    # ----- live blocks --------------------------------------------------------------------------

    def assistant_blocks(self) -> Iterator[AssistantBlock]:
        return (w for w in self.live if isinstance(w, AssistantBlock))

    def card(self, call_id: str) -> ToolCard | None:
        for block in reversed(self.live):
            if isinstance(block, AssistantBlock) and call_id in block.cards:
                return block.cards[call_id]
        return None

    async def set_tools_expanded(self, expanded: bool) -> None:
        self.tools_expanded = expanded
        for widget in self.live:
            if isinstance(widget, AssistantBlock):
                widget.set_tools_expanded(expanded)
            elif isinstance(widget, MarkdownFold):
                await widget.set_expanded(expanded)
            elif isinstance(widget, ToolCard | BashBlock | CustomBlock):
                widget.set_expanded(expanded)

    def set_thinking_shown(self, shown: bool) -> None:
        self.show_thinking = shown
        for widget in self.live:
            if isinstance(widget, AssistantBlock):
                widget.set_thinking_shown(shown)
            elif isinstance(widget, ThinkingBlock):
                widget.set_expanded(shown)

    def refresh_marks(self) -> None:
        """Condense summarised or compressed something: re-mark the calls and chains shown."""
        for widget in self.live:
            if isinstance(widget, AssistantBlock):
                widget.refresh_marks()
            elif isinstance(widget, UserBlock):
                widget.set_chain(self.chain_for(widget.item.message))
            elif isinstance(widget, ToolCard):
                widget.set_mark(self.mark_for(widget.call))
