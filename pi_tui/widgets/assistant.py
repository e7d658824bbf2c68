"""An assistant message: its thinking, its text and its tool cards, in the order the model sent them.

A finished message (loaded from the session) is composed at once. A streaming one starts empty and
grows from the agent's `message_update` events: each content block gets its widget when its first
delta arrives, text goes through the block's MarkdownStream, and tool cards appear as calls begin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from pi_tui.conversation.model import Call, Conversation, Item, ending_line
from pi_tui.widgets.blocks import ThinkingBlock
from pi_tui.widgets.tool_card import Clock, ToolCard

MarkFor = Callable[[Call], str]


class AssistantBlock(Vertical):
    DEFAULT_CSS = """
    AssistantBlock { height: auto; }
    AssistantBlock > .assistant-error { color: $error; padding: 0 1; margin-top: 1; }
    AssistantBlock > .assistant-aborted { color: $warning; padding: 0 1; margin-top: 1; }
    """

    def __init__(self, item: Item, *, clock: Clock, tools_expanded: bool = False, show_thinking: bool = False,
                 mark_for: MarkFor | None = None) -> None:
        super().__init__()
        self.item = item
        self.clock = clock
        self.tools_expanded = tools_expanded
        self.show_thinking = show_thinking
        self.mark_for = mark_for or (lambda call: "")
        self.parts: dict[int, Widget] = {}
        self.cards: dict[str, ToolCard] = {}
        self._ended = False  # the error (or abort) line is shown: a failed request is said once

    # ----- building parts -----------------------------------------------------------------------

    def _part(self, index: int, block: dict[str, Any]) -> Widget | None:
        from pi_tui.widgets.answer import AssistantText  # Markdown: not on the first frame's path

        kind = block.get("type")
        if kind == "text":
            return AssistantText(str(block.get("text", ""))) if str(block.get("text", "")).strip() else None
        if kind == "thinking":
            text = str(block.get("thinking", ""))
            if not text.strip() and not block.get("redacted"):
                return None
            return ThinkingBlock(self.item, text, self.show_thinking, bool(block.get("redacted")))
        if kind == "toolCall":
            call = self.item.calls.get(str(block.get("id", "")))
            return self._card(call) if call and call.id not in self.cards else None
        return None

    def _card(self, call: Call, pending: bool = False) -> ToolCard:
        card = ToolCard(call, expanded=self.tools_expanded, clock=self.clock, mark=self.mark_for(call),
                        pending=pending)
        self.cards[call.id] = card
        return card

    def _error_line(self) -> Static | None:
        message = self.item.message
        if self._ended:  # a message that failed before streaming arrives composed with its error
            return None
        ending = ending_line(message)
        self._ended = ending is not None
        return Static(Content(ending[0]), classes=f"assistant-{ending[1]}") if ending else None

    def compose(self) -> Iterator[Widget]:
        for index, block in enumerate(self.item.message.get("content") or []):
            part = self._part(index, block) if isinstance(block, dict) else None
            if part is not None:
                self.parts[index] = part
                yield part
        error = self._error_line()
        self._close_cards()
        if error is not None:
            yield error

    # ----- streaming ----------------------------------------------------------------------------

    async def _ensure_part(self, index: int, kind: str) -> Widget:
        from pi_tui.widgets.answer import AssistantText  # Markdown: not on the first frame's path

        part = self.parts.get(index)
        if part is None:
            part = AssistantText() if kind == "text" else ThinkingBlock(self.item, "", self.show_thinking)
            self.parts[index] = part
            await self.mount(part)
        return part

    async def stream(self, update: Mapping[str, Any], message: Mapping[str, Any],
                     conversation: Conversation) -> None:
        """Apply one `message_update` event (its `assistantMessageEvent` and the message so far)."""
        from pi_tui.widgets.answer import AssistantText

        kind = update.get("type")
        index = int(update.get("contentIndex", -1))
        if kind == "text_delta":
            part = await self._ensure_part(index, "text")
            if isinstance(part, AssistantText):
                await part.write(str(update.get("delta", "")))
        elif kind == "thinking_delta":
            part = await self._ensure_part(index, "thinking")
            if isinstance(part, ThinkingBlock):
                part.append(str(update.get("delta", "")))
        elif kind in ("toolcall_start", "toolcall_end"):
            for call in conversation.update_assistant(self.item, message):
                card = self._card(call, pending=True)
                self.parts[index] = card
                await self.mount(card)
            for card in self.cards.values():
                card.refresh_args()

    async def finish(self, message: Mapping[str, Any], conversation: Conversation) -> None:
        """The final message: close the text streams and add whatever never streamed (errors, calls)."""
        from pi_tui.widgets.answer import AssistantText

        for part in self.parts.values():
            if isinstance(part, AssistantText):
                await part.stop()
        conversation.update_assistant(self.item, message)
        for index, block in enumerate(message.get("content") or []):
            if index not in self.parts and isinstance(block, dict):
                new_part = self._part(index, block)
                if new_part is not None:
                    self.parts[index] = new_part
                    await self.mount(new_part)
        error = self._error_line()
        self._close_cards()
        if error is not None:
            await self.mount(error)

    def _close_cards(self) -> None:
        """A reply that ended in an abort or an error runs none of its calls still waiting."""
        if self._ended:
            aborted = self.item.message.get("stopReason") == "aborted"
            for card in self.cards.values():
                card.never_ran(aborted)

    # ----- folding ------------------------------------------------------------------------------

    def set_tools_expanded(self, expanded: bool) -> None:
        self.tools_expanded = expanded
        for card in self.cards.values():
            card.set_expanded(expanded)

    def set_thinking_shown(self, shown: bool) -> None:
        self.show_thinking = shown
        for part in self.parts.values():
            if isinstance(part, ThinkingBlock):
                part.set_expanded(shown)

    def refresh_marks(self) -> None:
        for card in self.cards.values():
            card.set_mark(self.mark_for(card.call))
