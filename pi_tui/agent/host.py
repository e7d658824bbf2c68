"""The agent host: one session file, one agent loop, and the extensions and UI hooked onto them.

This is the object extensions talk to (condense first): it persists every message the moment the
loop finishes it, before extensions see the event, so an extension that reads the branch always
finds it there; it delivers custom messages without starting a turn; it keeps the agent's view of
the conversation equal to what a reload of the session file would give.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from condense.host import CancelSignal, ContextUsage
from condense.json_text import valid_json, valid_text
from condense.local_host import context_estimate
from condense.measure import estimate_tokens
from condense.messages import AgentMessage, CustomMessage, ImageContent, TextContent, UserMessage
from condense.stats import format_tokens
from condense.timefmt import now_ms
from pi_tui.abort import AbortSignal
from pi_tui.agent.compaction import NothingToCompact, Outlook, Plan, View, outlook, plan_compaction, write_summary
from pi_tui.agent.events import EventBus, MessageEndEvent
from pi_tui.agent.loop import Agent, AgentConfig
from pi_tui.ai.models import require_key
from pi_tui.ai.types import ModelClient
from pi_tui.errors import UserError
from pi_tui.redaction import redact_json
from pi_tui.resources import Resources
from pi_tui.session.context import in_time_order
from pi_tui.session.store import Session, SessionWriteError
from pi_tui.tools.base import Tool

Level = Literal["info", "warning", "error"]
DeliverAs = Literal["steer", "followUp", "nextTurn"]
CommandHandler = Callable[[str], Awaitable[None] | None]
CustomContent = str | list[TextContent | ImageContent]  # what a custom message carries, as Pi types it


class HostUI(Protocol):
    """What the host asks of whoever shows it: the TUI, or plain stderr in print mode."""

    def notify(self, text: str, level: Level = "info") -> None: ...
    def set_status(self, key: str, text: str | None) -> None: ...
    def set_widget(self, key: str, lines: list[str] | None) -> None: ...


class StderrUI:
    """Print mode: warnings and errors go to stderr, one line each; status and widgets are not shown."""

    def notify(self, text: str, level: Level = "info") -> None:
        if level != "info":
            print(f"pi-tui: {level}: {text}", file=sys.stderr)

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        return None


@dataclass
class Command:
    name: str
    description: str
    handler: CommandHandler


def user_message(text: str, images: Sequence[ImageContent] = ()) -> UserMessage:
    """A user's message: its text, then the images pasted for it (Pi's order). The text is one UTF-8 can
    carry (condense.json_text): -p's task holds a byte the locale cannot decode as a lone surrogate."""
    return {"role": "user", "content": [{"type": "text", "text": valid_text(text)}, *images], "timestamp": now_ms()}


def _custom_message(custom_type: str, content: CustomContent, display: bool, details: Any) -> CustomMessage:
    message: CustomMessage = {"role": "custom", "customType": custom_type, "content": content,
                              "display": display, "timestamp": now_ms()}
    if details is not None:
        message["details"] = details
    return message


def _as_sent(messages: list[AgentMessage]) -> list[AgentMessage]:
    """Without condense, the model reads the messages as they are."""
    return messages


class AgentHost:
    def __init__(self, session: Session, client: ModelClient, config: AgentConfig, tools: list[Tool],
                 ui: HostUI | None = None, resources: Resources | None = None) -> None:
        self.session = session
        self.resources = resources or Resources()  # skills and prompt templates expand in `prompt`
        session.on_write_error = self._report_write_error
        self.ui: HostUI = ui or StderrUI()
        self.bus = EventBus(on_error=self._report_extension_error)
        self.bus.on("message_end", self._persist)
        self.commands: dict[str, Command] = {}
        self.on_abort: list[Callable[[], None]] = []  # extensions' own long work (a flush) stops too
        self._next_turn: list[AgentMessage] = []
        self.agent = Agent(client, config, tools, self.bus, messages=session.build_context().messages)
        self.agent.compact_on_overflow = self._compact_for_overflow
        self._not_compacting = asyncio.Event()  # a prompt sent while `/compact` runs waits for it, as in Pi
        self._not_compacting.set()
        self.model_view: View = _as_sent  # condense's render (condense_host.install): what a compaction summarises
        self._compacted_this_turn = False  # a turn compacts at most once, whichever path asks
        self.bus.on("turn_start", self._new_turn)  # before any extension's turn_start: condense's fallback reads it

    # ----- lifecycle ----------------------------------------------------------------------------

    async def start(self, reason: str = "startup") -> None:
        """Tell extensions the session is ready (they rebuild their state from the branch)."""
        await self.bus.emit({"type": "session_start", "reason": reason})

    async def shutdown(self) -> None:
        await self.bus.emit({"type": "session_shutdown"})

    def _report_extension_error(self, event: str, exc: BaseException) -> None:
        self.ui.notify(f"extension error in {event}: {type(exc).__name__}: {exc}", "error")

    def _report_write_error(self, error: SessionWriteError | None) -> None:
        """Said once when saving starts failing (the session retries quietly at every later entry), and
        once more if it works again."""
        if error is not None:
            self.ui.notify(str(error), "error")
        else:
            self.ui.notify(f"session saved again: everything is in {self.session.path}", "info")

    @property
    def config(self) -> AgentConfig:
        return self.agent.config

    @property
    def cwd(self) -> Path:
        return self.agent.config.cwd

    @property
    def is_idle(self) -> bool:
        return not self.agent.is_running

    # ----- persistence --------------------------------------------------------------------------

    def _persist(self, event: MessageEndEvent) -> None:
        message = event["message"]
        if message.get("role") in ("user", "assistant", "toolResult", "custom", "bashExecution"):
            self.session.append_message(message)

    # ----- prompting ----------------------------------------------------------------------------

    async def prompt(self, text: str, images: Sequence[ImageContent] = ()) -> list[AgentMessage]:
        """Run a prompt; while the agent works the text (and its images) steers it instead (Enter).

        Raises MissingKeyError, having written nothing, when the model's key is missing."""
        if text.startswith("/"):
            name, _, args = text[1:].partition(" ")
            command = self.commands.get(name)
            if command is not None:
                result = command.handler(args.strip())
                if result is not None:
                    await result
                return []
        message = user_message(self.resources.expand(text), images)
        if self.agent.is_running:
            self.agent.steer(message)
            return []
        require_key(self.config.model)  # before the user message is written: a run that cannot start leaves no turn
        await self._not_compacting.wait()
        batch: list[AgentMessage] = [message, *self._next_turn]
        self._next_turn = []
        return await self.agent.prompt(batch)

    def follow_up(self, text: str, images: Sequence[ImageContent] = ()) -> None:
        """Queue text for when the agent would stop (Alt+Enter)."""
        self.agent.follow_up(user_message(self.resources.expand(text), images))

    def abort(self) -> None:
        self.agent.abort()
        for callback in self.on_abort:
            callback()

    # ----- what extensions may do ---------------------------------------------------------------

    def register_tool(self, tool: Tool) -> None:
        self.agent.tools[tool.name] = tool

    def register_command(self, name: str, description: str, handler: CommandHandler) -> None:
        self.commands[name] = Command(name, description, handler)

    def command_names(self) -> dict[str, str]:
        """Every slash word `prompt` acts on (extensions' commands, then prompt templates and skills,
        which an extension's command of the same name hides), with its description."""
        names = self.resources.commands()
        names.update({name: command.description for name, command in self.commands.items()})
        return names

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        """A record for extensions' own state: on the branch, never sent to the model."""
        return self.session.append_custom(custom_type, data)

    async def send_message(self, custom_type: str, content: CustomContent, *, display: bool,
                           details: Any = None, deliver_as: DeliverAs | None = None) -> None:
        """Deliver a custom message to the model's context without ever starting a turn.

        While the agent works it is queued (steer by default); when idle it goes straight into the
        conversation and the session, to be read with the next prompt."""
        message = _custom_message(custom_type, content, display, details)
        if deliver_as == "nextTurn":
            self._next_turn.append(message)
        elif self.agent.is_running:
            (self.agent.follow_up if deliver_as == "followUp" else self.agent.steer)(message)
        else:
            await self.insert_message(message)

    async def insert_message(self, message: AgentMessage) -> None:
        """Put a message into the conversation and the session now, with its events (no turn starts).
        Redacted first: a `!cmd` that printed a key must not carry it into the file or the next request;
        and valid UTF-8, as what it printed may not be."""
        message = redact_json(valid_json(message))
        await self.bus.emit({"type": "message_start", "message": message})
        self.agent.messages.append(message)
        await self.bus.emit({"type": "message_end", "message": message})

    async def insert_custom_message(self, custom_type: str, content: CustomContent, display: bool,
                                    details: Any = None) -> None:
        """Put a custom message into the conversation and the session now, even mid-run.

        Only for callers that know the loop is at a safe point (between turns, or after the final
        reply), such as condense's flush; it never queues and never starts a turn."""
        await self.insert_message(_custom_message(custom_type, content, display, details))

    def context_usage(self) -> ContextUsage:
        """Tokens of the last good reply's usage plus a chars/4 estimate of what came after it (Pi's).
        After a compaction, the replies in the order they came: those it kept (which the context puts
        after its summary) measured the history it replaced, so only a newer reply's usage counts."""
        messages = self.agent.messages
        if messages and messages[0].get("role") == "compactionSummary":
            messages = in_time_order(self.session.branch_entries())
        reckoned = context_estimate(messages)
        model = self.config.model
        return ContextUsage(None if reckoned is None else reckoned.tokens, model.context_window, model.max_tokens)

    # ----- compaction ---------------------------------------------------------------------------

    def _plan(self) -> Plan:
        return plan_compaction(self.session.branch_entries()).seen_through(self.model_view)

    async def next_request_tokens(self) -> int:
        """Estimated tokens of the next request as the extensions render it (condense: the footer's figure)."""
        return estimate_tokens(await self.bus.emit_context(list(self.agent.messages)))

    async def compaction_outlook(self) -> Outlook:
        """The next request now and, estimated, after a compaction, before its summary is paid for;
        NothingToCompact when compacting would change nothing."""
        return outlook(self._plan(), await self.next_request_tokens(), self.config.model)

    async def compact(self, instructions: str = "", signal: CancelSignal | None = None) -> dict[str, Any]:
        """Pi's compaction of the current branch by the session's model (pi_tui/agent/compaction.py); returns
        the `compaction` entry written. UserError (one line, nothing written) when there is nothing to
        compact, the key is missing, or the summary fails or is cancelled."""
        require_key(self.config.model)
        plan = self._plan()
        self._not_compacting.clear()
        try:
            summary = await write_summary(self.agent.client, self.config.model, plan, instructions,
                                          signal or AbortSignal())
            entry_id = self.session.append_compaction(summary, plan.first_kept_id, plan.tokens_before,
                                                      plan.details)
            self.agent.messages = self.session.build_context().messages
            entry = self.session.get(entry_id) or {}
            await self.bus.emit({"type": "session_compact", "compactionEntry": entry})
        finally:
            self._not_compacting.set()
        return entry

    def _ways_out(self) -> str:
        """What a user can do about a conversation too long for the model, in the words of where they are."""
        if isinstance(self.ui, StderrUI):
            return "a run without --continue or --session starts a fresh session, --model picks a larger window"
        return "/new starts a fresh session, /model picks a larger window"

    def _new_turn(self, _: object) -> None:
        self._compacted_this_turn = False

    async def compact_once(self, why: str, signal: CancelSignal | None = None) -> dict[str, Any] | None:
        """The automatic compaction (condense's fallback before a request that even pruned does not fit,
        or the recovery from a request the provider refused as too long): at most one a turn, whichever
        path asks, as Pi compacts and retries once; one that failed is not tried again in the turn. The
        entry written, or None, having said why in one line (`why`: the request's trouble), or nothing when
        the conversation is too short to compact or this turn compacted already."""
        if self._compacted_this_turn:
            return None
        self._compacted_this_turn = True
        try:
            expected = await self.compaction_outlook()
            if expected.grows:
                self.ui.notify(f"{why}, and compacting would not make it smaller ({expected.describe()}): not "
                               f"compacted; {self._ways_out()}", "error")
                return None
            return await self.compact("", signal)
        except NothingToCompact:
            return None
        except UserError as exc:
            self.ui.notify(f"{why}, and {exc}", "error")
            return None

    async def _compact_for_overflow(self, signal: AbortSignal, refused_tokens: int) -> bool:
        """Pi's answer to a request too long with nothing left to prune: compact (once a turn), then retry,
        but only a request smaller than the one refused (a summary plus Pi's kept ~20k tokens can outweigh a
        pruned, folded history; sending it would be refused again, and paid)."""
        if self._compacted_this_turn:
            return False
        await self.bus.emit({"type": "auto_compaction_start", "reason": "overflow"})
        entry = await self.compact_once(f"the request is too long for {self.config.model.ref}", signal)
        if entry is None:
            await self.bus.emit({"type": "auto_compaction_end", "willRetry": False,
                                 "errorMessage": "the conversation was not compacted"})
            return False
        now = await self.next_request_tokens()
        if now >= refused_tokens:
            text = (f"the request is too long for {self.config.model.ref}: compacted, but the next one "
                    f"({format_tokens(now)} tokens) is no smaller than the one it refused "
                    f"({format_tokens(refused_tokens)}), so it was not sent again; {self._ways_out()}")
            await self.bus.emit({"type": "auto_compaction_end", "willRetry": False, "errorMessage": text})
            self.ui.notify(text, "error")
            return False
        await self.bus.emit({"type": "auto_compaction_end", "willRetry": True,
                             "tokensBefore": int(entry.get("tokensBefore") or 0)})
        return True

    # ----- the session tree ---------------------------------------------------------------------

    async def navigate(self, entry_id: str | None, summary: str | None = None) -> None:
        """Move to another point of the tree and continue from there (Pi's `/tree`), with a summary of the
        branch left behind when there is one."""
        old_leaf = self.session.leaf_id
        if summary is not None:
            self.session.branch_with_summary(entry_id, summary)
        elif entry_id is None:
            self.session.reset_leaf()
        else:
            self.session.branch(entry_id)
        self.agent.messages = self.session.build_context().messages
        await self.bus.emit({"type": "session_tree", "newLeafId": self.session.leaf_id, "oldLeafId": old_leaf})
