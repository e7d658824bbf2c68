"""Generated sessions: realistic Pi-shaped histories of any length, written through the real store.

A task is a user prompt, a few tool-using assistant turns (read, bash, grep, with outputs of chosen
sizes and the odd error), and a final reply, the same shape the agent loop records. Everything is a
function of the seed and the arguments, so two runs write byte-identical files.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, cast

from condense.messages import AssistantMessage, ImageContent, TextContent
from pi_tui.session.store import Session

START_MS = 1_760_000_000_000
TOOLS = ("read", "bash", "grep")


def _usage(tokens: int) -> dict[str, Any]:
    return {"input": tokens, "output": 50, "cacheRead": 0, "cacheWrite": 0, "totalTokens": tokens + 50,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def _assistant(ts: int, text: str, calls: list[dict[str, Any]], tokens: int) -> AssistantMessage:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += calls
    return cast(AssistantMessage, {  # built from plain dicts
        "role": "assistant", "content": content, "api": "openai-completions", "provider": "openai",
        "model": "gpt-test", "usage": _usage(tokens), "stopReason": "toolUse" if calls else "stop", "timestamp": ts})


def _output(rng: random.Random, name: str, index: int, chars: int) -> str:
    line = f"{name} output {index}: " + "".join(rng.choice("abcdefghij ") for _ in range(60)) + "\n"
    return (line * (chars // len(line) + 1))[:chars]


class HistoryWriter:
    """Appends tasks to a session; `outputs` maps each result's occurrence key to its text."""

    def __init__(self, session: Session, seed: int = 0) -> None:
        self.session = session
        self.rng = random.Random(seed)
        self.ts = START_MS
        self.calls = 0
        self.tokens = 1000
        self.outputs: dict[str, str] = {}

    def tick(self) -> int:
        self.ts += 1000
        return self.ts

    def task(self, turns: int, calls_per_turn: int, output_chars: int) -> None:
        prompt: list[TextContent | ImageContent] = [{"type": "text", "text": f"task at {self.ts}"}]
        self.session.append_message({"role": "user", "content": prompt, "timestamp": self.tick()})
        for _ in range(turns):
            self.turn(calls_per_turn, output_chars)
        self.tokens += 200
        self.session.append_message(_assistant(self.tick(), "Done: the task is finished.", [], self.tokens))

    def turn(self, calls_per_turn: int, output_chars: int) -> None:
        calls: list[dict[str, Any]] = []
        for _ in range(calls_per_turn):
            self.calls += 1
            name = TOOLS[self.calls % len(TOOLS)]
            calls.append({"type": "toolCall", "id": f"call_{self.calls}", "name": name,
                          "arguments": {"path": f"src/file_{self.calls}.py"} if name == "read"
                          else {"command": f"echo {self.calls}"}})
        self.tokens += calls_per_turn * output_chars // 4
        self.session.append_message(_assistant(self.tick(), "Looking.", calls, self.tokens))
        for call in calls:
            size = max(1, int(output_chars * self.rng.uniform(0.5, 1.5)))
            text = _output(self.rng, call["name"], self.calls, size)
            ts = self.tick()
            self.outputs[f"{call['id']}@{ts}"] = text
            content: list[TextContent | ImageContent] = [{"type": "text", "text": text}]
            self.session.append_message({"role": "toolResult", "toolCallId": call["id"],
                                         "toolName": call["name"], "content": content,
                                         "isError": self.rng.random() < 0.1, "timestamp": ts})


def write_history(path: Path, tasks: int, turns: int = 2, calls_per_turn: int = 2, output_chars: int = 1500,
                  seed: int = 0) -> HistoryWriter:
    session = Session.create("/work/project", path.parent)
    session.path = path
    session.append_model_change("openai", "gpt-test")
    session.append_thinking_level_change("off")
    writer = HistoryWriter(session, seed)
    for _ in range(tasks):
        writer.task(turns, calls_per_turn, output_chars)
    return writer
