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

import json
import logging
import os
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Self, TypedDict, Unpack, cast

from pydantic import BaseModel, ValidationError

from condense.adapters import from_anthropic, from_openai, to_anthropic, to_openai
from condense.adapters.breakpoints import CacheBreakpoints
from condense.adapters.checks import at, identifier, mapping
from condense.adapters.common import tool_names, with_usage
from condense.adapters.pi import from_pi
from condense.adapters.plain import MessageLike, plain
from condense.config import CondenseConfig, one_line_error
from condense.engine import CondenseEngine
from condense.errors import ConfigError, MessageError
from condense.host import Level, NoticeCallback
from condense.local_host import LocalHost, SummaryFunction
from condense.messages import (
    AgentMessage,
    ToolResultMessage,
    is_tool_result,
    plain_messages,
    tool_calls,
    typed_messages,
)
from condense.prune_result import PruneMeter, PruneResult
from condense.query import (
    QUERY_TOOL_DESCRIPTION,
    QUERY_TOOL_NAME,
    QUERY_TOOL_PARAMETERS,
    QueryArguments,
    QueryError,
)
from condense.run_sync import run_sync
from condense.summarize.runner import EXTRACTIVE_MODEL
from condense.tool_pairing import pair_tool_calls

if TYPE_CHECKING:  # the SDKs' request types, for the agent's type checker only: condense never imports an SDK
    from anthropic.types import MessageParam, ToolParam, ToolResultBlockParam
    from openai.types.chat import (
        ChatCompletionFunctionToolParam,
        ChatCompletionMessageParam,
        ChatCompletionToolMessageParam,
    )

log = logging.getLogger("condense")

NOTICES_KEPT = 100  # `host.notices` keeps the newest; every notice also reaches `on_notice` and the logger
LOG_LEVELS: dict[Level, int] = {"info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}

_QUERY_USAGE = 'pass {"toolCallIds": [...]} with refs like "t12" from a pruner summary or stub'

SummarySource = str | SummaryFunction
"""`"extractive"` (offline, no model) or a function from the summariser prompt to the summary text (sync or
async); for a litellm model, `condense.litellm_summary.litellm_summarizer("provider/model")` (the `[litellm]` extra)."""


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
                         f" model use condense.litellm_summary.litellm_summarizer({summarizer!r})"
                         " (pip install 'condense-engine[litellm]')")
    return summarizer


class _OpenTurn:
    """An assistant message with tool calls, waiting for their results before its `turn_end`."""

    def __init__(self, message: AgentMessage, index: int) -> None:
        self.message = message
        self.index = index
        self.waiting = {call["id"] for call in tool_calls(message)}
        self.results: list[ToolResultMessage] = []


class Options(TypedDict, total=False):
    """The keyword arguments every facade takes (see `Condenser`)."""

    summarizer: SummarySource
    config: CondenseConfig | Mapping[str, Any] | None
    context_window: int
    model: str
    on_notice: NoticeCallback | None


def _listed(messages: Iterable[MessageLike]) -> list[Any]:
    """The messages of one `add`, as plain data; one message alone is a mistake to say, not to iterate."""
    if isinstance(messages, Mapping | BaseModel | str | bytes) or not isinstance(messages, Iterable):
        raise MessageError(f"condense: add takes a list of messages, got {type(messages).__name__}; put a single "
                           "message in a list")
    return [plain(message) for message in messages]


def _reply_usage(messages: list[Any]) -> Any:
    """The usage a reply carries itself (the anthropic SDK's `Message` does), for an `add` given none."""
    return next((m["usage"] for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "assistant"
                 and isinstance(m.get("usage"), dict)), None)


def _weakly(method: NoticeCallback) -> NoticeCallback:
    """`method` without keeping its object alive: the host holds it, and a facade the agent dropped must
    be freed at once (that releases its store), not when a cyclic collection finds it."""
    ref = weakref.WeakMethod(method)

    def call(level: Level, text: str) -> None:
        target = ref()
        if target is not None:
            target(level, text)

    return call


class _Facade:
    """What every facade does, whatever the shape of its messages: play pi-tui's agent host for the
    engine. The subclasses convert messages to and from Pi's shape and give the request its types."""

    def __init__(self, store: str | os.PathLike[str] | None = None, *, summarizer: SummarySource = EXTRACTIVE_MODEL,
                 config: CondenseConfig | Mapping[str, Any] | None = None, context_window: int = 200_000,
                 model: str = "agent", on_notice: NoticeCallback | None = None) -> None:
        """`store` is a folder for the Pi session file and spilled outputs (reopening it continues the
        conversation), or None to keep everything in memory. `config` takes any condense setting
        (`CondenseConfig` or a dict of its snake_case keys). `context_window` is the model's, in tokens:
        the engine flushes early when the estimated context use nears it. `on_notice(level, text)` hears
        each notice (a summariser that failed, a damaged store line) as it is given; notices also go to
        the `condense` logger, and `host.notices` keeps the newest hundred."""
        self.model = model
        self.on_notice = on_notice
        self._said: list[tuple[Level, str]] = []  # the notices of the call under way
        settings = _config_for(summarizer, config)
        self.host = LocalHost(store, summarize=_summary_function(summarizer), context_window=context_window,
                              on_notice=_weakly(self._notice), keep_notices=NOTICES_KEPT)
        # the host and its engine refer to each other, so only a cyclic collection would free them: the
        # facade, in no cycle, releases the store as soon as the agent drops it
        self._release = weakref.finalize(self, self.host.close)
        self.engine = CondenseEngine(self.host, settings)
        self.host.attach(self.engine)
        self.meter = PruneMeter(self.engine, self.host)
        history = self.host.messages()
        self._assistants = sum(1 for m in history if m.get("role") == "assistant")
        self._tools = tool_names(history)
        self._last_ms = max((m.get("timestamp", 0) for m in history), default=0)
        self._turn: _OpenTurn | None = None
        self.engine.on_session_start()

    def _notice(self, level: Level, text: str) -> None:
        log.log(LOG_LEVELS[level], "%s", text)
        self._said.append((level, text))
        if self.on_notice is not None:
            self.on_notice(level, text)

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

    async def add(self, messages: Iterable[MessageLike], usage: Any = None) -> PruneResult:
        """Record new messages (in this class's shape: dicts, TypedDicts or the SDK's objects) in order, as
        the agent produced them. A final reply (an assistant message without tool calls) may flush:
        summaries are written before this returns, and the result says what was pruned. `usage` is the
        provider's report for the last reply among them (OpenAI's or Anthropic's shape; a reply that
        carries its own, as the anthropic SDK's `Message` does, needs none): recorded, it lets `pi-tui
        whatif` price the conversation. MessageError: a message is malformed or cannot be held (nothing
        of the batch is recorded). StoreWriteError: the store could not be written (a full disk); the
        messages are recorded all the same, kept in memory until it can."""
        listed = _listed(messages)
        converted = self._to_pi(listed)
        self._check_results(converted)
        usage = _reply_usage(listed) if usage is None else usage
        pi = typed_messages(converted if usage is None else with_usage(converted, usage))
        return await self._call(lambda: self._record(pi), pi)

    def add_sync(self, messages: Iterable[MessageLike], usage: Any = None) -> PruneResult:
        """`add` for code that cannot await: it works inside a running event loop too (a notebook), by
        running on a loop of its own in a worker thread while the caller waits."""
        return run_sync(self.add(messages, usage))

    def _check_results(self, messages: list[dict[str, Any]]) -> None:
        """A result whose call was never handed over would be dropped from every request: say so instead."""
        calls = set(self._tools)
        for message in messages:
            calls.update(call["id"] for call in tool_calls(message))
            if is_tool_result(message) and message["toolCallId"] not in calls:
                raise MessageError(f"condense: the tool result for call {message['toolCallId']!r} answers no tool "
                                   "call handed over before it; add the assistant message that made the call first")

    async def _call(self, work: Callable[[], Awaitable[None]], added: list[AgentMessage] | None = None,
                    ) -> PruneResult:
        """Run one call of the library (that hands over `added`) and say what it pruned."""
        before = self.meter.start()
        self._said = []
        await work()
        self.host.save()
        return self.meter.result(before, added or [], self._said)

    async def _record(self, messages: list[AgentMessage]) -> None:
        await self._add_pi(messages)
        if messages and messages[-1].get("role") in ("user", "toolResult"):
            # a request follows: where the provider's cache has gone cold (or none was sent since this
            # store was opened), pending work is flushed first, its rewrite being free
            await self.engine.before_request(int(time.time() * 1000))

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

    def _to_pi(self, messages: list[Any]) -> list[dict[str, Any]]:
        raise NotImplementedError  # each facade reads its own shape

    # ----- the request --------------------------------------------------------------------------

    def _request(self) -> list[dict[str, Any]]:
        """The history to send next, pruned, in Pi's shape. A call whose result never came (the agent died
        between the two) is answered as pi-tui answers it, with an error result, once the conversation has
        moved on: a provider refuses an unanswered call."""
        rendered = self.engine.render(self.host.messages())
        self.meter.measure(rendered)
        return plain_messages(pair_tool_calls(rendered))

    async def flush(self) -> PruneResult:
        """Summarise every pending tool batch now (`/pruner now`), whatever the triggers say."""
        return await self._call(self._flush)

    def flush_sync(self) -> PruneResult:
        """`flush` for code that cannot await (inside a running event loop too, as `add_sync`)."""
        return run_sync(self.flush())

    async def _flush(self) -> None:
        await self._close_turn()
        await self.engine.flush("manual", sequential=True)

    async def shrink(self) -> bool:
        """The provider refused the request as too long: summarise everything pending and compress every
        closed chain, as pi-tui does before its one retry. True when something shrank (retry once)."""
        await self._close_turn()
        shrunk = await self.engine.on_context_overflow(retried=False)
        self.host.save()
        return shrunk

    def shrink_sync(self) -> bool:
        """`shrink` for code that cannot await (inside a running event loop too, as `add_sync`)."""
        return run_sync(self.shrink())

    # ----- the recovery tool --------------------------------------------------------------------

    tool_name = QUERY_TOOL_NAME
    tool_description = QUERY_TOOL_DESCRIPTION
    tool_parameters = QUERY_TOOL_PARAMETERS

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

    def _call_of(self, call: MessageLike, arguments: str) -> tuple[str, Any]:
        """The id and the arguments of one `context_tree_query` call of the model, in any shape."""
        found = mapping(plain(call), "call")
        return identifier(found.get("id"), at("call", "id")), found.get(arguments)


class Condenser(_Facade):
    """The engine over Pi-shaped messages, for agents that already keep Pi messages; OpenAICondenser and
    AnthropicCondenser speak the providers' shapes."""

    def _to_pi(self, messages: list[Any]) -> list[dict[str, Any]]:
        return from_pi(messages)

    def messages(self) -> list[dict[str, Any]]:
        """The history to send next, pruned, in Pi's shape (without the system prompt)."""
        return self._request()

    @property
    def tool(self) -> dict[str, Any]:
        """The `context_tree_query` tool to offer the model, in Pi's shape."""
        return {"name": self.tool_name, "description": self.tool_description, "parameters": self.tool_parameters}

    def answer(self, call: MessageLike) -> dict[str, Any]:
        """The result message for one `context_tree_query` call of the model (a Pi toolCall block)."""
        call_id, arguments = self._call_of(call, "arguments")
        return {"role": "toolResult", "toolCallId": call_id, "toolName": self.tool_name,
                "content": [{"type": "text", "text": self.query_arguments(arguments)}],
                "isError": False, "timestamp": self._tick()}


class OpenAICondenser(_Facade):
    """For agents whose history is OpenAI chat-completions messages (the openai SDK, litellm): `add` takes
    dicts, the SDK's TypedDicts and its `ChatCompletionMessage`; `messages()` is typed as what
    `client.chat.completions.create(messages=...)` takes."""

    def _to_pi(self, messages: list[Any]) -> list[dict[str, Any]]:
        return from_openai(messages, known_tools=self._tools, clock=self._tick, model=self.model)

    def messages(self) -> list[ChatCompletionMessageParam]:
        """The history to send next, pruned, in OpenAI's shape (without the system prompt)."""
        # to_openai builds exactly these shapes (tests send them to an OpenAI-compatible server)
        return cast("list[ChatCompletionMessageParam]", to_openai(self._request()))

    @property
    def tool(self) -> ChatCompletionFunctionToolParam:
        """The tool as an entry of the request's `tools`."""
        return {"type": "function", "function": {"name": self.tool_name, "description": self.tool_description,
                                                 "parameters": self.tool_parameters}}

    def answer(self, call: MessageLike) -> ChatCompletionToolMessageParam:
        """The `tool` message answering one of the assistant's `tool_calls` (a dict or the SDK's object)."""
        call_id, function = self._call_of(call, "function")
        arguments = function.get("arguments") if isinstance(function, dict) else None
        return {"role": "tool", "tool_call_id": call_id, "content": self.query_arguments(arguments)}


class AnthropicCondenser(_Facade):
    """For agents whose history is Anthropic Messages (the anthropic SDK): `add` takes dicts, the SDK's
    TypedDicts, its `Message` and content blocks; `messages()` is typed as what
    `client.messages.create(messages=...)` takes. With `cache_breakpoints=True` each request marks its
    prompt cache itself (`condense.adapters.breakpoints`: two of Anthropic's four marks)."""

    def __init__(self, store: str | os.PathLike[str] | None = None, *, cache_breakpoints: bool = False,
                 **options: Unpack[Options]) -> None:
        super().__init__(store, **options)
        self.breakpoints = CacheBreakpoints() if cache_breakpoints else None

    def _to_pi(self, messages: list[Any]) -> list[dict[str, Any]]:
        return from_anthropic(messages, known_tools=self._tools, clock=self._tick, model=self.model)

    def messages(self) -> list[MessageParam]:
        """The history to send next, pruned, in Anthropic's shape (without the system prompt)."""
        request = to_anthropic(self._request())
        if self.breakpoints is not None:
            request = self.breakpoints.place(request)
        # to_anthropic builds exactly these shapes: user and assistant messages of the blocks it reads
        return cast("list[MessageParam]", request)

    @property
    def tool(self) -> ToolParam:
        """The tool as an entry of the request's `tools`."""
        return {"name": self.tool_name, "description": self.tool_description, "input_schema": self.tool_parameters}

    def answer(self, call: MessageLike) -> ToolResultBlockParam:
        """The `tool_result` block answering one `tool_use` block (a dict or the SDK's `ToolUseBlock`); put
        it in the next user message."""
        call_id, arguments = self._call_of(call, "input")
        return {"type": "tool_result", "tool_use_id": call_id, "content": self.query_arguments(arguments)}
