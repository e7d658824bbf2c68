"""LiteLLMClient through the real litellm HTTP path against the local fake OpenAI server."""

from __future__ import annotations

import asyncio
import json
import math
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import pytest

from condense.messages import AssistantMessage, ToolResultMessage, empty_usage
from pi_tui.abort import AbortSignal
from pi_tui.ai.errors import classify_error_text, is_context_overflow
from pi_tui.ai.litellm_client import (
    MOST_TOKENS,
    PLACEHOLDER_KEY,
    LiteLLMClient,
    _ReplyBuilder,
    completion_kwargs,
    usage_from,
    warm_up,
)
from pi_tui.ai.model_map import bundled_map, chat_models, model_facts
from pi_tui.ai.models import parse_model_ref
from pi_tui.ai.types import ModelRequest, ModelSpec, StreamEvent, ToolSpec
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

# litellm's own response helpers trip a pydantic deprecation warning on every chunk; not ours to fix.
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning:litellm"),
    pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning"),
]

SAFETY_TIMEOUT = 20  # a net for hangs, not a performance assertion
READ = ToolSpec(name="read", description="Read a file",
                parameters={"type": "object", "properties": {"path": {"type": "string"}}})


@pytest.fixture(scope="module")
def litellm() -> Any:
    """litellm takes seconds to import: once per module, not per test."""
    warm_up()
    import litellm

    return litellm


@pytest.fixture
def server(fake_openai: FakeOpenAI, litellm: Any) -> FakeOpenAI:
    return fake_openai


def spec_for(server: FakeOpenAI) -> ModelSpec:
    return ModelSpec(provider="openai", id="fake-model", base_url=server.base_url)


def request_for(server: FakeOpenAI, messages: list[Any] | None = None, **fields: Any) -> ModelRequest:
    messages = messages or [{"role": "user", "content": "hello", "timestamp": 1}]
    return ModelRequest(model=spec_for(server), system_prompt="You are terse.", messages=messages, **fields)


async def collect(request: ModelRequest, signal: AbortSignal | None = None) -> list[StreamEvent]:
    async def run() -> list[StreamEvent]:
        return [event async for event in LiteLLMClient().stream(request, signal or AbortSignal())]

    return await asyncio.wait_for(run(), SAFETY_TIMEOUT)


def final(events: list[StreamEvent]) -> AssistantMessage:
    assert events[-1].type in ("done", "error")
    return events[-1].message


async def test_streamed_text(server: FakeOpenAI) -> None:
    server.push(text_reply("Hello there, world!", chunk_size=5))
    events = await collect(request_for(server))
    assert [e.type for e in events] == ["start"] + ["text_delta"] * 4 + ["done"]
    assert "".join(e.delta for e in events if e.type == "text_delta") == "Hello there, world!"
    message = final(events)
    assert message["content"] == [{"type": "text", "text": "Hello there, world!"}]
    assert message["api"] == "openai-completions"
    assert (message["provider"], message["model"]) == ("openai", "fake-model")
    assert message["stopReason"] == "stop"
    assert "errorMessage" not in message
    body = server.requests[0]
    assert body["model"] == "fake-model"
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "hello"},
    ]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


async def test_reasoning_content_becomes_a_thinking_block(server: FakeOpenAI) -> None:
    server.push(text_reply("Yes.", reasoning="Let me think."))
    events = await collect(request_for(server))
    assert "".join(e.delta for e in events if e.type == "thinking_delta") == "Let me think."
    assert final(events)["content"] == [{"type": "thinking", "thinking": "Let me think."},
                                        {"type": "text", "text": "Yes."}]


async def test_a_turn_with_several_tool_calls(server: FakeOpenAI) -> None:
    calls = [call("read", {"path": "src/app.py"}, "call_a"), call("ls", {"path": "."}, "call_b")]
    server.push(tool_reply(*calls, text="Looking.", chunk_size=3))
    events = await collect(request_for(server, tools=[READ]))
    message = final(events)
    assert message["stopReason"] == "toolUse"
    assert message["content"] == [
        {"type": "text", "text": "Looking."},
        {"type": "toolCall", "id": "call_a", "name": "read", "arguments": {"path": "src/app.py"}},
        {"type": "toolCall", "id": "call_b", "name": "ls", "arguments": {"path": "."}},
    ]
    tool_events = [(e.type, e.content_index) for e in events if e.type.startswith("toolcall")]
    assert tool_events[0] == ("toolcall_start", 1)
    assert tool_events.index(("toolcall_end", 1)) < tool_events.index(("toolcall_start", 2))
    assert tool_events[-1] == ("toolcall_end", 2)
    fragments = "".join(e.delta for e in events if e.type == "toolcall_delta" and e.content_index == 1)
    assert fragments == '{"path": "src/app.py"}'
    assert server.requests[0]["tools"][0]["function"]["name"] == "read"


async def test_a_tool_round_trip_is_accepted_by_the_strict_server(server: FakeOpenAI) -> None:
    server.push(tool_reply(call("read", {"path": "a.py"}, "call_a")), text_reply("Done."))
    history: list[Any] = [{"role": "user", "content": "read a.py", "timestamp": 1}]
    history.append(final(await collect(request_for(server, history, tools=[READ]))))
    history.append({"role": "toolResult", "toolCallId": "call_a", "toolName": "read",
                    "content": [{"type": "text", "text": "print('hi')"}], "isError": False, "timestamp": 3})
    assert final(await collect(request_for(server, history, tools=[READ])))["stopReason"] == "stop"
    sent = server.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[2]["tool_calls"][0]["function"] == {"name": "read", "arguments": '{"path": "a.py"}'}
    assert sent[3] == {"role": "tool", "tool_call_id": "call_a", "content": "print('hi')"}
    assert server.rejections == []


async def test_arguments_that_are_no_json_object_become_an_empty_object_beside_the_model_s_text(
        server: FakeOpenAI) -> None:
    server.push(tool_reply(call("read", '{"path": "a.py"', "call_a"), call("ls", "[1, 2]", "call_b"),
                           call("ls", "", "call_c"), chunk_size=4))
    message = final(await collect(request_for(server, tools=[READ])))
    assert message["content"] == [
        {"type": "toolCall", "id": "call_a", "name": "read", "arguments": {}, "rawArguments": '{"path": "a.py"'},
        {"type": "toolCall", "id": "call_b", "name": "ls", "arguments": {}, "rawArguments": "[1, 2]"},
        {"type": "toolCall", "id": "call_c", "name": "ls", "arguments": {}}]


async def test_usage_with_cached_tokens_uses_pi_semantics(server: FakeOpenAI) -> None:
    server.push(text_reply("ok", usage=usage(1000, 50, cached=600, reasoning=10)))
    message = final(await collect(request_for(server)))
    assert message["usage"] == {
        "input": 400, "output": 50, "cacheRead": 600, "cacheWrite": 0, "totalTokens": 1050,
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0},
    }


@pytest.mark.parametrize(("prompt", "counted"), [(10**400, MOST_TOKENS), (-5, 0), (10**30, MOST_TOKENS)])
async def test_absurd_token_counts_are_clamped_never_a_crash(server: FakeOpenAI, prompt: int, counted: int) -> None:
    server.push(Reply(text="hi", usage={"prompt_tokens": prompt, "completion_tokens": 5, "total_tokens": 5}))
    request = ModelRequest(model=parse_model_ref("openai/gpt-4o-mini", server.base_url), system_prompt="s",
                           messages=[{"role": "user", "content": "hi", "timestamp": 1}])
    message = final(await collect(request))
    assert (message["stopReason"], message["usage"]["input"], message["usage"]["output"]) == ("stop", counted, 5)
    assert math.isfinite(message["usage"]["cost"]["total"])


def test_cost_per_part_comes_from_litellms_price_map(litellm: Any) -> None:
    spec = parse_model_ref("anthropic/claude-sonnet-4-5")
    raw = {"prompt_tokens": 7512, "completion_tokens": 40, "cache_read_input_tokens": 6000,
           "cache_creation_input_tokens": 1500}
    result = usage_from(raw, spec)
    info = litellm.get_model_info("anthropic/claude-sonnet-4-5")
    keys = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
    counts = tuple(result[k] for k in keys)  # type: ignore[literal-required]
    assert counts == (12, 40, 6000, 1500, 7552)
    cost = result["cost"]
    assert cost["input"] == pytest.approx(12 * info["input_cost_per_token"])
    assert cost["output"] == pytest.approx(40 * info["output_cost_per_token"])
    assert cost["cacheRead"] == pytest.approx(6000 * info["cache_read_input_token_cost"])
    assert cost["cacheWrite"] == pytest.approx(1500 * info["cache_creation_input_token_cost"])
    parts = ("input", "output", "cacheRead", "cacheWrite")
    assert cost["total"] == pytest.approx(sum(cost[p] for p in parts))  # type: ignore[literal-required]
    assert cost["total"] > 0


async def test_429_is_a_transient_error_and_the_next_request_succeeds(server: FakeOpenAI) -> None:
    server.push(rate_limited(), text_reply("fine now"))
    events = await collect(request_for(server))
    assert [e.type for e in events] == ["error"]
    message = final(events)
    assert message["stopReason"] == "error"
    assert "429" in message["errorMessage"]
    assert classify_error_text(message["errorMessage"]) == "transient"
    assert len(server.requests) == 1  # litellm itself did not retry
    assert final(await collect(request_for(server)))["content"] == [{"type": "text", "text": "fine now"}]


async def test_a_refused_connection_names_the_url_and_is_not_an_http_500(litellm: Any) -> None:
    with socket.socket() as probe:  # a port nothing listens on: bound, then closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    request = ModelRequest(model=ModelSpec(provider="openai", id="m", base_url=url), system_prompt="s",
                           messages=[{"role": "user", "content": "hi", "timestamp": 1}])
    message = final(await collect(request))
    assert message["errorMessage"] == f"Temporary provider error: cannot connect to {url}. Try again in a moment."
    assert classify_error_text(message["errorMessage"]) == "transient"  # a server still starting: retried


async def test_lone_surrogates_in_a_reply_arrive_as_u_fffd_and_the_reply_is_accepted_back(server: FakeOpenAI) -> None:
    """A provider's JSON may escape half a surrogate pair (`\\ud83d`): kept as it is, every later request
    that sends the reply back would fail to encode."""
    server.push(tool_reply(call("read", '{"path": "a\\ud800.py"}', "call_\udc00"), text="half \ud83d",
                           reasoning="hm \udfff", chunk_size=3), text_reply("Done."))
    history: list[Any] = [{"role": "user", "content": "read it", "timestamp": 1}]
    reply = final(await collect(request_for(server, history, tools=[READ])))
    assert reply["content"] == [
        {"type": "thinking", "thinking": "hm \ufffd"}, {"type": "text", "text": "half \ufffd"},
        {"type": "toolCall", "id": "call_\ufffd", "name": "read", "arguments": {"path": "a\ufffd.py"}}]
    history += [reply, {"role": "toolResult", "toolCallId": "call_\ufffd", "toolName": "read",
                        "content": [{"type": "text", "text": "x"}], "isError": False, "timestamp": 3}]
    assert final(await collect(request_for(server, history, tools=[READ])))["stopReason"] == "stop"
    assert server.rejections == []


async def test_a_request_holding_lone_surrogates_is_sent_with_u_fffd(server: FakeOpenAI) -> None:
    """Text that came in by a way no entry point repaired is repaired before it is sent: it failed locally
    with UnicodeEncodeError (reported as an HTTP 500), and so did every later request of the session."""
    server.push(text_reply("fine"))
    tool = ToolSpec(name="read\udc00", description="half \ud83d", parameters={"type": "object"})
    request = request_for(server, [{"role": "user", "content": "a \ud800 b", "timestamp": 1}], tools=[tool])
    assert final(await collect(request))["stopReason"] == "stop"
    [sent] = server.requests
    assert sent["messages"][-1]["content"] == "a \ufffd b"
    assert sent["tools"][0]["function"]["description"] == "half \ufffd"


async def test_text_that_cannot_be_encoded_fails_locally_in_one_line_never_as_a_provider_500(
        server: FakeOpenAI) -> None:
    """A header with a character ASCII cannot carry (models.json's `headers`) stops the request before it is sent."""
    spec = ModelSpec(provider="openai", id="fake-model", base_url=server.base_url, headers=(("X-Team", "caf\u00e9"),))
    request = ModelRequest(model=spec, system_prompt="", messages=[{"role": "user", "content": "hi", "timestamp": 1}])
    text = final(await collect(request))["errorMessage"]
    assert text.startswith("Model request failed: the request was not sent: it holds text that cannot be encoded"
                           " ('ascii' codec can't encode character '\\xe9'")
    assert "HTTP" not in text and "\n" not in text
    assert classify_error_text(text) == "other"  # not retried: the same request would fail the same way
    assert server.requests == []


@pytest.mark.parametrize("status", [500, 503])
async def test_server_errors_are_transient(server: FakeOpenAI, status: int) -> None:
    server.push(server_error(status))
    message = final(await collect(request_for(server)))
    assert classify_error_text(message["errorMessage"]) == "transient"


async def test_context_overflow_is_classified(server: FakeOpenAI) -> None:
    server.push(context_overflow())
    message = final(await collect(request_for(server)))
    assert classify_error_text(message["errorMessage"]) == "context_overflow"
    assert is_context_overflow(message["errorMessage"])


async def test_a_stream_cut_midway_ends_with_an_error_keeping_the_partial_text(server: FakeOpenAI) -> None:
    server.push(text_reply("abcdefghijkl", cut_after=3))
    events = await collect(request_for(server))
    message = final(events)
    assert events[-1].type == "error"
    assert message["stopReason"] == "error"
    assert message["content"] == [{"type": "text", "text": "abcdefgh"}]
    assert classify_error_text(message["errorMessage"]) == "transient"


async def test_an_invalid_json_chunk_ends_with_an_error(server: FakeOpenAI) -> None:
    server.push(text_reply("abcdefghijkl", invalid_json_at=2))
    events = await collect(request_for(server))
    assert events[-1].type == "error"
    assert final(events)["stopReason"] == "error"
    assert "\n" not in final(events)["errorMessage"]


async def test_a_request_the_server_rejects_is_a_bad_request(server: FakeOpenAI) -> None:
    # A call left unanswered at the very end is sent as is (as in Pi), and a strict provider refuses it.
    dangling: AssistantMessage = {
        "role": "assistant", "content": [{"type": "toolCall", "id": "call_x", "name": "ls", "arguments": {}}],
        "api": "openai-completions", "provider": "openai", "model": "fake-model", "usage": empty_usage(),
        "stopReason": "toolUse", "timestamp": 2,
    }
    history = [{"role": "user", "content": "x", "timestamp": 1}, dangling]
    message = final(await collect(request_for(server, history)))
    assert message["stopReason"] == "error"
    assert classify_error_text(message["errorMessage"]) == "bad_request"
    assert "call_x" in message["errorMessage"]
    assert len(server.rejections) == 1


@pytest.mark.parametrize("fault", [{"stall_after": 3}, {"delay": 0.05}], ids=["stalled", "slow"])
async def test_abort_mid_stream_ends_with_an_aborted_message(server: FakeOpenAI, fault: dict[str, Any]) -> None:
    server.push(text_reply("abcdefghijklmnop", **fault))
    signal = AbortSignal()
    events: list[StreamEvent] = []

    async def run() -> None:
        async for event in LiteLLMClient().stream(request_for(server), signal):
            events.append(event)
            if event.type == "text_delta" and "efgh" in event.delta:
                signal.abort()

    await asyncio.wait_for(run(), SAFETY_TIMEOUT)
    message = final(events)
    assert events[-1].type == "error"
    assert message["stopReason"] == "aborted"
    assert message["content"] == [{"type": "text", "text": "abcdefgh"}]


async def test_a_slow_stream_completes(server: FakeOpenAI) -> None:
    server.push(text_reply("slow but sure", delay=0.01))
    assert final(await collect(request_for(server)))["content"] == [{"type": "text", "text": "slow but sure"}]


async def test_an_already_aborted_signal_sends_nothing(server: FakeOpenAI) -> None:
    signal = AbortSignal()
    signal.abort()
    events = await collect(request_for(server), signal)
    assert [e.type for e in events] == ["error"]
    assert final(events)["stopReason"] == "aborted"
    assert server.requests == []


def test_request_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    local = ModelSpec(provider="openai", id="m", base_url="http://127.0.0.1:1/v1", reasoning=True)
    request = ModelRequest(model=local, system_prompt="s", messages=[], thinking_level="xhigh")
    kwargs = completion_kwargs(request)
    assert kwargs["model"] == "openai/m"
    assert kwargs["api_base"] == "http://127.0.0.1:1/v1"
    assert kwargs["api_key"] == PLACEHOLDER_KEY
    assert kwargs["num_retries"] == 0
    assert kwargs["reasoning_effort"] == "high"
    assert "tools" not in kwargs
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert "api_key" not in completion_kwargs(request)
    hosted = ModelRequest(model=ModelSpec(provider="anthropic", id="c"), system_prompt="s", messages=[])
    assert not {"api_key", "api_base", "reasoning_effort"} & completion_kwargs(hosted).keys()


@pytest.mark.parametrize("ref", [
    "anthropic/claude-sonnet-4-5", "openai/gpt-5.1", "gemini/gemini-2.5-pro", "deepseek/deepseek-chat",
    "mistral/mistral-large-latest",
    # not listed in the map: litellm finds them through the map's rules
    "anthropic/claude-opus-4-1", "anthropic/claude-opus-4-0", "anthropic/claude-sonnet-4-0",
    # dated snapshots and aliases
    "anthropic/claude-sonnet-4-20250514", "anthropic/claude-opus-4-1-20250805", "openai/gpt-4o-2024-08-06",
    "openai/gpt-5.1-2025-11-13", "openai/o3", "gemini/gemini-2.5-flash", "anthropic/claude-haiku-4-5",
    # rows of the map that only name another row
    "anthropic/claude-sonnet-latest", "openai/gpt-luna-latest",
])
def test_limits_and_prices_read_without_litellm_match_litellms_own_lookup(litellm: Any, ref: str) -> None:
    spec = parse_model_ref(ref)
    info = litellm.get_model_info(ref)
    assert (spec.context_window, spec.max_tokens) == (info["max_input_tokens"], info["max_output_tokens"])
    assert spec.prices.input == info["input_cost_per_token"]
    assert spec.prices.output == info["output_cost_per_token"]
    assert spec.prices.cache_read == (info.get("cache_read_input_token_cost") or 0.0)


def test_every_anthropic_openai_and_gemini_model_of_the_map_reads_as_litellm_reads_it(litellm: Any) -> None:
    differ = []
    for key, entry in bundled_map().items():
        provider = entry.get("litellm_provider")
        if provider not in ("anthropic", "openai", "gemini") or entry.get("mode", "chat") not in ("chat", "responses"):
            continue
        model_id = key.removeprefix(f"{provider}/")
        info, facts = litellm.get_model_info(f"{provider}/{model_id}"), model_facts(provider, model_id)
        theirs = (info["max_input_tokens"] or info["max_tokens"], info["max_output_tokens"] or info["max_tokens"],
                  info["input_cost_per_token"], info["output_cost_per_token"])
        mine = facts and (facts.context_window, facts.max_tokens, facts.prices.input, facts.prices.output)
        if mine != theirs:
            differ.append((key, mine, theirs))
    assert differ == []


def test_the_map_read_without_litellm_is_litellms_own_price_map_row_for_row(litellm: Any) -> None:
    """`pi-tui whatif` prices requests from it, by the name the recording gives, as litellm would."""
    assert bundled_map() == litellm.model_cost


def test_a_router_model_gets_the_window_litellm_finds_for_it(litellm: Any) -> None:
    ref = "openrouter/anthropic/claude-sonnet-4.5"
    spec, info = parse_model_ref(ref), litellm.get_model_info(ref)
    assert (spec.context_window, spec.max_tokens) == (info["max_input_tokens"], info["max_output_tokens"])


def test_a_model_litellm_does_not_know_is_unknown_to_both(litellm: Any) -> None:
    with pytest.raises(Exception, match="isn't mapped"):
        litellm.get_model_info("openai/no-such-model")
    assert parse_model_ref("openai/no-such-model").context_window == ModelSpec("x", "y").context_window


async def test_a_missing_key_fails_in_one_line_before_any_request() -> None:
    request = ModelRequest(model=parse_model_ref("anthropic/claude-sonnet-4-5"), system_prompt="s",
                           messages=[{"role": "user", "content": "hi", "timestamp": 1}])
    message = final(await collect(request))
    assert message["errorMessage"] == "no API key for anthropic: set ANTHROPIC_API_KEY"
    assert classify_error_text(message["errorMessage"]) == "auth"


def test_anthropic_signature_and_redacted_thinking_from_real_litellm_chunks(litellm: Any) -> None:
    from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices

    def chunk(finish: str | None = None, **delta: Any) -> Any:
        return ModelResponseStream(choices=[StreamingChoices(delta=Delta(**delta), finish_reason=finish)])

    builder = _ReplyBuilder(ModelSpec(provider="anthropic", id="claude-sonnet-4-5"), 7)
    builder.feed(chunk(reasoning_content="Plan", content=""))
    builder.feed(chunk(reasoning_content="", thinking_blocks=[{"type": "thinking", "thinking": "Plan",
                                                                "signature": "sig-1"}]))
    builder.feed(chunk(thinking_blocks=[{"type": "redacted_thinking", "data": "opaque"}]))
    builder.feed(chunk(content="Answer", finish="stop"))
    events = builder.finish()
    assert events[-1].type == "done"
    assert builder.message["api"] == "anthropic-messages"
    assert builder.message["content"] == [
        {"type": "thinking", "thinking": "Plan", "thinkingSignature": "sig-1"},
        {"type": "thinking", "thinking": "", "thinkingSignature": "opaque", "redacted": True},
        {"type": "text", "text": "Answer"},
    ]


def test_anthropic_payload_as_litellm_translates_it(litellm: Any) -> None:
    """Signed thinking, the tool call and the cached tool result reach Anthropic's wire shape intact."""
    from litellm.litellm_core_utils.prompt_templates.factory import anthropic_messages_pt

    spec = ModelSpec(provider="anthropic", id="claude-sonnet-4-5")
    turn: AssistantMessage = {
        "role": "assistant", "api": "anthropic-messages", "provider": "anthropic", "model": spec.id,
        "content": [{"type": "thinking", "thinking": "plan", "thinkingSignature": "SIG"},
                    {"type": "toolCall", "id": "toolu_1", "name": "read", "arguments": {"path": "a"}}],
        "usage": empty_usage(), "stopReason": "toolUse", "timestamp": 2,
    }
    result: ToolResultMessage = {"role": "toolResult", "toolCallId": "toolu_1", "toolName": "read",
              "content": [{"type": "text", "text": "data"}], "isError": False, "timestamp": 3}
    request = ModelRequest(model=spec, system_prompt="sys",
                           messages=[{"role": "user", "content": "read", "timestamp": 1}, turn, result])
    messages = completion_kwargs(request)["messages"]
    wire = anthropic_messages_pt(messages[1:], model="claude-sonnet-4-5", llm_provider="anthropic")
    assert wire[1]["content"] == [
        {"type": "thinking", "thinking": "plan", "signature": "SIG"},
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
    ]
    assert wire[2]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [
        {"type": "text", "text": "data", "cache_control": {"type": "ephemeral"}}]}]


def test_the_fake_server_answers_plain_json_and_rejects_malformed_bodies(server: FakeOpenAI) -> None:
    server.push(tool_reply(call("ls", {}, "call_1"), text="hi"))
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    status, answer = post(server, json.dumps(body).encode())
    assert status == 200
    assert answer["choices"][0]["message"]["tool_calls"][0]["id"] == "call_1"
    assert answer["choices"][0]["finish_reason"] == "tool_calls"
    status, answer = post(server, b"{not json")
    assert status == 400
    assert answer["error"]["type"] == "invalid_request_error"
    status, answer = post(server, json.dumps({"messages": body["messages"]}).encode())
    assert (status, answer["error"]["param"]) == (400, "model")


def post(server: FakeOpenAI, data: bytes) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(f"{server.base_url}/chat/completions", data=data,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=SAFETY_TIMEOUT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_importing_the_client_does_not_import_litellm() -> None:
    code = (
        "import sys, pi_tui.ai.litellm_client, pi_tui.ai.errors, pi_tui.ai.openai_format, "
        "pi_tui.ai.transform, pi_tui.ai.convert; "
        "print(sorted(m for m in ('litellm', 'openai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_litellm_is_imported_without_collecting_and_left_frozen() -> None:
    """The import runs no cyclic collection (a quarter of its CPU) and freezes what it built, so no later
    collection walks it; the collector is on again afterwards, and stays off for a caller that had it off."""
    code = (
        "import gc, sys; from pi_tui.ai.litellm_client import import_litellm; runs = []; "
        "gc.callbacks.append(lambda phase, info: runs.append(info['generation']) if phase == 'start' else None); "
        "off = sys.argv[1] == 'off'; gc.disable() if off else None; import_litellm(); "
        "print(len(runs), gc.isenabled(), gc.get_freeze_count() > 100_000)"
    )
    runs = [subprocess.run([sys.executable, "-c", code, state], capture_output=True, text=True, check=True,
                           timeout=120).stdout.split() for state in ("on", "off")]
    assert runs == [["0", "True", "True"], ["0", "False", "False"]]


def test_every_model_model_lists_is_named_as_litellm_routes_it(litellm: Any) -> None:
    """`/model` lists the map's chat models under the name litellm is called with (`vertex_ai/...`, not the
    map's `vertex_ai-language-models`; `bedrock/...`, not `bedrock_converse`)."""
    providers = {"anthropic", "openai", "gemini", "vertex_ai", "bedrock", "mistral", "xai", "groq", "deepseek",
                 "openrouter"}
    listed = [model for model in chat_models() if model.provider in providers]
    assert len(listed) > 500
    wrong = [(model.ref, litellm.get_llm_provider(model.ref)[1]) for model in listed]
    assert [(ref, routed) for ref, routed in wrong if routed != ref.partition("/")[0]] == []
    assert not [model.ref for model in chat_models() if model.provider.startswith("vertex_ai-")
                or model.provider == "bedrock_converse"]
