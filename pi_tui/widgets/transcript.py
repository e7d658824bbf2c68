"""The transcript: a bounded, scrollable view of the conversation model.

Textual's cost grows with the number of live widgets (every Markdown block is one), so only a window
of the newest items is mounted: opening a session of thousands of messages mounts the last `PAGE`
items, and while the user follows the conversation at the bottom, items beyond `LIMIT` are dropped
from the top down to `KEEP`. Everything before them is one `History` widget that draws them as lines
(history.py): PageUp at the top renders the page before, in milliseconds, and Home (on an empty
editor) or Ctrl+Home goes to the first message at once; scrolling fills in what lies between.

The view follows new output (Textual's anchor) unless the user scrolled up; a scroll that ends at the
bottom follows again, and while it does not, a mark on the last line says that new output is below.
"""

from __future__ import annotations

from collections.abc import Iterator

from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from pi_tui.conversation.model import Call, Conversation, Item
from pi_tui.widgets.assistant import AssistantBlock
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
from pi_tui.widgets.history import ChainFor, History, Look, MarkFor
from pi_tui.widgets.tool_card import Clock, ToolCard


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
        self.look = Look()
        if mark_for is not None:
            self.look.mark_for = mark_for
        if chain_for is not None:
            self.look.chain_for = chain_for
        self.conversation = Conversation()
        self.first_live = 0
        self.live: list[Widget] = []  # the widgets of conversation.items[first_live:], in order
        self.history = History(self.look)
        self.new_below = NewOutputBelow()
        self._filling = False  # a gap in the history coming into view is being filled
        self._moved_up = False  # the last scroll went up (a gap in view fills from its lower side)

    @property
    def tools_expanded(self) -> bool:
        return self.look.tools_expanded

    @property
    def show_thinking(self) -> bool:
        return self.look.show_thinking

    def compose(self) -> Iterator[Widget]:
        yield self.history
        yield self.new_below

    def on_mount(self) -> None:
        self.anchor()  # follow from the start: the first lines are no "new output below" an empty view

    # ----- building -----------------------------------------------------------------------------

    def make(self, item: Item) -> Widget:
        """The widget that shows one item."""
        if item.kind == "assistant":
            return AssistantBlock(item, clock=self.clock, tools_expanded=self.tools_expanded,
                                  show_thinking=self.show_thinking, mark_for=self.look.mark_for)
        if item.kind == "user":
            block = UserBlock(item)
            block.set_chain(self.look.chain_for(item.message))
            return block
        if item.kind == "summary":
            return SummaryBlock(item, self.tools_expanded)
        if item.kind == "result":  # a result whose call is not on the branch (an old, pruned session)
            message = item.message
            call = Call(str(message.get("toolCallId", "")), str(message.get("toolName", "")), {}, message)
            return ToolCard(call, expanded=self.tools_expanded, clock=self.clock, mark=self.look.mark_for(call))
        if item.kind == "bash":
            return BashBlock(item, self.tools_expanded)
        if item.kind in ("compaction", "branch"):
            return SummaryTextBlock(item, self.tools_expanded)
        if item.kind == "custom":
            return CustomBlock(item, self.tools_expanded)
        return NoteBlock(item)

    # ----- showing ------------------------------------------------------------------------------

    async def show(self, conversation: Conversation) -> None:
        """Replace everything with a (newly loaded) conversation, showing its newest page. In one frame:
        the old items stay on screen until the new ones are mounted (`/tree` blanked the screen while
        a long branch was built)."""
        old = self.live
        self.first_live = max(0, len(conversation.items) - self.PAGE)
        self.live = [self.make(item) for item in conversation.items[self.first_live:]]
        with self.app.batch_update():
            if self.live:
                await self.mount_all(self.live, before=self.new_below)
            if old:
                await self.remove_children(old)
            self.conversation = conversation
            self.history.reset(conversation.items, self.first_live)
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
        self._moved_up = new_value < old_value
        if self._gap_in_view() and not self._filling:
            self._filling = True
            self.call_after_refresh(self._fill_gap)

    def on_new_output_below_pressed(self, _: NewOutputBelow.Pressed) -> None:
        self.follow()

    async def page(self, direction: int) -> None:
        """PageUp / PageDown, at once: Textual's page scroll waits for a refresh and starts from the
        position before it, so a burst of keys would move one page in all. Items not rendered yet on the
        way are rendered first, so every key of a burst moves one page through the history."""
        target = self.scroll_y + direction * self.scrollable_content_region.height
        self._move_view(target + self._render_towards(target, up=direction < 0))
        if direction > 0 and self.scroll_y >= self.max_scroll_y + self.history.rows_not_laid_out:
            self.follow()  # now: output streaming in before the scroll's own check would move the bottom away

    def _render_towards(self, target: float, up: bool) -> int:
        """Render a page of the items not rendered yet when the view at `target` would reach their line:
        the earlier ones when going up (returns the rows that added above the view), the later ones
        going down (rows added below it)."""
        row = self.history.gap_row
        low, high = sorted((self.scroll_y, target))
        if row is None or not low <= row < high + self.scrollable_content_region.height:
            return 0
        if up or self.history.head_end == 0:
            return self.load_earlier()
        self.history.later(self.PAGE)
        return 0

    def _move_view(self, y: float) -> None:
        """Scroll to `y` at once, counting rows the history added that are not laid out yet: the next
        refresh lays them out and draws them with the view already moved (a scroll made after that
        refresh would show one frame of the wrong rows)."""
        y = min(max(0.0, y), self.max_scroll_y + self.history.rows_not_laid_out)
        if y <= self.max_scroll_y:
            self.scroll_to(y=y, animate=False, immediate=True)
            return
        self.set_reactive(Transcript.scroll_y, y)
        self.set_reactive(Transcript.scroll_target_y, y)
        self.vertical_scrollbar.position = y
        self._refresh_scroll()

    def home(self) -> None:
        """Go to the first message (Home on an empty editor, Ctrl+Home): render the first page if it is
        not yet, and stop following new output."""
        self.release_anchor()
        if self.history.head_end == 0 and self.history.gap:
            self.history.later(self.PAGE)
        self.scroll_to(y=0, animate=False, immediate=True)
        self._moved_up = False  # a gap under the first page fills downwards, as the reader goes

    def _gap_in_view(self) -> bool:
        row = self.history.gap_row
        return row is not None and self.scroll_y <= row < self.scroll_y + self.scrollable_content_region.height

    def _fill_gap(self) -> None:
        """The line of items not rendered yet came into view (a wheel, the scrollbar): render the next
        page on the side the reader comes from, and again while the line stays in view."""
        self._filling = False
        if self._gap_in_view():
            self._move_view(self.scroll_y + self._render_towards(self.scroll_y, self._moved_up))
            self._filling = True
            self.call_after_refresh(self._fill_gap)

    def load_earlier(self) -> int:
        """Render the page of items before the earliest rendered one above the widgets; returns the rows
        that added, all above what was in view."""
        return self.history.earlier(self.PAGE) if self.history.gap else 0

    def on_history_gap_pressed(self, _: History.GapPressed) -> None:
        self._fill_gap()

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
        self.output_added()  # after the mount: keys handled meanwhile may have moved the view
        if self.is_following and len(self.live) > self.LIMIT:
            await self._drop_oldest(len(self.live) - self.KEEP)
        return widget

    def output_added(self) -> None:
        """Output was added at the end: an item, and as much a streamed reply's text or a tool's output
        growing in the newest one (a slow reply streams for a minute without a new item), so a reader
        scrolled up learns of it by the mark."""
        if not self.is_following:
            self.new_below.display = True

    async def _insert(self, item: Item, widget: Widget) -> None:
        """Mount `widget` where `item` stands among the mounted items; one placed among those not mounted
        (above the view) is shown when they are."""
        items = self.conversation.items
        index = next(i for i in range(len(items) - 1, -1, -1) if items[i] is item)
        position = index - self.first_live
        if position < 0:
            self.first_live += 1
            self.history.inserted(index)
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
        self.history.extend_to(self.first_live)

    # ----- live blocks --------------------------------------------------------------------------

    def assistant_blocks(self) -> Iterator[AssistantBlock]:
        return (w for w in self.live if isinstance(w, AssistantBlock))

    def card(self, call_id: str) -> ToolCard | None:
        for block in reversed(self.live):
            if isinstance(block, AssistantBlock) and call_id in block.cards:
                return block.cards[call_id]
        return None

    async def set_tools_expanded(self, expanded: bool) -> None:
        self.look.tools_expanded = expanded
        self._restyle_history()
        for widget in self.live:
            if isinstance(widget, AssistantBlock):
                widget.set_tools_expanded(expanded)
            elif isinstance(widget, MarkdownFold):
                await widget.set_expanded(expanded)
            elif isinstance(widget, ToolCard | BashBlock | CustomBlock):
                widget.set_expanded(expanded)

    def set_thinking_shown(self, shown: bool) -> None:
        self.look.show_thinking = shown
        self._restyle_history()
        for widget in self.live:
            if isinstance(widget, AssistantBlock):
                widget.set_thinking_shown(shown)
            elif isinstance(widget, ThinkingBlock):
                widget.set_expanded(shown)

    def _restyle_history(self) -> None:
        """The history drawn the new way: at once where the reader is in it, later if they are not."""
        if self.is_following:
            self.history.forget()
        else:
            self.history.relayout()

    def refresh_marks(self) -> None:
        """Condense summarised or compressed something: re-mark the calls and chains shown."""
        self.history.relayout()
        for widget in self.live:
            if isinstance(widget, AssistantBlock):
                widget.refresh_marks()
            elif isinstance(widget, UserBlock):
                widget.set_chain(self.look.chain_for(widget.item.message))
            elif isinstance(widget, ToolCard):
                widget.set_mark(self.look.mark_for(widget.call))
