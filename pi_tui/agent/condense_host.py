"""Wiring condense into the agent host: its Host protocol, its events, its tool and `/pruner`.

This is the only module of pi_tui that knows how the engine is driven; the engine knows nothing of
pi_tui. Summaries are inserted straight into the conversation (never queued as a steer) because
the engine only delivers at safe points, where inserting cannot split a tool call from its results
and cannot start a model turn.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from condense.blobs import blob_dir
from condense.commands import run_command
from condense.config import CondenseConfig
from condense.engine import CondenseEngine, ConfigSaver
from condense.host import CancelSignal, CompletionEvent, ContextUsage, Level
from condense.messages import AgentMessage
from condense.query import QueryArguments
from pi_tui.agent.events import ContextOverflowEvent, OverflowReply
from pi_tui.agent.host import AgentHost
from pi_tui.ai.completion import stream_completion
from pi_tui.ai.models import has_key, parse_model_ref
from pi_tui.ai.types import ModelClient, ModelSpec
from pi_tui.logs import show_failures
from pi_tui.session.store import Session
from pi_tui.settings import LiveSettings, SettingsError
from pi_tui.tools.base import Tool, ToolContext, ToolOutput, ToolParams

ClientFor = Callable[[ModelSpec], ModelClient]  # a summariser's call may go to another model than the session's
PRUNER_HELP = "context pruning: status, now, on, off, settings, ... (/pruner help)"


def blobs_dir_of(session: Session) -> Path | None:
    if session.path is None:
        return None
    return blob_dir(session.path.parent, session.session_id)


class AgentPruningHost:
    """condense's Host over a live AgentHost."""

    def __init__(self, host: AgentHost, client_for: ClientFor) -> None:
        self.agent_host = host
        self._client_for = client_for

    def branch(self) -> list[dict[str, Any]]:
        return self.agent_host.session.branch_entries()

    def context_messages(self) -> list[AgentMessage]:
        return list(self.agent_host.agent.messages)

    def append_entry(self, custom_type: str, data: Any) -> None:
        self.agent_host.session.append_custom(custom_type, data)

    def entry(self, entry_id: str) -> dict[str, Any] | None:
        """Any entry of the session file (`condense.host.EntryReader`): at `/tree` the new branch names
        the chains and folds the one left behind holds instead of copying them."""
        return self.agent_host.session.get(entry_id)

    async def append_custom_message(self, custom_type: str, content: str, display: bool, details: Any) -> None:
        await self.agent_host.insert_custom_message(custom_type, content, display, details)

    def blobs_dir(self) -> Path | None:
        return blobs_dir_of(self.agent_host.session)

    def cwd(self) -> str | None:
        return str(self.agent_host.cwd)

    def context_usage(self) -> ContextUsage | None:
        return self.agent_host.context_usage()

    def session_model(self) -> str | None:
        return self.agent_host.config.model.ref

    def has_model(self, ref: str) -> bool:
        try:
            spec = parse_model_ref(ref)
        except ValueError:
            return False
        return spec.provider == "demo" or has_key(spec.provider)

    def complete(self, model: str, prompt: str, thinking: str | None,
                 signal: CancelSignal) -> AsyncIterator[CompletionEvent]:
        session_model = self.agent_host.config.model
        spec = session_model if model == session_model.ref else parse_model_ref(model)
        idle = self.agent_host.config.retry.stream_idle_timeout_ms / 1000  # a stalled summary ends as a reply does
        return stream_completion(self._client_for(spec), spec, prompt, thinking, signal, idle)

    async def compact(self) -> bool:
        """Pi's compaction of the branch when even the pruned request would not fit (once a turn, whichever
        path asks: `AgentHost.compact_once`, which says in one line why it failed)."""
        entry = await self.agent_host.compact_once("pruner: the next request does not fit the model's window")
        return entry is not None

    def notify(self, text: str, level: Level = "info") -> None:
        self.agent_host.ui.notify(text, level)

    def set_status(self, key: str, text: str | None) -> None:
        self.agent_host.ui.set_status(key, text)

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        self.agent_host.ui.set_widget(key, lines)


class QueryParams(QueryArguments, ToolParams):
    """condense's own validation of the tool's arguments, as a tool's parameters."""


class QueryTool(Tool):
    """`context_tree_query` as an agent tool: reads originals back from the engine's index."""

    name = CondenseEngine.tool_name
    label = CondenseEngine.tool_label
    description = CondenseEngine.tool_description
    Params = QueryParams

    def __init__(self, engine: CondenseEngine) -> None:
        self.engine = engine

    @classmethod
    def schema(cls) -> dict[str, Any]:
        """condense's definition, the one the library offers and `pi-tui whatif` prices."""
        return copy.deepcopy(CondenseEngine.tool_parameters)

    async def run(self, params: QueryParams, ctx: ToolContext) -> ToolOutput:
        text, details = self.engine.query(params.toolCallIds, params.page())
        return ToolOutput.text(text, details)


def settings_saver(host: AgentHost, settings: LiveSettings) -> ConfigSaver:
    """A `/pruner` change goes through the live settings: written into settings.toml, then handed to every
    running engine (this one included) and every later session."""

    def save(changes: dict[str, Any]) -> bool:
        try:
            settings.change({"condense": changes})
        except SettingsError as exc:
            host.ui.notify(str(exc), "error")
            return False
        return True

    return save


def install(host: AgentHost, config: CondenseConfig, client_for: ClientFor,
            settings: LiveSettings | None = None) -> CondenseEngine:
    """Create the engine for `host` and hook it onto the host's events, tools and commands. With
    `settings`, a `/pruner` change is saved there; without, the engine keeps it in memory."""
    saver = settings_saver(host, settings) if settings is not None else None
    engine = CondenseEngine(AgentPruningHost(host, client_for), config, saver)
    bus = host.bus
    bus.on("session_start", lambda e: engine.on_session_start())
    bus.on("session_tree", lambda e: engine.on_session_tree(e.get("oldLeafId")))
    bus.on("session_compact", lambda e: engine.on_session_tree())  # the branch changed before its leaf
    bus.on("turn_start", lambda e: engine.before_request(e["timestamp"]))
    bus.on("turn_end", lambda e: engine.on_turn_end(e["message"], e["toolResults"], e["turnIndex"]))
    bus.on("message_end", lambda e: engine.on_message_end(e["message"]))
    bus.on("agent_end", lambda e: engine.on_agent_end())
    bus.on("context", lambda e: engine.render(e["messages"]))
    host.model_view = engine.model_view  # a compaction summarises what the model reads, not the raw outputs

    async def overflow(event: ContextOverflowEvent) -> OverflowReply:
        return {"retry": await engine.on_context_overflow(bool(event.get("retried")))}

    bus.on("context_overflow", overflow)
    host.register_tool(QueryTool(engine))

    async def pruner(args: str) -> None:
        if not host.is_idle and args.strip().split(" ")[0] in ("now", "compact"):
            host.ui.notify("pruner: the agent is working; run this when it has finished", "warning")
            return
        await run_command(engine, args)

    host.register_command("pruner", PRUNER_HELP, pruner)
    host.on_abort.append(engine.abort)
    show_failures(lambda text: host.ui.notify(text, "error"))
    return engine
