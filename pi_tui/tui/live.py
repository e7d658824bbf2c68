"""The running session on screen: the host's events turned into transcript, status and footer updates.

One `LiveView` per runtime. The app makes a new one when it switches model, session or branch, and
detaches the old one, so events of a host that is gone never reach the screen. The handlers run
inside the agent loop (the bus awaits them), in the app's event loop, so they may touch widgets
directly; they await mounts so a streamed delta never arrives before its widget exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from condense import ChainMark, chain_marks
from condense.messages import content_text
from condense.stats import format_tokens
from pi_tui.agent.events import (
    AgentEndEvent,
    AgentStartEvent,
    AutoCompactionEndEvent,
    AutoCompactionStartEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    SessionCompactEvent,
    SessionTreeEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_tui.ai.errors import retry_reason
from pi_tui.ai.models import available_providers
from pi_tui.conversation.model import Conversation, Item
from pi_tui.runtime.build import Runtime
from pi_tui.widgets.assistant import AssistantBlock
from pi_tui.widgets.footer import FooterState, UsageTotals, display_path, git_branch
from pi_tui.widgets.marks import call_mark, chain_mark
from pi_tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from pi_tui.screens.main import MainScreen
    from pi_tui.tui.app import PiApp

WORKING = "Working… (esc to abort)"


class LiveView:
    def __init__(self, app: PiApp, screen: MainScreen, runtime: Runtime) -> None:
        self.app = app
        self.screen = screen
        self.runtime = runtime
        self.host = runtime.host
        self.engine = runtime.engine
        self.totals = UsageTotals.of_entries(self.host.session.entries)
        self.branch = git_branch(self.host.cwd)
        self.queued: list[tuple[str, str]] = []  # (steer or follow-up, text), in the order sent
        self._chains: dict[int, ChainMark] = {}
        self._streaming: tuple[Item, AssistantBlock] | None = None
        self._failed: AssistantBlock | None = None  # the last reply, when it failed: a retry takes it back
        self._unsubscribe: list[Callable[[], None]] = []

    @property
    def transcript(self) -> Transcript:
        return self.screen.transcript

    # ----- wiring -------------------------------------------------------------------------------

    def attach(self) -> None:
        bus = self.host.bus
        self._unsubscribe = [
            bus.on("message_start", self._on_message_start), bus.on("message_update", self._on_message_update),
            bus.on("message_end", self._on_message_end), bus.on("tool_execution_start", self._on_tool_start),
            bus.on("tool_execution_update", self._on_tool_update), bus.on("tool_execution_end", self._on_tool_end),
            bus.on("agent_start", self._on_agent_start), bus.on("agent_end", self._on_agent_end),
            bus.on("auto_retry_start", self._on_retry_start), bus.on("auto_retry_end", self._on_retry_end),
            bus.on("session_tree", self._on_session_tree), bus.on("session_compact", self._on_session_compact),
            bus.on("auto_compaction_start", self._on_compaction_start),
            bus.on("auto_compaction_end", self._on_compaction_end),
        ]
        self.transcript.look.mark_for = lambda call: call_mark(self.engine, call)
        self.transcript.look.chain_for = lambda message: chain_mark(self._chains.get(message.get("timestamp", -1)))

    def detach(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []

    async def show_session(self) -> None:
        """(Re)build the transcript from the session's current branch."""
        self._chains = chain_marks(self.host.session.branch_entries(), self.host.session.get)
        await self.transcript.show(Conversation.from_messages(self.host.session.messages()))
        self.refresh_footer()

    def refresh_marks(self) -> None:
        self._chains = chain_marks(self.host.session.branch_entries(), self.host.session.get)
        self.transcript.refresh_marks()

    # ----- footer -------------------------------------------------------------------------------

    def footer_state(self) -> FooterState:
        host = self.host
        model = host.config.model
        usage = self.engine.context_figure()  # its one owner: after a flush, what the next request carries
        providers = available_providers()
        label = f"({model.provider}) {model.id}" if len(providers) > 1 else model.id
        thinking = None
        if model.reasoning:
            level = host.config.thinking_level
            thinking = "thinking off" if level == "off" else level
        return FooterState(
            cwd=self.app.cwd_display or display_path(host.cwd), branch=self.branch,
            session_name=host.session.name, totals=self.totals, context_percent=usage.percent if usage else None,
            context_window=usage.context_window if usage else model.context_window, model=label, thinking=thinking,
            statuses=dict(self.app.bridge.statuses))

    def refresh_footer(self) -> None:
        self.screen.footer.show(self.footer_state())

    def queue(self, kind: str, text: str) -> None:
        """Show a message sent while the agent works until it is delivered (`kind`: steer, follow-up)."""
        self.queued.append((kind, text))
        self.show_queue()

    def show_queue(self) -> None:
        lines = [f"↳ {kind}: {' '.join(text.split())[:100]}" for kind, text in self.queued]
        self.screen.status.lines.set("~queued", lines)

    def restore_queue(self) -> int:
        """Pi's abort and Alt+Up: the steers and follow-ups not delivered yet go back into the editor, in
        order (steers first, as the agent would have taken them), before what is there, their images
        attached again; none is sent later. Returns how many went back."""
        messages = [message for message in self.host.agent.clear_queues() if message["role"] == "user"]
        queued = [content_text(message.get("content") or "") for message in messages]
        self.queued = []
        self.show_queue()
        editor = self.screen.editor
        texts = [text for text in (*queued, editor.text) if text.strip()]
        if queued:
            editor.set_text("\n\n".join(texts))
        for message in messages:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if block["type"] == "image":
                    editor.attach(f"image {len(editor.images) + 1}", block)
        return len(messages)

    # ----- events -------------------------------------------------------------------------------

    async def _on_message_start(self, event: MessageStartEvent) -> None:
        message = event["message"]
        role = message.get("role")
        conversation: Conversation = self.transcript.conversation
        if role == "toolResult":
            conversation.add(message)
            card = self.transcript.card(str(message.get("toolCallId", "")))
            if card is not None:
                card.finish(message)
                self.transcript.output_added()
            return
        item = conversation.add(message)
        if item is None:
            return
        widget = await self.transcript.append(item)
        if isinstance(widget, AssistantBlock):
            self._streaming = (item, widget)
        if message["role"] == "user":
            self._unqueue(content_text(message.get("content") or ""))

    def _unqueue(self, text: str) -> None:
        for entry in self.queued:
            if entry[1] == text:
                self.queued.remove(entry)
                self.show_queue()
                return

    async def _on_message_update(self, event: MessageUpdateEvent) -> None:
        if self._streaming is None:
            return
        _, block = self._streaming
        await block.stream(event["assistantMessageEvent"], event["message"], self.transcript.conversation)
        self.transcript.output_added()

    async def _on_message_end(self, event: MessageEndEvent) -> None:
        message = event["message"]
        if message.get("role") != "assistant":
            return
        self._failed = None
        if self._streaming is not None:
            item, block = self._streaming
            self._streaming = None
            item.message = message
            await block.finish(message, self.transcript.conversation)
            if message.get("stopReason") == "error":
                self._failed = block
        self.totals.add(message.get("usage"))
        self.refresh_footer()

    def _on_tool_start(self, event: ToolExecutionStartEvent) -> None:
        card = self.transcript.card(str(event.get("toolCallId", "")))
        if card is not None:
            card.start()

    def _on_tool_update(self, event: ToolExecutionUpdateEvent) -> None:
        card = self.transcript.card(str(event.get("toolCallId", "")))
        partial = event["partialResult"]
        if card is not None:
            card.progress(content_text(partial.get("content") or []))
            self.transcript.output_added()

    def _on_tool_end(self, event: ToolExecutionEndEvent) -> None:
        card = self.transcript.card(str(event.get("toolCallId", "")))
        if card is not None:
            card.finish(is_error=bool(event.get("isError")))

    def _on_agent_start(self, _: AgentStartEvent) -> None:
        self.screen.status.working.show(WORKING)

    def _on_agent_end(self, _: AgentEndEvent) -> None:
        self.screen.status.working.show(None)
        self.branch = git_branch(self.host.cwd)
        self.refresh_marks()
        self.refresh_footer()

    async def _on_retry_start(self, event: AutoRetryStartEvent) -> None:
        """A retried failure passes in the status line; only the final one stays in the transcript."""
        if self._failed is not None:
            await self.transcript.retract(self._failed)
            self._failed = None
        seconds = int(event.get("delayMs", 0)) / 1000
        error = retry_reason(" ".join(str(event.get("errorMessage", "")).split()))
        attempt = f"{event.get('attempt')}/{event.get('maxAttempts')}"
        note = f", {event['delayNote']}" if "delayNote" in event else ""
        text = f"Retrying in {seconds:.0f}s (attempt {attempt}{note}): {error}"  # the row cuts what is too long
        self.screen.status.working.show(text, retry=True)

    def _on_retry_end(self, _: AutoRetryEndEvent) -> None:
        self.screen.status.working.show(WORKING)

    async def _on_session_tree(self, _: SessionTreeEvent) -> None:
        await self.show_session()

    async def _on_session_compact(self, _: SessionCompactEvent) -> None:
        """The branch now starts with the compaction's summary: shown as the model will read it."""
        self._streaming = self._failed = None
        await self.show_session()

    def _on_compaction_start(self, _: AutoCompactionStartEvent) -> None:
        self.screen.status.working.show("The request is too long for the model: compacting the conversation… "
                                        "(esc to abort)")

    async def _on_compaction_end(self, event: AutoCompactionEndEvent) -> None:
        self.screen.status.working.show(WORKING)
        if event["willRetry"]:
            before = format_tokens(event.get("tokensBefore", 0))
            await self.transcript.add_note(f"the request was too long for the model: compacted {before} tokens of "
                                           "conversation into a summary (the transcript now starts with it) and "
                                           "sent it again", "warning")
