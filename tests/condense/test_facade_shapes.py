"""What an agent hands the facades: the SDKs' own objects and any Mapping are taken as they are; what they
carry (Anthropic's cache breakpoints, OpenAI's image detail) comes back; anything malformed is refused
in one line naming the message and the field, with nothing recorded."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

import pytest
from anthropic.types import Message, ToolUseBlock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall

from condense import AnthropicCondenser, Condenser, MessageError, OpenAICondenser
from tests.condense.test_facade import OUTPUT, output
from tests.support.typed import plain

READ = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": json.dumps({"path": "a.py"})}}


def sdk_reply(**fields: Any) -> ChatCompletionMessage:
    return ChatCompletionMessage.model_validate({"role": "assistant", "content": None, **fields})


def anthropic_reply(content: list[dict[str, Any]]) -> Message:
    return Message.model_validate({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
                                   "content": content, "stop_reason": "end_turn", "stop_sequence": None,
                                   "usage": {"input_tokens": 120, "output_tokens": 7, "cache_read_input_tokens": 900}})


class Frozen(Mapping[str, Any]):
    """An agent's own read-only Mapping type."""

    def __init__(self, **items: Any) -> None:
        self._items = items

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


async def test_openai_sdk_objects_and_any_mapping_are_taken_as_they_are() -> None:
    as_objects, as_dicts = OpenAICondenser(), OpenAICondenser()
    reply = sdk_reply(tool_calls=[READ])
    await as_objects.add([Frozen(role="user", content="read a.py"), reply,
                          MappingProxyType({"role": "tool", "tool_call_id": "call_1", "content": output(0)})])
    await as_objects.add([sdk_reply(content="It handles events.")])
    await as_dicts.add([{"role": "user", "content": "read a.py"}, {"role": "assistant", "content": None,
                                                                   "tool_calls": [READ]},
                        {"role": "tool", "tool_call_id": "call_1", "content": output(0)}])
    await as_dicts.add([{"role": "assistant", "content": "It handles events."}])
    assert as_objects.messages() == as_dicts.messages()
    assert OUTPUT not in json.dumps(as_objects.messages())  # pruned all the same
    query = ChatCompletionMessageFunctionToolCall.model_validate(
        {"id": "q1", "type": "function", "function": {"name": "context_tree_query",
                                                      "arguments": json.dumps({"toolCallIds": ["t1"]})}})
    answer = as_objects.answer(query)
    assert answer["tool_call_id"] == "q1" and output(0) in str(answer["content"])


async def test_anthropic_sdk_messages_and_blocks_are_taken_with_their_usage() -> None:
    condenser = AnthropicCondenser(config={"chain_compression": {"rolling_window": 3}})
    call = anthropic_reply([{"type": "thinking", "thinking": "look first", "signature": "sig"},
                            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.py"}}])
    await condenser.add([{"role": "user", "content": "read a.py"}, call])
    await condenser.add([{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": output(0)}]}])
    done = anthropic_reply([{"type": "text", "text": "Done."}])
    await condenser.add([{"role": "assistant", "content": done.content}])  # the blocks alone, as SDK objects
    reply = next(m for m in condenser.host.messages() if m["role"] == "assistant")
    assert reply.get("usage", {}).get("cacheRead") == 900  # the Message's own usage, with no usage= given
    request = plain(condenser.messages())
    assert request[1]["content"][0] == {"type": "thinking", "thinking": "look first", "signature": "sig"}
    use = ToolUseBlock.model_validate({"type": "tool_use", "id": "toolu_q", "name": "context_tree_query",
                                       "input": {"toolCallIds": ["t1"]}})
    assert output(0) in str(condenser.answer(use)["content"])


async def test_cache_breakpoints_and_image_detail_reach_the_request_where_the_agent_put_them() -> None:
    mark = {"type": "ephemeral", "ttl": "1h"}
    anthropic = AnthropicCondenser()
    await anthropic.add([{"role": "user", "content": [{"type": "text", "text": "the long brief", "cache_control": mark},
                                                      {"type": "text", "text": "read a.py"}]}])
    brief = plain(anthropic.messages())[0]["content"][0]
    assert brief == {"type": "text", "text": "the long brief", "cache_control": mark}
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}}
    openai = OpenAICondenser()
    await openai.add([{"role": "user", "content": [{"type": "text", "text": "what is this?"}, image]}])
    assert openai.messages()[0]["content"] == [{"type": "text", "text": "what is this?"}, image]


def marks(request: list[Any]) -> list[tuple[int, int]]:
    return [(i, j) for i, message in enumerate(request) if isinstance(message["content"], list)
            for j, block in enumerate(message["content"]) if "cache_control" in block]


def unmarked(request: list[Any]) -> list[Any]:
    return [{**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]}
            if isinstance(m["content"], list) else m for m in request]


def anthropic_turn(n: int) -> list[dict[str, Any]]:
    use = {"type": "tool_use", "id": f"toolu_{n}", "name": "read", "input": {"path": f"m{n}.py"}}
    return [{"role": "assistant", "content": [use]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": output(n)}]}]


async def test_the_facade_marks_the_last_block_and_the_last_one_the_previous_request_sent_unchanged() -> None:
    condenser = AnthropicCondenser(cache_breakpoints=True, config={"chain_compression": {"rolling_window": 3}})
    await condenser.add([{"role": "user", "content": "fix the handler"}, *anthropic_turn(0)])
    first = condenser.messages()
    assert marks(first) == [(2, 0)]  # the last block: the next request reads this prefix back
    await condenser.add(anthropic_turn(1))
    second = condenser.messages()
    assert marks(second) == [(2, 0), (4, 0)]  # and where the first request ended
    await condenser.add([{"role": "assistant", "content": "Fixed."}])  # a flush rewrites the tool outputs
    await condenser.add([{"role": "user", "content": "and the tests?"}])
    third = plain(condenser.messages())
    rewritten = next(i for i, (a, b) in enumerate(zip(unmarked(second), unmarked(third), strict=False)) if a != b)
    assert rewritten == 2 and "pruner summary" in json.dumps(third[2])  # the first output's stub
    assert marks(third) == [(1, 0), (len(third) - 1, len(third[-1]["content"]) - 1)]
    assert "cache_control" not in json.dumps(AnthropicCondenser().messages())
    assert all("cache_control" not in json.dumps(m) for m in condenser.host.messages())  # the store holds none


async def test_a_tool_result_whose_call_was_never_handed_over_is_refused() -> None:
    condenser = OpenAICondenser()
    await condenser.add([{"role": "user", "content": "go"}])
    with pytest.raises(MessageError, match=r"^condense: the tool result for call 'call_9' answers no tool call"):
        await condenser.add([{"role": "tool", "tool_call_id": "call_9", "content": "orphan"}])
    assert [m["role"] for m in condenser.host.messages()] == ["user"]


@pytest.mark.parametrize(("message", "said"), [
    ({"role": "user", "content": 5}, "message 0: content: expected a string or a list of parts, got 5"),
    ({"role": "user", "content": {"text": "hi"}}, "message 0: content: expected a string or a list of parts, "
                                                   "got an object"),
    ({"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "read", "arguments": "{}"}}]},
     "message 0: tool_calls[0].id: expected a non-empty string, got None"),
    ({"role": "bot", "content": "hi"}, "message 0 has role 'bot'; expected user, assistant or tool"),
    ({"role": "assistant", "content": [{"type": "text", "text": 3}]}, "message 0: content[0].text: expected a "
                                                                      "string, got 3"),
])
async def test_a_malformed_openai_message_is_refused_in_one_line_saying_what_and_where(
        message: dict[str, Any], said: str) -> None:
    with pytest.raises(MessageError) as refused:
        await OpenAICondenser().add([message])
    assert str(refused.value) == f"condense: {said}"


async def test_a_single_message_instead_of_a_list_is_refused_with_the_fix() -> None:
    one_message: Any = {"role": "user", "content": "hi"}  # the mistake, which a type checker would catch
    with pytest.raises(MessageError, match="add takes a list of messages, got dict; put a single message in a list"):
        await OpenAICondenser().add(one_message)


# ----- junk ------------------------------------------------------------------------------------------

KEYS = ["role", "content", "type", "text", "tool_calls", "id", "function", "name", "arguments", "tool_call_id",
        "image_url", "url", "detail", "source", "media_type", "data", "tool_use_id", "input", "is_error",
        "thinking", "signature", "cache_control", "thinking_blocks", "toolCallId", "toolName", "isError",
        "timestamp", "customType", "summary", "command", "output", "usage", "mimeType", "totalTokens"]
JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from(["user", "assistant", "tool", "text", "image", "tool_use", "tool_result", "toolCall",
                       "image_url", "function", "thinking", "toolResult", "custom", "base64", "data:,"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    max_leaves=12)

CALL = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
VALID: dict[type, list[dict[str, Any]]] = {
    OpenAICondenser: [
        {"role": "user", "content": [{"type": "text", "text": "hi"},
                                     {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}]},
        {"role": "assistant", "content": "ok", "tool_calls": [CALL],
         "thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": "s"}]},
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "out"}]}],
    AnthropicCondenser: [
        {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}},
                                     {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                  "data": "AA"}}]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"},
                                          {"type": "tool_use", "id": "c1", "name": "read", "input": {"p": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": False,
                                      "content": [{"type": "text", "text": "out"}]}]}],
    Condenser: [
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "image", "data": "AA",
                                                                      "mimeType": "image/png"}], "timestamp": 1},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t"},
                                          {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}],
         "usage": {"input": 1, "output": 2, "totalTokens": 3}, "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": False, "timestamp": 3,
         "content": [{"type": "text", "text": "out"}]},
        {"role": "custom", "customType": "note", "content": "a note", "display": True, "timestamp": 4}],
}


@st.composite
def spoiled(draw: st.DrawFn, messages: list[dict[str, Any]]) -> list[Any]:
    """A valid history with one value somewhere inside it replaced by junk (or a message replaced whole)."""
    history: list[Any] = json.loads(json.dumps(messages))
    holder: Any = history
    key: Any = draw(st.integers(0, len(history) - 1))
    while isinstance(holder[key], dict | list) and holder[key] and draw(st.booleans()):
        holder = holder[key]
        key = draw(st.sampled_from(sorted(holder))) if isinstance(holder, dict) else draw(
            st.integers(0, len(holder) - 1))
    holder[key] = draw(JUNK)
    return history


@pytest.mark.parametrize("facade", [OpenAICondenser, AnthropicCondenser, Condenser])
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_junk_handed_to_add_is_a_message_error_or_a_history_condense_can_render(
        facade: type[OpenAICondenser | AnthropicCondenser | Condenser], data: st.DataObject) -> None:
    condenser = facade()
    history: list[Any] = data.draw(spoiled(VALID[facade]) | st.lists(JUNK, min_size=1, max_size=3))
    try:
        condenser.add_sync(history)
    except MessageError as refused:
        assert str(refused).startswith("condense: ") and "\n" not in str(refused)
        assert condenser.host.messages() == []  # nothing of a refused batch is recorded
        return
    json.dumps(condenser.messages())
    condenser.add_sync([{"role": "assistant", "content": "done"}] if facade is not Condenser else
                       [{"role": "assistant", "content": [{"type": "text", "text": "done"}], "timestamp": 9}])
    json.dumps(condenser.messages())
