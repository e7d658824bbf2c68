"""The offline `demo` model: plays the scripted session of `script.py` as a streamed model would.

It keeps no memory between requests. Where it is in the script is read from the request alone, because
the pruning engine rewrites old history (stubs, purged arguments, whole chains replaced by a summary)
and a session may be resumed in a new process. Two traces survive all of that: final replies end with a
`(demo task N/M done)` marker, and tool-call ids spell out task, step and attempt (`demo_t2_s3_0`, or
`demo_t2_s3r2_0` when a step is replayed). The open task's turns are never compressed, so its ids are
always there.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from condense.messages import AssistantMessage, StopReason, TextContent, ToolCall, Usage, content_text
from pi_tui.abort import AbortSignal
from pi_tui.agent.branch_summary import OPENING as BRANCH_SUMMARY_OPENING
from pi_tui.agent.compaction import SYSTEM_PROMPT as COMPACTION_SYSTEM_PROMPT
from pi_tui.ai.types import EventType, ModelRequest, StreamEvent
from pi_tui.demo.script import DEMO_OVER, TASKS, Step, Task

_DONE_MARKER = re.compile(r"\(demo task (\d+)/\d+ done\)")
_CALL_ID = re.compile(r"^demo_t(\d+)_s(\d+)(?:r(\d+))?_\d+$")
# The agent loop answers calls it skipped because the user steered with this text; such a step is replayed.
_SKIPPED_PREFIX = "Skipped due to queued user message"
_ARGUMENT_CHUNK = 48
ABORTED_TEXT = "Request was aborted"
NEXT_TASK_HINT = "Send any message to play the next task."


@dataclass
class _Attempt:
    """The latest attempt at one step, and whether any of its calls really ran."""

    number: int = 1
    ran: bool = False
    skipped: bool = False


@dataclass(frozen=True)
class Position:
    """Where the script stands: `step` is 1-based; one past the last step means the closing summary."""

    task: int
    step: int
    attempt: int = 1
    resumed: bool = False


@dataclass
class Reply:
    """What the demo says next: text, and the tool calls of a tool turn."""

    text: str
    calls: list[ToolCall] = field(default_factory=list)

    @property
    def stop_reason(self) -> StopReason:
        return "toolUse" if self.calls else "stop"


def locate(messages: list[Any], tasks: tuple[Task, ...] = TASKS) -> Position:
    """The next move, judged from whatever survived of the conversation."""
    done = 0
    attempts: dict[tuple[int, int], _Attempt] = {}
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("stopReason") in ("aborted", "error"):
            continue  # an interrupted turn ran nothing; its step is still to do
        if role in ("user", "assistant"):
            text = content_text(message.get("content") or "")
            done = max([done, *(int(n) for n in _DONE_MARKER.findall(text))])
        if role == "assistant":
            for block in message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    _note_call(attempts, str(block.get("id", "")), None)
        elif role == "toolResult":
            _note_call(attempts, str(message.get("toolCallId", "")), message)
    task = max([done + 1, *(t for t, _ in attempts)])
    resumed = bool(messages) and messages[-1].get("role") == "user"
    steps = [s for t, s in attempts if t == task]
    if not steps:
        return Position(task, 1, resumed=resumed)
    latest = attempts[(task, max(steps))]
    if latest.skipped and not latest.ran:
        return Position(task, max(steps), latest.number + 1, resumed)
    return Position(task, max(steps) + 1, resumed=resumed)


def _note_call(attempts: dict[tuple[int, int], _Attempt], call_id: str, result: dict[str, Any] | None
               ) -> None:
    match = _CALL_ID.match(call_id)
    if match is None:
        return
    key = (int(match[1]), int(match[2]))
    number = int(match[3] or 1)
    attempt = attempts.get(key)
    if attempt is None or attempt.number < number:
        attempt = attempts[key] = _Attempt(number)
    elif attempt.number > number:
        return
    if result is not None:
        skipped = bool(result.get("isError")) and content_text(result.get("content") or "").startswith(
            _SKIPPED_PREFIX
        )
        attempt.skipped = attempt.skipped or skipped
        attempt.ran = attempt.ran or not skipped


def plan_reply(messages: list[Any], tasks: tuple[Task, ...] = TASKS, next_hint: str = NEXT_TASK_HINT) -> Reply:
    """The text and tool calls of the next reply; a finished task ends with `next_hint`."""
    position = locate(messages, tasks)
    total = len(tasks)
    if position.task > total:
        return Reply(DEMO_OVER.format(total=total))
    task = tasks[position.task - 1]
    if position.step > len(task.steps):
        return Reply(_closing_text(task, position.task, total, next_hint))
    script_step = task.steps[position.step - 1]
    text = script_step.say
    if position.step == 1 and position.attempt == 1:
        text = f"Demo task {position.task}/{total}: {task.title}.\n\n{text}"
    elif position.resumed:
        text = (f"(This offline demo follows a fixed script, so it carries on with demo task "
                f"{position.task}/{total} rather than acting on your message.)\n\n{text}")
    return Reply(text, _calls(script_step, position))


def branch_summary_reply(request: ModelRequest) -> Reply | None:
    """`/tree` asks for a summary of the branch it leaves: the demo writes a short one from the request's
    own text (the user's messages and the tools called), as a model would, with no script to follow."""
    text = _request_text(request)
    if request.tools or not text.startswith(BRANCH_SUMMARY_OPENING):
        return None
    asked, tools = _asked_and_used(text)
    goal = asked[0] if asked else "(no message on this branch)"
    done = f"- Ran {', '.join(tools)} on the sample project." if tools else "- No tools ran."
    return Reply(f"## Goal\n{goal}\n\n## Done\n{done}\n\n## Open\n- Left for another branch.\n\n"
                 "## Worth keeping\n- (The offline demo writes this summary from the branch's text.)")


def compaction_reply(request: ModelRequest) -> Reply | None:
    """`/compact` asks for a checkpoint of the older conversation: the demo writes one from the request's
    text (what the user asked, the tools that ran), in the sections asked for, with no script to follow."""
    if request.system_prompt != COMPACTION_SYSTEM_PROMPT:
        return None
    asked, tools = _asked_and_used(_request_text(request))
    goals = "\n".join(f"- {line[:200]}" for line in asked) or "- (no user message in this part)"
    done = f"- [x] Ran {', '.join(tools)}." if tools else "- [x] (no tool ran)"
    return Reply(f"## Goal\n{goals}\n\n## Constraints and preferences\n- (none)\n\n## Progress\n### Done\n"
                 f"{done}\n\n### In progress\n- [ ] (see the kept messages)\n\n### Blocked\n- (none)\n\n"
                 "## Key decisions\n- (none)\n\n## Next steps\n1. Continue from the kept messages.\n\n"
                 "## Critical context\n- The offline demo writes this summary from the conversation's text.")


def _request_text(request: ModelRequest) -> str:
    return content_text(request.messages[-1].get("content") or "") if request.messages else ""


def _asked_and_used(text: str) -> tuple[list[str], list[str]]:
    """From a conversation in plain text (pi_tui/conversation/text.py): the user's messages' first lines,
    and the tools called."""
    asked = [line.strip() for line in re.findall(r"^── user[^\n]*\n(.+)$", text, flags=re.MULTILINE)]
    return asked, sorted(set(re.findall(r"^  → (\w+) ", text, flags=re.MULTILINE)))


def _closing_text(task: Task, number: int, total: int, next_hint: str) -> str:
    marker = f"(demo task {number}/{total} done)"
    follow = "That was the last task of the demo." if number == total else next_hint
    return f"{task.summary}\n\n---\n{marker} {follow}"


def _calls(script_step: Step, position: Position) -> list[ToolCall]:
    retry = f"r{position.attempt}" if position.attempt > 1 else ""
    return [
        {
            "type": "toolCall",
            "id": f"demo_t{position.task}_s{position.step}{retry}_{index}",
            "name": call.tool,
            "arguments": copy.deepcopy(call.args),
        }
        for index, call in enumerate(script_step.calls)
    ]


def _usage(request: ModelRequest, reply: Reply) -> Usage:
    request_chars = len(request.system_prompt) + len(json.dumps(request.messages, default=str))
    request_chars += sum(len(tool.name) + len(tool.description) + len(json.dumps(tool.parameters))
                         for tool in request.tools)
    reply_chars = len(reply.text) + sum(len(json.dumps(call["arguments"])) for call in reply.calls)
    tokens_in, tokens_out = request_chars // 4, reply_chars // 4
    return {
        "input": tokens_in,
        "output": tokens_out,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": tokens_in + tokens_out,
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0},
    }


def _words(text: str) -> list[str]:
    """Word-sized pieces whose concatenation is exactly `text`."""
    return re.findall(r"\s*\S+\s*|\s+", text)


class _Stream:
    """One reply being streamed: the blocks so far, and a snapshot of them for each event."""

    def __init__(self, request: ModelRequest, reply: Reply) -> None:
        self.reply = reply
        self.content: list[TextContent | ToolCall] = []
        self.usage = _usage(request, reply)
        self.timestamp = int(time.time() * 1000)

    def message(self, stop_reason: StopReason | None = None, error: str | None = None) -> AssistantMessage:
        """A copy of the reply so far: later events never change a message handed out earlier."""
        message: AssistantMessage = {
            "role": "assistant",
            "content": [copy.copy(block) for block in self.content],
            "api": "demo",
            "provider": "demo",
            "model": "demo",
            "usage": copy.deepcopy(self.usage),
            "stopReason": stop_reason or self.reply.stop_reason,
            "timestamp": self.timestamp,
        }
        if error is not None:
            message["errorMessage"] = error
        return message

    def _event(self, kind: EventType, delta: str = "") -> StreamEvent:
        return StreamEvent(kind, self.message(), delta, len(self.content) - 1)

    def events(self) -> Iterator[StreamEvent]:
        """The reply piece by piece; each piece is added to the blocks only when it is asked for."""
        if self.reply.text:
            block: TextContent = {"type": "text", "text": ""}
            self.content.append(block)
            for piece in _words(self.reply.text):
                block["text"] += piece
                yield self._event("text_delta", piece)
        for call in self.reply.calls:
            self.content.append({"type": "toolCall", "id": call["id"], "name": call["name"], "arguments": {}})
            yield self._event("toolcall_start")
            body = json.dumps(call["arguments"], ensure_ascii=False)
            for start in range(0, len(body), _ARGUMENT_CHUNK):
                yield self._event("toolcall_delta", body[start:start + _ARGUMENT_CHUNK])
            self.content[-1] = call
            yield self._event("toolcall_end")


class DemoModelClient:
    """A `ModelClient` that needs no network and no key; `delay` paces the stream (0 in tests)."""

    def __init__(self, delay: float = 0.01, tasks: tuple[Task, ...] = TASKS) -> None:
        self.delay = delay
        self.tasks = tasks
        self.next_hint = NEXT_TASK_HINT  # print mode has no next message to send: it says what to run

    async def stream(self, request: ModelRequest, signal: AbortSignal) -> AsyncIterator[StreamEvent]:
        reply = (branch_summary_reply(request) or compaction_reply(request)
                 or plan_reply(request.messages, self.tasks, self.next_hint))
        stream = _Stream(request, reply)
        yield StreamEvent("start", stream.message())
        events = stream.events()
        while True:
            await asyncio.sleep(self.delay)
            if signal.aborted:
                yield StreamEvent("error", stream.message("aborted", ABORTED_TEXT))
                return
            event = next(events, None)
            if event is None:
                break
            yield event
        yield StreamEvent("done", stream.message())
