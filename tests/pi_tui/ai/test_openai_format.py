"""to_openai_messages / to_openai_tools: the one wire shape litellm is given."""

from __future__ import annotations

import copy
import json
from typing import Any, cast

import pytest

from condense.messages import Message
from pi_tui.ai.openai_format import to_openai_messages, to_openai_tools
from pi_tui.ai.types import ModelSpec, ToolSpec
from tests.support.fake_openai import RequestRejected, validate_request

OPENAI = ModelSpec(provider="openai", id="gpt-x")
ANTHROPIC = ModelSpec(provider="anthropic", id="claude-y", api="anthropic-messages")
EPHEMERAL = {"type": "ephemeral"}


def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks), "api": "openai-completions", "provider": "openai",
            "model": "gpt-x", "usage": {}, "stopReason": "toolUse", "timestamp": 2}


def tool_result(call_id: str, *content: dict[str, Any]) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "read", "content": list(content),
            "isError": False, "timestamp": 3}


TEXT = {"type": "text", "text": "out"}
IMAGE = {"type": "image", "data": "QUJD", "mimeType": "image/png"}
CALL = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.py", "limit": 5}}
TURN = [
    {"role": "user", "content": "read a.py", "timestamp": 1},
    assistant({"type": "text", "text": "Reading."}, CALL),
    tool_result("c1", TEXT, {"type": "text", "text": "more"}),
]


def test_system_first_then_user_assistant_and_tool_messages() -> None:
    out = to_openai_messages("be brief", TURN, OPENAI)  # type: ignore[arg-type]
    assert out == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "read a.py"},
        {
            "role": "assistant",
            "content": "Reading.",
            "tool_calls": [{"id": "c1", "type": "function",
                            "function": {"name": "read", "arguments": '{"path": "a.py", "limit": 5}'}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "out\nmore"},
    ]


def test_an_empty_system_prompt_is_left_out() -> None:
    assert to_openai_messages("", TURN[:1], OPENAI) == [{"role": "user", "content": "read a.py"}]  # type: ignore[arg-type]


def test_user_images_become_data_urls() -> None:
    message = {"role": "user", "content": [{"type": "text", "text": "look"}, IMAGE], "timestamp": 1}
    out = to_openai_messages("", [message], OPENAI)  # type: ignore[list-item]
    assert out[0]["content"] == [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}},
    ]


def test_assistant_with_only_calls_has_null_content_and_empty_turns_are_skipped() -> None:
    out = to_openai_messages("", [assistant(CALL), assistant({"type": "text", "text": "  "})], OPENAI)  # type: ignore[list-item]
    assert len(out) == 1
    assert out[0]["content"] is None


def test_signed_thinking_goes_back_as_thinking_blocks_and_unsigned_thinking_is_not_sent() -> None:
    message = assistant(
        {"type": "thinking", "thinking": "plan", "thinkingSignature": "sig1"},
        {"type": "thinking", "thinking": "", "thinkingSignature": "opaque", "redacted": True},
        {"type": "thinking", "thinking": "unsigned"},
        CALL,
    )
    out = to_openai_messages("", [message], OPENAI)  # type: ignore[list-item]
    assert out[0]["thinking_blocks"] == [
        {"type": "thinking", "thinking": "plan", "signature": "sig1"},
        {"type": "redacted_thinking", "data": "opaque"},
    ]
    assert "unsigned" not in json.dumps(out)


def test_tool_images_follow_the_run_of_tool_messages_in_one_user_message() -> None:
    message = assistant(CALL, {**CALL, "id": "c2"})
    out = to_openai_messages("", [message, tool_result("c1", IMAGE), tool_result("c2", TEXT, IMAGE)], OPENAI)  # type: ignore[list-item]
    assert [m["role"] for m in out] == ["assistant", "tool", "tool", "user"]
    assert out[1]["content"] == "(see the attached image)"
    assert out[2]["content"] == "out"
    assert [p["type"] for p in out[3]["content"]] == ["text", "image_url", "image_url"]


def test_tools_are_function_definitions() -> None:
    spec = ToolSpec(name="read", description="Read a file", parameters={"type": "object", "properties": {}})
    assert to_openai_tools([spec]) == [
        {"type": "function", "function": {"name": "read", "description": "Read a file",
                                          "parameters": {"type": "object", "properties": {}}}}
    ]


def test_anthropic_gets_exactly_two_cache_breakpoints_system_and_last_user_side_message() -> None:
    history = [{"role": "user", "content": "first", "timestamp": 0}, *TURN]
    out = to_openai_messages("sys", history, ANTHROPIC)  # type: ignore[arg-type]
    assert out[0]["content"] == [{"type": "text", "text": "sys", "cache_control": EPHEMERAL}]
    assert out[-1] == {"role": "tool", "tool_call_id": "c1",
                       "content": [{"type": "text", "text": "out\nmore", "cache_control": EPHEMERAL}]}
    assert json.dumps(out).count("cache_control") == 2


def test_anthropic_breakpoint_lands_on_the_last_block_of_the_last_user_message() -> None:
    history = [*TURN, {"role": "user", "content": [{"type": "text", "text": "and"}, IMAGE], "timestamp": 9}]
    out = to_openai_messages("sys", history, ANTHROPIC)  # type: ignore[arg-type]
    assert out[-1]["content"][0] == {"type": "text", "text": "and"}
    assert out[-1]["content"][1]["cache_control"] == EPHEMERAL
    assert json.dumps(out).count("cache_control") == 2


def test_other_providers_get_no_cache_control() -> None:
    assert "cache_control" not in json.dumps(to_openai_messages("sys", TURN, OPENAI))  # type: ignore[arg-type]


def test_output_is_byte_stable_and_inputs_untouched() -> None:
    before = copy.deepcopy(TURN)
    first = json.dumps(to_openai_messages("sys", TURN, ANTHROPIC))  # type: ignore[arg-type]
    second = json.dumps(to_openai_messages("sys", TURN, ANTHROPIC))  # type: ignore[arg-type]
    assert first == second
    assert before == TURN


def test_a_formatted_tool_turn_passes_strict_validation() -> None:
    validate_request({"model": "m", "messages": to_openai_messages("sys", TURN, OPENAI)})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("messages", "fragment"),
    [
        ([{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "x", "content": "r"}],
         "must be a response to a preceeding message"),
        ([{"role": "user", "content": "hi"},
          {"role": "assistant", "content": None,
           "tool_calls": [{"id": "c", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]}],
         "did not have response messages: c"),
        ([{"role": "robot", "content": "hi"}], "role"),
        ([], "non-empty"),
    ],
)
def test_the_fake_provider_rejects_what_real_ones_reject(messages: list[Any], fragment: str) -> None:
    with pytest.raises(RequestRejected, match=fragment):
        validate_request({"model": "m", "messages": messages})


def test_a_call_keeps_the_text_the_model_wrote_where_the_api_takes_text() -> None:
    raw = '{"path": "a.py", "limit": 5'
    turn = cast("list[Message]", [TURN[0], assistant({**CALL, "arguments": {}, "rawArguments": raw}), TURN[2]])
    sent = to_openai_messages("", turn, OPENAI)[1]["tool_calls"][0]["function"]["arguments"]
    assert sent == raw
    gemini = ModelSpec(provider="gemini", id="gemini-x")
    for model in (ANTHROPIC, gemini):  # their APIs take an object: litellm would refuse the request
        assert to_openai_messages("", turn, model)[1]["tool_calls"][0]["function"]["arguments"] == "{}"
