"""condense for any Python agent: hand over each turn's messages, get the pruned history back.

An agent that is not pi-tui has a list of messages and a model call; it should not have to learn the
engine's hooks. A Condenser plays the part of pi-tui's agent host: it keeps the Pi entry log (in memory,
or in a folder as a Pi session file), calls the engine's hooks in the order pi-tui's loop does
(`message_end` for every message, so the final reply of a run flushes; `turn_end` once a tool turn has
all its results; `agent_end` after the final reply), and renders the history the way pi-tui renders a
request. Summaries land in the log right after the reply that triggered the flush, which is where
pi-tui's render puts them, and no model turn is started to deliver them.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import weakref
from collections.abc import Mapping
from typing import Any, Self

from pydantic import ValidationError

from condense.adapters import from_anthropic, from_openai, to_anthropic, to_openai
from condense.adapters.common import tool_names, with_usage
from condense.config import CondenseConfig, one_line_error
from condense.engine import CondenseEngine
from condense.errors import ConfigError
from condense.local_host import LocalHost, SummaryFunction
from condense.messages import (
    AgentMessage,
    ToolResultMessage,
    is_tool_result,
    plain_messages,
    tool_calls,
    typed_messages,
)
from condense.query import (
    QUERY_TOOL_DESCRIPTION,
    QUERY_TOOL_NAME,
    QUERY_TOOL_PARAMETERS,
    QueryArguments,
    QueryError,
)
from condense.summarize.runner import EXTRACTIVE_MODEL
from condense.tool_pairing import pair_tool_calls

_QUERY_USAGE = 'pass {"toolCallIds": [...]} with refs like "t12" from a pruner summary or stub'

SummarySource = str | SummaryFunction
"""`"extractive"` (offline, no model) or a function from the summariser prompt to the summary text (sync or
async); for a litellm model, `pi_tui.ai.litellm_summary.litellm_summarizer("provider/model")`."""


def _query_request(arguments: Any) -> QueryArguments | str:
    """The validated arguments of a `context_tree_query` call, or what is wrong with them."""
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError as exc:
        return f"the arguments are not valid JSON: {exc}"
    if not isinstance(parsed, Mapping):
        return "the arguments must be a JSON object"
    try:
        return QueryArguments.checked(parsed)
    except QueryError as exc:
        return str(exc)


def _config_for(summarizer: SummarySource, config: CondenseConfig | Mapping[str, Any] | None) -> CondenseConfig:
    settings = config.model_dump() if isinstance(config, CondenseConfig) else dict(config or {})
    settings["summarizer_model"] = EXTRACTIVE_MODEL if summarizer == EXTRACTIVE_MODEL else "default"
    try:
        return CondenseConfig.model_validate(settings)
    except ValidationError as exc:
        raise ConfigError(f"condense: config {one_line_error(exc, CondenseConfig)}") from None


def _summary_function(summarizer: SummarySource) -> SummaryFunction | None:
    if summarizer == EXTRACTIVE_MODEL:
        return None
    if isinstance(summarizer, str):  # the engine never imports a model client: the caller brings one
        raise ConfigError(f"condense: summarizer {summarizer!r}: pass 'extractive' or a function; for a litellm"
                         f" model use pi_tui.ai.litellm_summary.litellm_summarizer({summarizer!r})")
    return summarizer


class _OpenTurn:
    """An assistant message with tool calls, waiting for their results before its `turn_end`."""

    def __init__(self, message: AgentMessage, index: int) -> None:
        self.message = message
        self.index = index
        self.waiting = {call["id"] for call in tool_calls(message)}
        self.results: list[ToolResultMessage] = []


class Condenser:
    """The engine over Pi-shaped messages; OpenAICondenser and AnthropicCondenser speak other shapes.

    `store` is a folder for the Pi session file and spilled outputs (reopening it continues the
    conversation), or None to keep everything in memory. `config` takes any condense setting
    (`CondenseConfig` or a dict of its snake_case keys). `context_window` is the model's, in tokens:
    the engine flushes early when the estimated context use nears it."""

    def __init__(self, store: str | os.PathLike[str] | None = None, *, summarizer: SummarySource = EXTRACTIVE_MODEL,
                 config: CondenseConfig | Mapping[str, Any] | None = None, context_window: int = 200_000,
                 model: str = "agent") -> None:
        self.model = model
        settings = _config_for(summarizer, config)
        self.host = LocalHost(store, summarize=_summary_function(summarizer), context_window=context_window)
        # the host and its engine refer to each other, so only a cyclic collection would free them: the
        # facade, in no cycle, releases the store as soon as the agent drops it
        self._release = weakref.finalize(self, self.host.close)
        self.engine = CondenseEngine(self.host, settings)
        self.host.attach(self.engine)
        history = self.host.messages()
        self._assistants = sum(1 for m in history if m.get("role") == "assistant")
        self._tools = tool_names(history)
        self._last_ms = max((m.get("timestamp", 0) for m in history), default=0)
        self._turn: _OpenTurn | None = None
        self.engine.on_session_start()

    def close(self) -> None:
        """Release the store folder, so that another Condenser (or process) may open it: one writer per
        store. Dropping the Condenser and the process's end release it too; `with` closes on leaving.
        Entries a full disk kept in memory are written first: StoreWriteError while they cannot be, and
        the store stays open (free some space and close again; dropping the Condenser loses them)."""
        if self._release.alive:
            self.host.save()
        self._release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ----- handing over messages ----------------------------------------------------------------

    async def add(self, messages: list[dict[str, Any]], usage: Any = None) -> None:
        """Record new messages (in this class's shape) in order, as the agent produced them. A final reply
        (an assistant message without tool calls) may flush: summaries are written before this returns.
        `usage` is the provider's report for the last reply among them (OpenAI's or Anthropic's shape):
        recorded, it lets `pi-tui whatif` price the conversation. StoreWriteError: the store could not
        be written (a full disk); the messages are recorded all the same, kept in memory until it can."""
        converted = self._to_pi(messages)
        await self._add_pi(typed_messages(converted if usage is None else with_usage(converted, usage)))
        if converted and converted[-1].get("role") in ("user", "toolResult"):
            # a request follows: where the provider's cache has gone cold (or none was sent since this
            # store was opened), pending work is flushed first, its rewrite being free
            await self.engine.before_request(int(time.time() * 1000))
        self.host.save()

    def add_sync(self, messages: list[dict[str, Any]], usage: Any = None) -> None:
        """`add` for an agent without an event loop of its own."""
        asyncio.run(self.add(messages, usage))

    async def _add_pi(self, messages: list[AgentMessage]) -> None:
        for message in messages:
            role = message.get("role")
            if role in ("user", "assistant"):
                await self._close_turn()
            self.host.append_message(message)
            await self.engine.on_message_end(message)
            if role == "assistant":
                await self._on_assistant(message)
            elif is_tool_result(message) and self._turn is not None and message.get("toolCallId") in self._turn.waiting:
                self._turn.waiting.discard(message["toolCallId"])
                self._turn.results.append(message)
                if not self._turn.waiting:
                    await self._close_turn()

    async def _on_assistant(self, message: AgentMessage) -> None:
        index = self._assistants
        self._assistants += 1
        self._tools.update(tool_names([message]))
        if tool_calls(message) and message.get("stopReason") not in ("error", "aborted"):
            self._turn = _OpenTurn(message, index)
            return
        await self.engine.on_turn_end(message, [], index)
        self.engine.on_agent_end()

    async def _close_turn(self) -> None:
        """The tool turn ends (pi-tui's `turn_end`) once every call has its result, or when the
        conversation moves on without some of them."""
        turn, self._turn = self._turn, None
        if turn is not None:
            await self.engine.on_turn_end(turn.message, turn.results, turn.index)

    def _tick(self) -> int:
        """Strictly increasing milliseconds: a result's time is part of its key in the engine's index."""
        self._last_ms = max(int(time.time() * 1000), self._last_ms + 1)
        return self._last_ms

    def _to_pi(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return messages

    # ----- the request --------------------------------------------------------------------------

    def messages(self) -> list[dict[str, Any]]:
        """The history to send next, pruned, in this class's shape (without the system prompt). A call
        whose result never came (the agent died between the two) is answered as pi-tui answers it, with
        an error result, once the conversation has moved on: a provider refuses an unanswered call."""
        return self._from_pi(plain_messages(pair_tool_calls(self.engine.render(self.host.messages()))))

    def _from_pi(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return messages

    async def flush(self) -> None:
        """Summarise every pending tool batch now (`/pruner now`), whatever the triggers say."""
        await self._close_turn()
        await self.engine.flush("manual", sequential=True)
        self.host.save()

    async def shrink(self) -> bool:
        """The provider refused the request as too long: summarise everything pending and compress every
        closed chain, as pi-tui does before its one retry. True when something shrank (retry once)."""
        await self._close_turn()
        shrunk = await self.engine.on_context_overflow(retried=False)
        self.host.save()
        return shrunk

    # ----- the recovery tool --------------------------------------------------------------------

    tool_name = QUERY_TOOL_NAME
    tool_description = QUERY_TOOL_DESCRIPTION
    tool_parameters = QUERY_TOOL_PARAMETERS

    @property
    def tool(self) -> dict[str, Any]:
        """The `context_tree_query` tool to offer the model, in this class's shape."""
        return {"name": self.tool_name, "description": self.tool_description, "parameters": self.tool_parameters}

    def query(self, tool_call_ids: list[str], *, offset: int = 1, column: int = 1, limit: int | None = None,
              pattern: str | None = None) -> str:
        """What `context_tree_query` returns for refs like `t12`, occurrence keys or raw call ids: the first
        page of each output, or the page the tool's arguments name (a bad value raises QueryError)."""
        request = QueryArguments.checked({"toolCallIds": tool_call_ids, "offset": offset, "column": column,
                                          "limit": limit, "pattern": pattern})
        return self.engine.query(request.toolCallIds, request.page())[0]

    def query_arguments(self, arguments: Any) -> str:
        """The tool's answer for the arguments a model sent (a dict or its JSON text); bad arguments get
        a one-line explanation the model can act on, never an exception."""
        request = _query_request(arguments)
        if isinstance(request, str):
            return f"{self.tool_name}: {_QUERY_USAGE} ({request})"
        return self.engine.query(request.toolCallIds, request.page())[0]

    def answer(self, call: dict[str, Any]) -> dict[str, Any]:
        """The result message for one `context_tree_query` call of the model (a Pi toolCall block)."""
        return {"role": "toolResult", "toolCallId": call["id"], "toolName": self.tool_name,
                "content": [{"type": "text", "text": self.query_arguments(call.get("arguments"))}],
                "isError": False, "timestamp": self._tick()}


class OpenAICondenser(Condenser):
    """For agents whose history is OpenAI chat-completions messages (litellm, the openai client)."""

    def _to_pi(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return from_openai(messages, known_tools=self._tools, clock=self._tick, model=self.model)

    def _from_pi(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return to_openai(messages)

    @property
    def tool(self) -> dict[str, Any]:
        """The tool as an entry of the request's `tools`."""
        return {"type": "function", "function": super().tool}

    def answer(self, call: dict[str, Any]) -> dict[str, Any]:
        """The `tool` message answering one of the assistant's `tool_calls`."""
        text = self.query_arguments((call.get("function") or {}).get("arguments"))
        return {"role": "tool", "tool_call_id": call["id"], "content": text}


class AnthropicCondenser(Condenser):
    """For agents whose history is Anthropic Messages (the anthropic client)."""

    def _to_pi(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return from_anthropic(messages, known_tools=self._tools, clock=self._tick, model=self.model)

    def _from_pi(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return to_anthropic(messages)

    @property
    def tool(self) -> dict[str, Any]:
        """The tool as an entry of the request's `tools`."""
        return {"name": self.tool_name, "description": self.tool_description, "input_schema": self.tool_parameters}

    def answer(self, call: dict[str, Any]) -> dict[str, Any]:
        """The `tool_result` block answering one `tool_use` block (put it in the next user message)."""
        return {"type": "tool_result", "tool_use_id": call["id"], "content": self.query_arguments(call.get("input"))}
