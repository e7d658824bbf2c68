"""The offline demo, played end to end with the real tools on a copy of the sample project.

The agent loop is reduced here to what the demo needs (stream a reply, run its calls with the real
tools, append the results, repeat until a text reply), so these tests check the script against real
files: every edit must apply, every comment on a result must be about what really happened.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from condense.messages import AssistantMessage, ToolCall, ToolResultMessage, content_text, tool_calls
from pi_tui.abort import AbortSignal
from pi_tui.ai.models import DEMO_MODEL
from pi_tui.ai.types import ModelRequest, StreamEvent, ToolSpec
from pi_tui.demo.client import DemoModelClient, locate
from pi_tui.demo.project import KEEP_COPIES, MARKER, SAMPLE_PROJECT, mark_used, prepare_demo_project
from pi_tui.demo.script import TASKS, TAX_BEFORE
from pi_tui.tools import make_tools
from pi_tui.tools.base import ToolContext, ToolError
from tests.support.typed import text_at

TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "find", "ls"]
TOTAL = len(TASKS)
FAILING_TEST = "test_tax_is_charged_after_the_discount"
SKIPPED = "Skipped due to queued user message."

Rewrite = Callable[[list[Any]], list[Any]]


def user(text: str, timestamp: int) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": timestamp}


def unittest_in(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "unittest"], cwd=folder, capture_output=True, text=True,
                          timeout=120)


@dataclass
class Played:
    """One tool call as it was sent and answered, with the task it belongs to."""

    task: int
    call: ToolCall
    result: ToolResultMessage

    @property
    def text(self) -> str:
        return content_text(self.result["content"])


@dataclass
class Driver:
    """Feeds requests to the demo and runs its calls, like the agent loop would (calls in parallel)."""

    project: Path
    rewrite: Rewrite = list  # what the pruning engine would do to the history before each request
    messages: list[Any] = field(default_factory=list)
    played: list[Played] = field(default_factory=list)
    replies: list[AssistantMessage] = field(default_factory=list)
    clock: int = 1_700_000_000_000

    def __post_init__(self) -> None:
        self.tools = {tool.name: tool for tool in make_tools(TOOL_NAMES)}
        self.specs = [ToolSpec(t.name, t.description, t.schema()) for t in self.tools.values()]
        self.client = DemoModelClient(delay=0)

    def tick(self) -> int:
        self.clock += 1
        return self.clock

    def request(self) -> ModelRequest:
        return ModelRequest(DEMO_MODEL, "You are the test harness.", self.rewrite(self.messages), self.specs)

    async def reply(self) -> AssistantMessage:
        events = [event async for event in self.client.stream(self.request(), AbortSignal())]
        assert events[-1].type == "done"
        message = events[-1].message
        self.messages.append(message)
        self.replies.append(message)
        return message

    async def run_call(self, task: int, call: ToolCall) -> ToolResultMessage:
        tool = self.tools[call["name"]]
        try:
            params = tool.Params.model_validate(call["arguments"])
            output = await tool.run(params, ToolContext(cwd=self.project))
            content, is_error = output.content, False
        except ToolError as error:
            content, is_error = [{"type": "text", "text": str(error)}], True
        result: ToolResultMessage = {"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                                     "content": content, "isError": is_error, "timestamp": self.tick()}
        self.played.append(Played(task, call, result))
        return result

    async def run_calls(self, task: int, message: AssistantMessage) -> None:
        results = await asyncio.gather(*(self.run_call(task, call) for call in tool_calls(message)))
        self.messages.extend(results)

    async def play_task(self, task: int, prompt: str) -> list[AssistantMessage]:
        """Send a prompt and answer tool calls until the demo replies with text only."""
        self.messages.append(user(prompt, self.tick()))
        turns: list[AssistantMessage] = []
        for _ in range(20):
            message = await self.reply()
            turns.append(message)
            if not tool_calls(message):
                return turns
            await self.run_calls(task, message)
        raise AssertionError(f"task {task} never reached its summary")


@dataclass
class Session:
    driver: Driver
    turns: dict[int, list[AssistantMessage]]
    tests_after_task_1: subprocess.CompletedProcess[str]
    tests_at_end: subprocess.CompletedProcess[str]
    epilogue: list[AssistantMessage]

    @property
    def played(self) -> list[Played]:
        return self.driver.played


def play_everything(root: Path, rewrite: Rewrite = list) -> Session:
    driver = Driver(prepare_demo_project(root), rewrite)

    async def go() -> Session:
        turns = {1: await driver.play_task(1, "hi")}
        after_first = unittest_in(driver.project)
        for task in range(2, TOTAL + 1):
            turns[task] = await driver.play_task(task, f"prompt number {task}, worded any way at all")
        epilogue = [*await driver.play_task(TOTAL + 1, "what next?"),
                    *await driver.play_task(TOTAL + 2, "and now?")]
        return Session(driver, turns, after_first, unittest_in(driver.project), epilogue)

    return asyncio.run(go())


def transcript(session: Session) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """Everything the demo said and asked for, without timestamps or tool output."""
    return [(content_text(m["content"]), [(c["id"], c["name"], json.dumps(c["arguments"], sort_keys=True))
                                          for c in tool_calls(m)])
            for m in session.driver.replies]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    return play_everything(tmp_path_factory.mktemp("demo"))


# ----- the sample project --------------------------------------------------------------------------


def test_the_copy_is_fresh_and_starts_with_one_real_failure(tmp_path: Path) -> None:
    first, second = prepare_demo_project(tmp_path), prepare_demo_project(tmp_path)
    assert first != second and first.parent.parent == second.parent.parent == tmp_path
    for name in ("README.md", "AGENTS.md", "skills/release-notes/SKILL.md", "tools/gen_report.py", "tests"):
        assert (first / name).exists(), name
    run = unittest_in(first)
    assert run.returncode == 1
    assert f"FAIL: {FAILING_TEST}" in run.stderr and "failures=1" in run.stderr


def test_demo_model_spec() -> None:
    assert (DEMO_MODEL.provider, DEMO_MODEL.id, DEMO_MODEL.api) == ("demo", "demo", "demo")
    assert (DEMO_MODEL.context_window, DEMO_MODEL.max_tokens) == (200_000, 16_384)


# ----- a full session ---------------------------------------------------------------------------


def test_every_task_announces_itself_works_with_tools_and_ends_with_a_summary(session: Session) -> None:
    assert len(TASKS) >= 5
    for number in range(1, TOTAL + 1):
        turns = session.turns[number]
        assert content_text(turns[0]["content"]).startswith(f"Demo task {number}/{TOTAL}: ")
        assert len(turns) >= 4 and all(m["stopReason"] == "toolUse" for m in turns[:-1])
        assert turns[-1]["stopReason"] == "stop" and not tool_calls(turns[-1])
        assert f"(demo task {number}/{TOTAL} done)" in content_text(turns[-1]["content"])
    widths = [len(tool_calls(m)) for turns in session.turns.values() for m in turns]
    assert max(widths) == 3 and widths.count(2) >= 3


def test_task_one_fixes_the_failing_test_and_the_session_ends_green(session: Session) -> None:
    assert session.tests_after_task_1.returncode == 0, session.tests_after_task_1.stderr
    assert "Ran 14 tests" in session.tests_after_task_1.stderr
    assert session.tests_at_end.returncode == 0, session.tests_at_end.stderr
    first_run = next(p for p in session.played if p.call["name"] == "bash")
    assert first_run.result["isError"] and FAILING_TEST in first_run.text
    assert TAX_BEFORE in (SAMPLE_PROJECT / "invoicer/pricing.py").read_text(), "the original stays untouched"


def test_only_the_scripted_failures_fail(session: Session) -> None:
    failed = [(p.call["name"], p.call["arguments"].get("command"))
              for p in session.played if p.result["isError"]]
    assert failed == [
        ("bash", "python3 -m unittest"),
        ("edit", None),
        ("bash", "python3 tools/gen_report.py --month march"),
    ]
    march = next(p for p in session.played if "--month march" in json.dumps(p.call))
    assert "exited with code 2" in march.text


def test_a_command_prints_more_than_40_kb(session: Session) -> None:
    sizes = [len(p.text.encode()) for p in session.played if p.call["name"] == "bash"]
    assert max(sizes) >= 40 * 1024


def test_a_long_edit_fails_and_a_smaller_one_on_the_same_file_succeeds(session: Session) -> None:
    edits = [p for p in session.played if p.call["name"] == "edit"]
    position, failed = next((i, p) for i, p in enumerate(edits) if p.result["isError"])
    assert len(failed.call["arguments"]["oldText"]) > 1000 and "Could not find" in failed.text
    retry = edits[position + 1]
    assert retry.call["arguments"]["path"] == failed.call["arguments"]["path"]
    assert not retry.result["isError"]
    assert len(retry.call["arguments"]["oldText"]) < len(failed.call["arguments"]["oldText"]) // 10


def test_an_unchanged_file_is_read_in_two_tasks(session: Session) -> None:
    by_path: dict[str, list[Played]] = {}
    for p in session.played:
        if p.call["name"] == "read" and not p.result["isError"]:
            by_path.setdefault(p.call["arguments"]["path"], []).append(p)
    assert any(len({p.task for p in reads}) >= 2 and len({p.text for p in reads}) == 1
               for reads in by_path.values())
    assert "skills/release-notes/SKILL.md" in by_path


def test_new_files_are_written_and_every_search_tool_is_used(session: Session) -> None:
    writes = [p.call["arguments"]["path"] for p in session.played if p.call["name"] == "write"]
    assert writes and not any((SAMPLE_PROJECT / path).exists() for path in writes)
    assert all((session.driver.project / path).is_file() for path in writes)
    used = {p.call["name"] for p in session.played}
    assert {"ls", "grep", "find"} <= used


def test_after_the_last_task_the_demo_says_how_to_use_a_real_model(session: Session) -> None:
    for message in session.epilogue:
        text = content_text(message["content"])
        assert message["stopReason"] == "stop" and not tool_calls(message)
        assert "pi-tui --model anthropic/claude-sonnet-4-5" in text and "ANTHROPIC_API_KEY" in text
        assert "done)" not in text


def test_two_runs_are_identical(session: Session, tmp_path: Path) -> None:
    assert transcript(play_everything(tmp_path)) == transcript(session)


# ----- progress is read from whatever survives of the history -------------------------------------


def purge_errored_args(message: dict[str, Any], errored: set[str]) -> dict[str, Any]:
    if not any(c["id"] in errored for c in tool_calls(message)):
        return message

    def purged(block: dict[str, Any]) -> dict[str, Any]:
        args = {key: f'<purged-errored-args size="{len(text)}"/>' for key, text in block["arguments"].items()}
        return dict(block, arguments=args)

    content = [purged(b) if b.get("id") in errored else b for b in message["content"]]
    return dict(message, content=content)


def prune_like_condense(messages: list[Any]) -> list[Any]:
    """Compress every closed chain to its prompt, a synthetic summary and its final reply; stub the open
    chain's older tool results and purge its errored arguments. The demo must still know where it is."""
    errored = {m["toolCallId"] for m in messages if m["role"] == "toolResult" and m["isError"]}
    messages = [purge_errored_args(m, errored) if m["role"] == "assistant" else m for m in messages]
    out: list[Any] = []
    chain: list[Any] = []
    for message in messages:
        chain.append(message)
        if message["role"] == "assistant" and not tool_calls(message) and chain[0]["role"] == "user":
            synthetic = user('<compressed-chain id="b1" tools="t1,t2">work was done</compressed-chain>', 0)
            out.extend([chain[0], synthetic, message])
            chain = []
    last_turn = [m for m in chain if m["role"] == "assistant"][-1:]
    last_calls = {c["id"] for m in last_turn for c in tool_calls(m)}
    for message in chain:
        if message["role"] == "toolResult" and message["toolCallId"] not in last_calls:
            message = dict(message, content=[{"type": "text", "text": "[Summarized, ref `t1`.]"}])
        out.append(message)
    return out


def test_progress_survives_compressed_chains_and_stubbed_results(session: Session, tmp_path: Path) -> None:
    pruned = play_everything(tmp_path, prune_like_condense)
    assert transcript(pruned) == transcript(session)


async def test_a_steering_message_mid_task_does_not_break_the_script(tmp_path: Path) -> None:
    driver = Driver(prepare_demo_project(tmp_path))
    driver.messages.append(user("fix the tests", driver.tick()))
    await driver.run_calls(1, await driver.reply())
    driver.messages.append(user("wait, also make it faster", driver.tick()))
    message = await driver.reply()
    assert [c["id"] for c in tool_calls(message)] == ["demo_t1_s2_0"]
    assert "fixed script" in content_text(message["content"])


async def test_a_step_whose_calls_were_skipped_by_steering_is_replayed(tmp_path: Path) -> None:
    driver = Driver(prepare_demo_project(tmp_path))
    driver.messages.append(user("go", driver.tick()))
    first = await driver.reply()
    for call in tool_calls(first):
        driver.messages.append({"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                                "content": [{"type": "text", "text": SKIPPED}], "isError": True,
                                "timestamp": driver.tick()})
    driver.messages.append(user("look at the README first", driver.tick()))
    again = await driver.reply()
    assert [c["id"] for c in tool_calls(again)] == ["demo_t1_s1r2_0", "demo_t1_s1r2_1"]
    assert [c["arguments"] for c in tool_calls(again)] == [c["arguments"] for c in tool_calls(first)]
    assert "fixed script" in content_text(again["content"])
    await driver.run_calls(1, again)
    assert [c["id"] for c in tool_calls(await driver.reply())] == ["demo_t1_s2_0"]


def test_an_aborted_turn_is_played_again() -> None:
    aborted = {"role": "assistant", "stopReason": "aborted", "content": [
        {"type": "toolCall", "id": "demo_t1_s1_0", "name": "ls", "arguments": {}}]}
    position = locate([user("hi", 1), aborted, user("try again", 2)])
    assert (position.task, position.step, position.attempt) == (1, 1, 1)


# ----- the stream itself ---------------------------------------------------------------------------


async def collect(client: DemoModelClient, request: ModelRequest, signal: AbortSignal,
                  abort_after: int | None = None) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    async for event in client.stream(request, signal):
        events.append(event)
        if abort_after is not None and len(events) == abort_after:
            signal.abort()
    return events


def demo_request(messages: list[Any]) -> ModelRequest:
    return ModelRequest(DEMO_MODEL, "system prompt " * 50, messages)


async def test_a_tool_turn_streams_like_a_provider() -> None:
    request = demo_request([user("hello", 1)])
    events = await collect(DemoModelClient(delay=0), request, AbortSignal())
    kinds = [e.type for e in events]
    assert kinds[0] == "start" and kinds[-1] == "done" and kinds.count("text_delta") > 5
    final = events[-1].message
    text = content_text(final["content"])
    assert "".join(e.delta for e in events if e.type == "text_delta") == text
    calls = tool_calls(final)
    assert kinds.count("toolcall_start") == kinds.count("toolcall_end") == len(calls) == 2
    for index, call in enumerate(calls, start=1):
        deltas = [e.delta for e in events if e.type == "toolcall_delta" and e.content_index == index]
        assert json.loads("".join(deltas)) == call["arguments"]
    assert text_at(events[1].message["content"]) == events[1].delta, "each event carries its own snapshot"
    assert (final["api"], final["provider"], final["model"], final["stopReason"]) == ("demo", "demo", "demo",
                                                                                      "toolUse")
    usage = final["usage"]
    assert usage["input"] >= len(request.system_prompt) // 4 and usage["output"] > len(text) // 4 - 1
    assert usage["totalTokens"] == usage["input"] + usage["output"] and usage["cost"]["total"] == 0
    assert final["timestamp"] > 1_000_000_000_000


async def test_abort_stops_the_stream_with_an_aborted_message() -> None:
    signal = AbortSignal()
    events = await collect(DemoModelClient(delay=0), demo_request([user("hello", 1)]), signal, abort_after=4)
    assert len(events) == 5
    last = events[-1]
    assert last.type == "error" and last.message["stopReason"] == "aborted" and last.message["errorMessage"]
    assert content_text(last.message["content"]) == "".join(e.delta for e in events)


async def test_abort_before_the_first_word() -> None:
    signal = AbortSignal()
    signal.abort()
    events = await collect(DemoModelClient(delay=0), demo_request([]), signal)
    assert [e.type for e in events] == ["start", "error"]
    assert events[-1].message["stopReason"] == "aborted"


def test_old_demo_copies_are_removed_keeping_the_recently_used_ones(tmp_path: Path) -> None:
    """Every demo run makes a copy; a machine that runs it daily keeps only the newest few, and a copy a
    resumed session works in counts as new. Folders that are not the demo's own are never touched."""
    stranger = tmp_path / "pi-tui-demo-not-ours"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("mine", encoding="utf-8")
    copies = []
    for age in range(KEEP_COPIES + 3):
        copies.append(prepare_demo_project(tmp_path))
        stamp = 1_700_000_000 + age
        os.utime(copies[-1].parent / MARKER, (stamp, stamp))
    left = {m.parent for m in tmp_path.glob(f"pi-tui-demo-*/{MARKER}")}
    assert left == {copy.parent for copy in copies[3:]}, "the three oldest went, the newest stayed"
    mark_used(copies[3])  # the oldest left, but a session came back to it
    prepare_demo_project(tmp_path)
    left = {m.parent for m in tmp_path.glob(f"pi-tui-demo-*/{MARKER}")}
    assert len(left) == KEEP_COPIES and copies[3].parent in left and not copies[4].parent.exists()
    assert (stranger / "notes.txt").read_text(encoding="utf-8") == "mine"
