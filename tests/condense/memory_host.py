"""An in-memory agent for engine tests: a linear session of Pi entries, a settable context usage, and a
summariser answer per call. It stands in for the HOST (the engine under test is real), the way the
reference's tests boot their extension with a stubbed pi/ctx.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.host import CancelSignal, CompletionEvent, ContextUsage, RecordedUI

USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003}}

Answer = Callable[[str], str | None]  # prompt -> summary text (None: the call fails transiently)


class MemoryHost(RecordedUI):
    def __init__(self, blobs: Path | None = None, answer: Answer | None = None) -> None:
        super().__init__()
        self.entries: list[dict[str, Any]] = []
        self.blobs = blobs
        self.usage: ContextUsage | None = ContextUsage(1000, 200_000)
        self.answer: Answer = answer or (lambda prompt: "[[1:read]] summary of the batch")
        self.prompts: list[str] = []
        self.fail_appends = False
        self.session_cwd: str | None = None
        self._ts = 0
        self._custom: dict[str, dict[str, Any]] = {}

    # ----- session -----
    def _add(self, entry: dict[str, Any]) -> None:
        self._ts += 1
        entry = {"id": f"e{len(self.entries)}", "parentId": self.entries[-1]["id"] if self.entries else None,
                 "timestamp": f"2026-01-01T00:00:{self._ts % 60:02d}.000Z", **entry}
        self.entries.append(entry)

    def add_message(self, message: dict[str, Any]) -> None:
        self._add({"type": "message", "message": message})

    def branch(self) -> list[dict[str, Any]]:
        return list(self.entries)

    def messages(self) -> list[dict[str, Any]]:
        """Like a real session, the same message object for an entry every time (renders reuse by identity)."""
        out = []
        for entry in self.entries:
            if entry["type"] == "message":
                out.append(entry["message"])
            elif entry["type"] == "custom_message":
                out.append(self._custom.setdefault(entry["id"], {
                    "role": "custom", "customType": entry["customType"], "content": entry["content"],
                    "display": entry["display"], "details": entry.get("details"), "timestamp": 0}))
        return out

    def custom(self, custom_type: str) -> list[Any]:
        return [e.get("data", e.get("content")) for e in self.entries if e.get("customType") == custom_type]

    def append_entry(self, custom_type: str, data: Any) -> None:
        if self.fail_appends:
            raise OSError("disk full")
        self._add({"type": "custom", "customType": custom_type, "data": data})

    async def append_custom_message(self, custom_type: str, content: str, display: bool, details: Any) -> None:
        if self.fail_appends:
            raise OSError("disk full")
        self._add({"type": "custom_message", "customType": custom_type, "content": content, "display": display,
                   "details": details})

    def blobs_dir(self) -> Path | None:
        return self.blobs

    def cwd(self) -> str | None:
        return self.session_cwd

    def context_usage(self) -> ContextUsage | None:
        return self.usage

    def session_model(self) -> str | None:
        return "prov/session-model"

    def has_model(self, ref: str) -> bool:
        return True

    async def _stream(self, prompt: str) -> AsyncIterator[CompletionEvent]:
        self.prompts.append(prompt)
        text = self.answer(prompt)
        if text is None:
            yield CompletionEvent("error", "503 service unavailable", error_kind="transient")
            return
        yield CompletionEvent("delta", text)
        yield CompletionEvent("done", text, stop_reason="stop", usage=USAGE)

    def complete(self, model: str, prompt: str, thinking: str | None,
                 signal: CancelSignal) -> AsyncIterator[CompletionEvent]:
        return self._stream(prompt)

    # ----- ui -----

def user(text: str, ts: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def call(call_id: str, name: str = "read", **args: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": args or {"path": f"{call_id}.py"}}


def assistant(ts: int, *calls: dict[str, Any], text: str = "") -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    return {"role": "assistant", "content": [*content, *calls], "api": "x", "provider": "prov",
            "model": "session-model", "usage": USAGE, "stopReason": "toolUse" if calls else "stop", "timestamp": ts}


def result(call_id: str, text: str, ts: int, name: str = "read", error: bool = False) -> dict[str, Any]:
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
        message = assistant(ts, *(call(cid, name) for cid, _ in calls))
        self.host.add_message(message)
        results = [result(cid, out, ts + 1 + i, name) for i, (cid, out) in enumerate(calls)]
        for item in results:
            self.host.add_message(item)
        await self.engine.on_turn_end(message, results, self.turn)
        self.turn += 1

    async def final(self, ts: int, text: str = "done") -> None:
        message = assistant(ts, text=text)
        self.host.add_message(message)
        await self.engine.on_message_end(message)
        await self.engine.on_turn_end(message, [], self.turn)
        self.turn += 1
        self.engine.on_agent_end()

    def render(self) -> list[dict[str, Any]]:
        return self.engine.render(self.host.messages())


# Engine scenarios keep the settings their fixtures were sized for (1,000-character batches, the three
# newest chains raw); the shipped defaults, chosen by benchmarks/sweep.py, are pinned in test_config.py.
SCENARIO_SETTINGS: dict[str, Any] = {"min_batch_chars": 1000, "chain_compression": {"rolling_window": 3}}


def make(config: dict[str, Any] | None = None, **host_args: Any) -> tuple[MemoryHost, CondenseEngine, Driver]:
    host = MemoryHost(**host_args)
    settings = {**SCENARIO_SETTINGS, **(config or {})}
    settings["chain_compression"] = {**SCENARIO_SETTINGS["chain_compression"], **settings["chain_compression"]}
    engine = CondenseEngine(host, CondenseConfig.model_validate(settings))
    engine.on_session_start()
    return host, engine, Driver(host, engine)


def stubbed(messages: list[dict[str, Any]]) -> list[str]:
    """toolCallIds of the results rendered as stubs."""
    return [m["toolCallId"] for m in messages if m["role"] == "toolResult"
            and "context_tree_query" in m["content"][0]["text"]]
