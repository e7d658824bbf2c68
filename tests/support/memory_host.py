"""The engine tests' host: condense's own LocalHost over an in-memory log, with a scripted summariser.

It stands in for the agent (the engine under test is real, and so is the host the library ships),
the way the reference's tests boot their extension with a stubbed pi/ctx. What only tests need sits
on top: a settable context usage, appends that fail on demand, and the prompts the summariser saw.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.entry_log import MemoryLog
from condense.host import CancelSignal, CompletionEvent, ContextUsage
from condense.local_host import LocalHost
from condense.messages import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from condense.record_bursts import expanded

USAGE: Usage = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003}}

Answer = Callable[[str], str | None]  # prompt -> summary text (None: the call fails transiently)


class ScriptedModels:
    """Every model exists; each call answers with `answer(prompt)`, recorded in `prompts`."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    def session_model(self) -> str | None:
        return "prov/session-model"

    def has_model(self, ref: str) -> bool:
        return True

    def complete(self, model: str, prompt: str, thinking: str | None,
                 signal: CancelSignal) -> AsyncIterator[CompletionEvent]:
        return self._stream(prompt)

    async def _stream(self, prompt: str) -> AsyncIterator[CompletionEvent]:
        self.prompts.append(prompt)
        text = self.answer(prompt)
        if text is None:
            yield CompletionEvent("error", "503 service unavailable", error_kind="transient")
            return
        yield CompletionEvent("delta", text)
        yield CompletionEvent("done", text, stop_reason="stop", usage=cast(dict[str, Any], USAGE))


class MemoryHost(LocalHost):
    def __init__(self, blobs: Path | None = None, answer: Answer | None = None, cwd: str | None = None) -> None:
        self.scripted = ScriptedModels(answer or (lambda prompt: "[[1:read]] summary of the batch"))
        self.memory = MemoryLog(cwd, blobs)
        super().__init__(self.memory, summarize=self.scripted)
        self.usage: ContextUsage | None = ContextUsage(1000, 200_000)
        self.prompts = self.scripted.prompts
        self.fail_appends = False

    @property
    def answer(self) -> Answer:
        return self.scripted.answer

    @answer.setter
    def answer(self, answer: Answer) -> None:
        self.scripted.answer = answer

    @property
    def entries(self) -> list[dict[str, Any]]:
        """The log itself (a test may cut it, as a crash would)."""
        return self.memory.entries

    def add_message(self, message: Mapping[str, Any]) -> None:
        self.append_message(message)

    def custom(self, custom_type: str) -> list[Any]:
        """The data of every record (the content of every custom message) of `custom_type`, however stored."""
        return [e.get("data", e.get("content")) for e in expanded(self.entries) if e.get("customType") == custom_type]

    def append_entry(self, custom_type: str, data: Any) -> None:
        if self.fail_appends:
            raise OSError("disk full")
        super().append_entry(custom_type, data)

    async def append_custom_message(self, custom_type: str, content: str, display: bool, details: Any) -> None:
        if self.fail_appends:
            raise OSError("disk full")
        await super().append_custom_message(custom_type, content, display, details)

    def context_usage(self) -> ContextUsage | None:
        return self.usage


def user(text: str, ts: int) -> UserMessage:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def call(call_id: str, name: str = "read", **args: Any) -> ToolCall:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": args or {"path": f"{call_id}.py"}}


def assistant(ts: int, *calls: ToolCall, text: str = "") -> AssistantMessage:
    content: list[TextContent | ThinkingContent | ToolCall] = [{"type": "text", "text": text}] if text else []
    return {"role": "assistant", "content": [*content, *calls], "api": "x", "provider": "prov",
            "model": "session-model", "usage": USAGE, "stopReason": "toolUse" if calls else "stop", "timestamp": ts}


def result(call_id: str, text: str, ts: int, name: str = "read", error: bool = False) -> ToolResultMessage:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": error, "timestamp": ts}


class Driver:
    """Plays turns into a MemoryHost and the engine the way the agent loop does."""

    def __init__(self, host: MemoryHost, engine: CondenseEngine) -> None:
        self.host = host
        self.engine = engine
        self.turn = 0

    async def prompt(self, text: str, ts: int) -> None:
        self.host.add_message(user(text, ts))

    async def tool_turn(self, ts: int, calls: list[tuple[str, str]], name: str = "read") -> None:
        """One assistant turn calling `name` once per (id, output) pair, with its results."""
        await self.engine.before_request(ts)
        message = assistant(ts, *(call(cid, name) for cid, _ in calls))
        self.host.add_message(message)
        results = [result(cid, out, ts + 1 + i, name) for i, (cid, out) in enumerate(calls)]
        for item in results:
            self.host.add_message(item)
        await self.engine.on_turn_end(message, results, self.turn)
        self.turn += 1

    async def edit(self, ts: int, path: str) -> None:
        """One assistant turn editing `path` (what makes an earlier read of it stale), with its result."""
        message = assistant(ts, call(f"edit{ts}", "edit", path=path, oldText="old", newText="new"))
        self.host.add_message(message)
        done = result(f"edit{ts}", f"Successfully replaced text in {path}.", ts + 1, "edit")
        self.host.add_message(done)
        await self.engine.on_turn_end(message, [done], self.turn)
        self.turn += 1

    async def final(self, ts: int, text: str = "done") -> None:
        await self.engine.before_request(ts)
        message = assistant(ts, text=text)
        self.host.add_message(message)
        await self.engine.on_message_end(message)
        await self.engine.on_turn_end(message, [], self.turn)
        self.turn += 1
        self.engine.on_agent_end()

    async def round(self, n: int, output: str) -> None:
        """User round `n` (at n seconds' worth of milliseconds): a prompt, one read of `output`, the final
        reply; a closed chain."""
        await self.prompt(f"read part {n}", 1000 * n + 100)
        await self.tool_turn(1000 * n + 110, [(f"c{n}", output)])
        await self.final(1000 * n + 200)

    def render(self) -> list[dict[str, Any]]:
        """The rendered context, as the plain dicts the tests read it as (it goes to a provider as JSON)."""
        return cast(list[dict[str, Any]], self.engine.render(self.host.messages()))


# Engine scenarios keep the settings their fixtures were sized for (1,000-character batches, the three
# newest chains raw, chains of any size compressed); the shipped defaults, chosen by benchmarks/sweep.py,
# are pinned in test_config.py.
SMALL_OUTPUT = "x = 1\n" * 20  # under the scenarios' batch minimum: no summary; a chain indexes it itself
SCENARIO_SETTINGS: dict[str, Any] = {"min_batch_chars": 1000,
                                     "chain_compression": {"rolling_window": 3, "min_chars": 0}}


def make(config: dict[str, Any] | None = None, **host_args: Any) -> tuple[MemoryHost, CondenseEngine, Driver]:
    host = MemoryHost(**host_args)
    settings = {**SCENARIO_SETTINGS, **(config or {})}
    settings["chain_compression"] = {**SCENARIO_SETTINGS["chain_compression"], **settings["chain_compression"]}
    engine = CondenseEngine(host, CondenseConfig.model_validate(settings))
    engine.on_session_start()
    return host, engine, Driver(host, engine)


def stubbed(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """toolCallIds of the results rendered as stubs."""
    return [m["toolCallId"] for m in messages if m["role"] == "toolResult"
            and "context_tree_query" in m["content"][0]["text"]]
