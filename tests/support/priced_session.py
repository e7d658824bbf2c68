"""A generated session with the cost figures a provider reports, for `pi-tui whatif` and the offline
configuration it reads: tasks of tool turns whose long listings grow the prompt, priced as Anthropic
prices them, so every strategy has something to save and every request has a price."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from condense.messages import AssistantMessage
from pi_tui.session.store import Session


def _usage(prompt: int, cached: int) -> dict[str, Any]:
    """A reply's usage with all but the newest 300 tokens read from the cache, and its dollar cost."""
    cost = (prompt - cached) * 3.75e-6 + cached * 3e-7 + 200 * 1.5e-5
    return {"input": 0, "output": 200, "cacheRead": cached, "cacheWrite": prompt - cached,
            "totalTokens": prompt + 200, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                                                  "total": cost}}


def claude_reply(content: list[dict[str, Any]], ts: int, usage: dict[str, Any], stop: str) -> AssistantMessage:
    """A Claude reply as Pi records it, carrying the usage the simulation prices (whatever the test sets)."""
    return cast(AssistantMessage, {"role": "assistant", "content": content, "api": "anthropic-messages",
                                   "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage,
                                   "stopReason": stop, "timestamp": ts})


def listing(task: int, turn: int) -> str:
    """A long tool output, distinct per turn, so pruning it saves real tokens."""
    return "\n".join(f"src/module_{task}_{turn}/file_{n:03d}.py: def handler_{n}(request): return {n * 7}"
                     for n in range(60))


def write_session(folder: Path, tasks: int = 4, turns: int = 3) -> Path:
    """A session of `tasks` user requests, each answered with `turns` tool turns and a final reply."""
    session = Session.create(folder, directory=folder)
    ts, prompt = 1_700_000_000_000, 1_700
    for task in range(tasks):
        ts += 120_000
        session.append_message({"role": "user", "content": [{"type": "text", "text": f"task {task}"}],
                                 "timestamp": ts})
        for turn in range(turns):
            ts += 10_000
            call: dict[str, Any] = {"type": "toolCall", "id": f"toolu_{task}_{turn}", "name": "bash",
                    "arguments": {"command": f"grep -rn handler src/module_{task}_{turn}"}}
            session.append_message(claude_reply([call], ts, _usage(prompt, prompt - 300), "toolUse"))
            ts += 2_000
            output = listing(task, turn)
            session.append_message({"role": "toolResult", "toolCallId": call["id"], "toolName": "bash",
                                    "content": [{"type": "text", "text": output}], "isError": False,
                                    "timestamp": ts})
            prompt += len(output) // 3 + 100
        ts += 10_000
        reply = [{"type": "text", "text": f"Task {task} is done: the handlers are listed above."}]
        session.append_message(claude_reply(reply, ts, _usage(prompt, prompt - 300), "stop"))
        prompt += 50
    assert session.path is not None
    return session.path
