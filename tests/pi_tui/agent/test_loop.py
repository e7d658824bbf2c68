"""The agent loop driven by the real litellm client against the local fake provider."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from condense.messages import ToolResultMessage
from pi_tui.agent.events import ContextOverflowEvent, EventBus, OverflowReply, ToolExecutionStartEvent
from pi_tui.agent.host import AgentHost, user_message
from pi_tui.agent.loop import SKIPPED_TEXT, Agent, AgentConfig, RetryPolicy
from pi_tui.ai.litellm_client import LiteLLMClient, warm_up
from pi_tui.ai.types import ModelSpec
from pi_tui.session.store import Session
from pi_tui.tools import make_tools
from tests.support.fake_openai import (
    FakeOpenAI,
    Reply,
    call,
    context_overflow,
    rate_limited,
    server_error,
    text_reply,
    tool_reply,
    usage,
)
from tests.support.typed import plain, present

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning"),
]


@pytest.fixture(scope="module", autouse=True)
def _litellm_imported() -> None:
    warm_up()  # seconds, once per module


class Recorder:
    """Collects every event in order, and the delays the loop asked to sleep."""

    def __init__(self, bus: EventBus) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.sleeps: list[float] = []
        for name in ("agent_start", "agent_end", "turn_start", "turn_end", "message_start", "message_end",
                     "tool_execution_start", "tool_execution_end", "auto_retry_start", "auto_retry_end"):
            bus.on(name, lambda e, n=name: self.events.append((n, e)))

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)

    def names(self, *only: str) -> list[str]:
        return [n for n, _ in self.events if not only or n in only]


def make_agent(server: FakeOpenAI, cwd: Path, bus: EventBus | None = None,
               retry: RetryPolicy | None = None) -> tuple[Agent, Recorder]:
    bus = bus or EventBus()
    recorder = Recorder(bus)
    model = ModelSpec(provider="openai", id="fake-model", base_url=server.base_url)
    config = AgentConfig(model=model, system_prompt="You are a test.", cwd=cwd, retry=retry or RetryPolicy())
    tools = make_tools(["read", "bash", "write", "ls"])
    return Agent(LiteLLMClient(), config, tools, bus, sleep=recorder.sleep), recorder


async def test_streamed_text_reply_ends_the_run(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(text_reply("Hello there, human.", usage=usage(50, 5, cached=20)))
    agent, rec = make_agent(fake_openai, tmp_path)
    added = plain(await agent.prompt([user_message("hi")]))
    assert [m["role"] for m in added] == ["user", "assistant"]
    reply = added[1]
    assert reply["content"][0]["text"] == "Hello there, human."
    assert reply["stopReason"] == "stop"
    assert reply["usage"]["cacheRead"] == 20 and reply["usage"]["input"] == 30
    assert rec.names() == ["agent_start", "turn_start", "message_start", "message_end", "message_start",
                           "message_end", "turn_end", "agent_end"]
    sent = fake_openai.requests[0]["messages"]
    assert sent[0] == {"role": "system", "content": "You are a test."}
    assert sent[1]["role"] == "user"


async def test_multi_call_tool_turn_runs_tools_and_feeds_results_back(fake_openai: FakeOpenAI,
                                                                      tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_openai.push(
        tool_reply(call("read", {"path": "a.txt"}, "c1"), call("bash", {"command": "echo beta"}, "c2"),
                   call("ls", {}, "c3")),
        text_reply("done"),
    )
    agent, rec = make_agent(fake_openai, tmp_path)
    added = plain(await agent.prompt([user_message("look")]))
    assert [m["role"] for m in added] == ["user", "assistant", "toolResult", "toolResult", "toolResult",
                                          "assistant"]
    results = added[2:5]
    assert [r["toolCallId"] for r in results] == ["c1", "c2", "c3"], "results in call order"
    assert results[0]["content"][0]["text"].strip() == "alpha"
    assert results[1]["content"][0]["text"].strip() == "beta"
    assert not any(r["isError"] for r in results)
    second = fake_openai.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool", "tool", "tool"]
    assert rec.names("tool_execution_start", "tool_execution_end", "turn_end") == [
        "tool_execution_start"] * 3 + ["tool_execution_end"] * 3 + ["turn_end", "turn_end"]
    turn_ends = [e for n, e in rec.events if n == "turn_end"]
    assert [e["turnIndex"] for e in turn_ends] == [0, 1]
    assert len(turn_ends[0]["toolResults"]) == 3


async def test_arguments_that_are_not_json_are_sent_back_as_written_and_the_model_is_told_why(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """Pi makes them `{}`: the model read "path: Field required" about a path it did write."""
    broken = '{"path": "notes.md", "content": "a "quoted" word"}'
    fake_openai.push(tool_reply(call("write", broken, "c1"), chunk_size=7), text_reply("sorry"),
                     text_reply("still here"))
    session = Session.create(tmp_path, tmp_path / "sessions")
    model = ModelSpec(provider="openai", id="fake-model", base_url=fake_openai.base_url)
    host = AgentHost(session, LiteLLMClient(), AgentConfig(model, "sys", tmp_path), make_tools(["write"]))
    await host.start()
    await host.prompt("write the notes")
    assert not (tmp_path / "notes.md").exists()
    _, assistant, tool = fake_openai.requests[1]["messages"][1:]
    assert assistant["tool_calls"][0]["function"] == {"name": "write", "arguments": broken}
    assert tool["content"] == ("The arguments of this write call were not valid JSON (Expecting ',' delimiter:"
                               " line 1 column 37 (char 36)): nothing ran. Call it again with the arguments as"
                               " one JSON object.")
    reopened = AgentHost(Session.open(present(session.path)), LiteLLMClient(),
                         AgentConfig(model, "sys", tmp_path), make_tools(["write"]))
    await reopened.start()
    await reopened.prompt("are you there?")
    assert fake_openai.requests[2]["messages"][2]["tool_calls"][0]["function"]["arguments"] == broken
    assert fake_openai.rejections == []


async def test_a_tool_result_holding_lone_surrogates_is_kept_as_u_fffd(fake_openai: FakeOpenAI,
                                                                         tmp_path: Path) -> None:
    """`edit` keeps a byte that is not UTF-8 as a lone surrogate so the file is written back unchanged; its
    diff must not carry one into the session, the screen or a request."""
    (tmp_path / "a.txt").write_bytes(b"x\xff y\n")
    fake_openai.push(tool_reply(call("edit", {"path": "a.txt", "oldText": "y", "newText": "z"}, "e1")),
                     text_reply("done"))
    agent, _ = make_agent(fake_openai, tmp_path)
    agent.tools.update({tool.name: tool for tool in make_tools(["edit"])})
    added = plain(await agent.prompt([user_message("edit it")]))
    assert (tmp_path / "a.txt").read_bytes() == b"x\xff z\n"
    assert "-x\ufffd y\n+x\ufffd z" in added[2]["details"]["diff"]


async def test_turn_index_is_session_wide(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(text_reply("one"), text_reply("two"))
    agent, rec = make_agent(fake_openai, tmp_path)
    await agent.prompt([user_message("a")])
    await agent.prompt([user_message("b")])
    assert [e["turnIndex"] for n, e in rec.events if n == "turn_end"] == [0, 1]


async def test_rate_limit_is_retried_after_what_the_provider_asked_then_with_backoff(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(rate_limited(), server_error(503), text_reply("finally"))  # Retry-After: 1, then nothing
    agent, rec = make_agent(fake_openai, tmp_path)
    added = plain(await agent.prompt([user_message("hi")]))
    assert added[-1]["stopReason"] == "stop"
    assert rec.sleeps == [1.0, 4.0]
    starts = [e for n, e in rec.events if n == "auto_retry_start"]
    assert [(e["attempt"], e["maxAttempts"], e["delayMs"]) for e in starts] == [(1, 3, 1000), (2, 3, 4000)]
    assert starts[0]["delayNote"] == "as the provider asked" and "delayNote" not in starts[1]
    assert ("auto_retry_end", {"type": "auto_retry_end", "success": True, "attempt": 2}) in rec.events
    # as in Pi, the retried attempts leave the conversation (the session file keeps them, see below)
    assert [m.get("stopReason") for m in added if m["role"] == "assistant"] == ["stop"]
    await asyncio.sleep(0)
    fake_openai.push(text_reply("again"))
    await agent.prompt([user_message("more")])
    assert [m["role"] for m in fake_openai.requests[-1]["messages"]] == ["system", "user", "assistant", "user"]


async def test_a_wait_the_provider_asks_for_is_capped_and_retry_after_ms_comes_first(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(rate_limited({"retry-after": "3600"}),
                     rate_limited({"retry-after-ms": "1500", "retry-after": "3600"}), text_reply("finally"))
    agent, rec = make_agent(fake_openai, tmp_path, retry=RetryPolicy(max_retry_after_ms=120_000))
    added = plain(await agent.prompt([user_message("hi")]))
    assert added[-1]["content"][0]["text"] == "finally"
    assert rec.sleeps == [120.0, 1.5]
    starts = [e for n, e in rec.events if n == "auto_retry_start"]
    assert [e["delayNote"] for e in starts] == [
        "the provider asked for 3600s, capped by retry.max_retry_after_ms", "as the provider asked"]


async def test_retries_give_up_after_three_attempts(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(*(server_error(500) for _ in range(4)))
    agent, rec = make_agent(fake_openai, tmp_path)
    added = plain(await agent.prompt([user_message("hi")]))
    assert added[-1]["stopReason"] == "error"
    assert rec.sleeps == [2.0, 4.0, 8.0]
    assert rec.events[-2][0] == "turn_end" and rec.events[-1][0] == "agent_end"
    assert any(n == "auto_retry_end" and not e["success"] for n, e in rec.events)


async def test_cut_stream_is_retried_and_recovers(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(Reply(text="this stream will be cut short", cut_after=3), text_reply("whole reply"))
    agent, rec = make_agent(fake_openai, tmp_path)
    added = plain(await agent.prompt([user_message("hi")]))
    assert added[-1]["content"][0]["text"] == "whole reply"
    assert len(rec.sleeps) == 1


async def test_abort_mid_stream_ends_with_aborted_message(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(Reply(text="a slow and long answer " * 20, chunk_size=2, delay=0.05))
    agent, rec = make_agent(fake_openai, tmp_path)
    first_delta = asyncio.Event()
    agent.bus.on("message_update", lambda e: first_delta.set())
    run = asyncio.create_task(agent.prompt([user_message("hi")]))
    await asyncio.wait_for(first_delta.wait(), 20)
    agent.abort()
    added = plain(await asyncio.wait_for(run, 20))
    assert added[-1]["stopReason"] == "aborted"
    assert rec.names()[-2:] == ["turn_end", "agent_end"]


async def test_abort_during_a_tool_leaves_every_call_answered(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(tool_reply(call("bash", {"command": "echo running; sleep 30"}, "c1")))
    agent, _ = make_agent(fake_openai, tmp_path)
    running = asyncio.Event()  # the shell printed: the command is under way, not still starting
    agent.bus.on("tool_execution_update", lambda e: running.set())
    run = asyncio.create_task(agent.prompt([user_message("wait")]))
    await asyncio.wait_for(running.wait(), 60)
    agent.abort()
    added = plain(await asyncio.wait_for(run, 20))
    assert [m["role"] for m in added] == ["user", "assistant", "toolResult", "assistant"]
    assert added[2]["isError"] and "Command aborted" in added[2]["content"][0]["text"]
    assert added[3]["stopReason"] == "aborted"
    assert len(fake_openai.requests) == 1, "no request after the abort"


async def test_rejected_request_is_an_error_not_a_retry(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    agent, rec = make_agent(fake_openai, tmp_path)
    # a tool result whose call is missing: the provider transform drops it, so the request is valid
    orphan: ToolResultMessage = {"role": "toolResult", "toolCallId": "ghost", "toolName": "bash",
              "content": [{"type": "text", "text": "x"}], "isError": False, "timestamp": 1}
    agent.messages.append(orphan)
    fake_openai.push(text_reply("fine"))
    added = plain(await agent.prompt([user_message("hi")]))
    assert added[-1]["stopReason"] == "stop"
    assert all(m["role"] != "tool" for m in fake_openai.requests[0]["messages"])
    # a request the server refuses (its own validation) ends the run with a clear error, no retry
    fake_openai.push(Reply(status=400, error={"error": {"message": "Invalid 'messages': bad shape",
                                                        "type": "invalid_request_error"}}))
    added = plain(await agent.prompt([user_message("again")]))
    assert added[-1]["stopReason"] == "error"
    assert "bad shape" in added[-1]["errorMessage"]
    assert rec.sleeps == []


async def test_context_overflow_is_reported_and_offered_to_extensions(fake_openai: FakeOpenAI,
                                                                      tmp_path: Path) -> None:
    fake_openai.push(context_overflow(), text_reply("smaller now"))
    bus = EventBus()
    seen: list[str] = []

    def shrink(event: ContextOverflowEvent) -> OverflowReply:
        seen.append(event["message"]["errorMessage"])
        return {"retry": True}

    bus.on("context_overflow", shrink)
    agent, rec = make_agent(fake_openai, tmp_path, bus)
    added = plain(await agent.prompt([user_message("hi")]))
    assert len(seen) == 1 and "context" in seen[0].lower()
    assert added[-1]["content"][0]["text"] == "smaller now"
    assert rec.sleeps == []


async def test_overflow_without_a_handler_stops_with_the_error(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(context_overflow())
    agent, _ = make_agent(fake_openai, tmp_path)
    added = plain(await agent.prompt([user_message("hi")]))
    assert added[-1]["stopReason"] == "error"
    assert len(fake_openai.requests) == 1


async def test_steering_skips_remaining_calls_and_is_delivered_after_the_batch(fake_openai: FakeOpenAI,
                                                                              tmp_path: Path) -> None:
    fake_openai.push(
        tool_reply(call("bash", {"command": "echo one"}, "c1"), call("bash", {"command": "echo two"}, "c2")),
        text_reply("ok, switching"),
    )
    agent, _ = make_agent(fake_openai, tmp_path)

    def steer_on_first(event: ToolExecutionStartEvent) -> None:
        if event["toolCallId"] == "c1":
            agent.steer(user_message("stop, do something else"))

    agent.bus.on("tool_execution_start", steer_on_first)
    added = plain(await agent.prompt([user_message("go")]))
    roles = [m["role"] for m in added]
    assert roles == ["user", "assistant", "toolResult", "toolResult", "user", "assistant"]
    assert added[3]["isError"] and added[3]["content"][0]["text"] == SKIPPED_TEXT
    assert added[4]["content"][0]["text"] == "stop, do something else"


async def test_follow_up_runs_when_the_agent_would_stop(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(text_reply("first"), text_reply("second"))
    agent, _ = make_agent(fake_openai, tmp_path)
    agent.follow_up(user_message("and then this"))
    added = plain(await agent.prompt([user_message("start")]))
    assert [m["role"] for m in added] == ["user", "assistant", "user", "assistant"]
    assert added[-1]["content"][0]["text"] == "second"


async def test_tool_call_handlers_can_block_and_result_handlers_can_patch(fake_openai: FakeOpenAI,
                                                                          tmp_path: Path) -> None:
    fake_openai.push(
        tool_reply(call("bash", {"command": "rm -rf /tmp/x"}, "c1"), call("bash", {"command": "echo hi"}, "c2"),
                   call("nosuch", {}, "c3"), call("read", {"wrong": 1}, "c4")),
        text_reply("ok"),
    )
    agent, _ = make_agent(fake_openai, tmp_path)
    agent.bus.on("tool_call", lambda e: {"block": True, "reason": "no deleting"}
                 if "rm" in e["input"].get("command", "") else None)
    agent.bus.on("tool_result", lambda e: {"content": [{"type": "text", "text": "patched"}]})
    added = plain(await agent.prompt([user_message("go")]))
    results = {m["toolCallId"]: m for m in added if m["role"] == "toolResult"}
    assert results["c1"]["isError"] and results["c1"]["content"][0]["text"] == "no deleting"
    assert results["c2"]["content"][0]["text"] == "patched"
    assert results["c3"]["isError"] and "not found" in results["c3"]["content"][0]["text"]
    assert results["c4"]["isError"] and "Validation failed" in results["c4"]["content"][0]["text"]


async def test_context_handlers_chain_and_do_not_change_the_conversation(fake_openai: FakeOpenAI,
                                                                         tmp_path: Path) -> None:
    fake_openai.push(text_reply("a"), text_reply("b"))
    agent, _ = make_agent(fake_openai, tmp_path)
    agent.bus.on("context", lambda e: [*e["messages"], user_message("extra one")])
    agent.bus.on("context", lambda e: {"messages": [*e["messages"], user_message("extra two")]})
    await agent.prompt([user_message("q")])
    sent = [m["content"] for m in fake_openai.requests[0]["messages"][1:]]
    assert [c[0]["text"] if isinstance(c, list) else c for c in sent] == ["q", "extra one", "extra two"]
    assert len(agent.messages) == 2


async def test_host_persists_each_message_before_extensions_see_it(fake_openai: FakeOpenAI,
                                                                   tmp_path: Path) -> None:
    fake_openai.push(tool_reply(call("ls", {}, "c1")), text_reply("listed"))
    session = Session.create(tmp_path, tmp_path / "sessions")
    model = ModelSpec(provider="openai", id="fake-model", base_url=fake_openai.base_url)
    host = AgentHost(session, LiteLLMClient(), AgentConfig(model, "sys", tmp_path), make_tools(["ls"]))
    on_disk: list[int] = []
    host.bus.on("message_end", lambda e: on_disk.append(len(session.entries)))
    await host.start()
    await host.prompt("list files")
    assert on_disk == [1, 2, 3, 4]
    reloaded = Session.open(present(session.path))
    assert reloaded.messages() == host.agent.messages
    assert host.context_usage().tokens is not None


async def test_custom_message_when_idle_enters_context_without_a_turn(fake_openai: FakeOpenAI,
                                                                      tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path / "sessions")
    model = ModelSpec(provider="openai", id="fake-model", base_url=fake_openai.base_url)
    host = AgentHost(session, LiteLLMClient(), AgentConfig(model, "sys", tmp_path), [])
    await host.send_message("context-prune-summary", "a summary", display=False, details={"k": 1})
    assert fake_openai.requests == []
    assert host.agent.messages[-1]["role"] == "custom"
    assert session.entries[-1]["type"] == "custom_message"
    fake_openai.push(text_reply("seen"))
    await host.prompt("next")
    texts = [m["content"] for m in fake_openai.requests[0]["messages"][1:]]
    assert texts[0] == [{"type": "text", "text": "a summary"}] or texts[0] == "a summary"


async def test_a_message_an_extension_inserts_with_a_lone_surrogate_is_sent_as_u_fffd(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path / "sessions")
    model = ModelSpec(provider="openai", id="fake-model", base_url=fake_openai.base_url)
    host = AgentHost(session, LiteLLMClient(), AgentConfig(model, "sys", tmp_path), [])
    await host.send_message("note", "half an emoji \ud83d", display=True)
    fake_openai.push(text_reply("seen"))
    await host.prompt("next")
    assert fake_openai.requests[0]["messages"][1]["content"] == [{"type": "text", "text": "half an emoji \ufffd"}]


async def test_retried_failures_stay_in_the_session_file_but_leave_the_conversation(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(*(server_error(500) for _ in range(4)))
    session = Session.create(tmp_path, tmp_path / "sessions")
    model = ModelSpec(provider="openai", id="fake-model", base_url=fake_openai.base_url)
    config = AgentConfig(model, "sys", tmp_path, retry=RetryPolicy(base_delay_ms=1))
    host = AgentHost(session, LiteLLMClient(), config, [])
    await host.prompt("hi")
    assert [m.get("stopReason") for m in host.agent.messages if m["role"] == "assistant"] == ["error"]
    on_disk = [m.get("stopReason") for m in Session.open(present(session.path)).messages() if m["role"] == "assistant"]
    assert on_disk == ["error"] * 4, "every attempt is kept as history in the file"
