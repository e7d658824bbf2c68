"""OpenAI and Anthropic histories <-> Pi messages: what an agent hands over comes back as it sent it, and
what Pi holds survives the trip through either shape (text, tool calls, results, errors, images)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from condense.adapters import MessageError, from_anthropic, from_openai, to_anthropic, to_openai

TEXT = st.text(max_size=30)
NAME = st.sampled_from(["read", "bash", "edit", "grep"])
B64 = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", min_size=1, max_size=12)
MIME = st.sampled_from(["image/png", "image/jpeg", "image/webp"])
JSON_VALUE = st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                          max_leaves=6)
ARGS = st.dictionaries(TEXT, JSON_VALUE, max_size=3)
METADATA = ("timestamp", "api", "provider", "model", "usage", "stopReason")


def pi_image() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda m, d: {"type": "image", "data": d, "mimeType": m}, MIME, B64)


def pi_text() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda t: {"type": "text", "text": t}, TEXT)


def ids(count: int, turn: int) -> list[str]:
    return [f"call_{turn}_{i}" for i in range(count)]


@st.composite
def pi_history(draw: st.DrawFn, signed_thinking: bool = True) -> list[dict[str, Any]]:
    """A Pi conversation in the order an agent produces it: a prompt, tool turns with their results
    (text, images, errors), a final reply."""
    out: list[dict[str, Any]] = [{"role": "user", "content": draw(st.lists(pi_text() | pi_image(), min_size=1,
                                                                              max_size=3)), "timestamp": 0}]
    for turn in range(draw(st.integers(0, 3))):
        calls = [{"type": "toolCall", "id": cid, "name": draw(NAME), "arguments": draw(ARGS)}
                 for cid in ids(draw(st.integers(1, 3)), turn)]
        thinking = ([{"type": "thinking", "thinking": draw(TEXT), "thinkingSignature": draw(B64)}]
                    if signed_thinking and draw(st.booleans()) else [])
        texts = draw(st.lists(pi_text(), max_size=2))
        out.append({"role": "assistant", "content": [*thinking, *texts, *calls]})
        for block in calls:
            content = draw(st.lists(pi_text(), min_size=1, max_size=2) | st.lists(pi_image(), min_size=1, max_size=2)
                           | st.tuples(pi_text(), pi_image()).map(list))
            out.append({"role": "toolResult", "toolCallId": block["id"], "toolName": block["name"],
                        "content": content, "isError": draw(st.booleans()), "timestamp": 0})
    out.append({"role": "assistant", "content": draw(st.lists(pi_text(), min_size=1, max_size=2))})
    return out


def content_of(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages without what neither foreign shape records (times, usage, model names)."""
    return [{k: v for k, v in m.items() if k not in METADATA} for m in messages]


# ----- OpenAI ----------------------------------------------------------------------------------------


DETAIL = st.none() | st.sampled_from(["low", "high", "auto"])


def openai_image() -> st.SearchStrategy[dict[str, Any]]:
    """An image part, with the `detail` an agent may ask for (it comes back as given)."""
    def image(mime: str, data: str, detail: str | None) -> dict[str, Any]:
        url = {"url": f"data:{mime};base64,{data}"}
        return {"type": "image_url", "image_url": url if detail is None else {**url, "detail": detail}}

    return st.builds(image, MIME, B64, DETAIL)


def openai_text_content(draw: st.DrawFn) -> Any:
    """OpenAI's own forms: one text as a string, several as parts."""
    return draw(TEXT | st.lists(TEXT, min_size=2, max_size=3).map(lambda ts: [{"type": "text", "text": t}
                                                                              for t in ts]))


@st.composite
def openai_history(draw: st.DrawFn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "user", "content": draw(
        TEXT | st.lists(st.builds(lambda t: {"type": "text", "text": t}, TEXT) | openai_image(), min_size=1,
                        max_size=3))}]
    for turn in range(draw(st.integers(0, 3))):
        raw = st.one_of(ARGS.map(json.dumps), ARGS.map(lambda a: json.dumps(a, separators=(",", ":"))),
                        st.just('{"path": "a.py"'))  # compact, spaced, and cut-off arguments all come back as sent
        calls = [{"id": cid, "type": "function", "function": {"name": draw(NAME), "arguments": draw(raw)}}
                 for cid in ids(draw(st.integers(1, 3)), turn)]
        out.append({"role": "assistant", "content": draw(st.none() | TEXT), "tool_calls": calls})
        out += [{"role": "tool", "tool_call_id": c["id"], "content": openai_text_content(draw)} for c in calls]
    out.append({"role": "assistant", "content": openai_text_content(draw)})
    return out


@given(openai_history())
def test_an_openai_history_comes_back_as_the_agent_sent_it(history: list[dict[str, Any]]) -> None:
    assert to_openai(from_openai(history)) == history


@given(pi_history())
def test_pi_messages_survive_the_openai_shape(history: list[dict[str, Any]]) -> None:
    """OpenAI has no error flag on tool messages: that one fact is the agent's to give (`is_error`)."""
    back = from_openai(to_openai(history))
    assert content_of(back) == content_of([{**m, "isError": False} if m["role"] == "toolResult" else m
                                           for m in history])


def test_an_openai_tool_error_marked_by_the_agent_reaches_the_engine_and_never_the_provider() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
    pi = from_openai([{"role": "assistant", "content": None, "tool_calls": [call]},
                      {"role": "tool", "tool_call_id": "c1", "content": "boom", "is_error": True}])
    assert pi[1]["isError"] is True and pi[1]["toolName"] == "bash"
    assert "is_error" not in to_openai(pi)[1]


def test_images_of_several_tool_results_go_back_to_their_own_results() -> None:
    history: list[dict[str, Any]] = [
        {"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "read", "arguments": {}},
                                          {"type": "toolCall", "id": "b", "name": "read", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": "a", "toolName": "read", "isError": False,
         "content": [{"type": "image", "data": "AAA", "mimeType": "image/png"}]},
        {"role": "toolResult", "toolCallId": "b", "toolName": "read", "isError": False,
         "content": [{"type": "text", "text": "two"}, {"type": "image", "data": "BBB", "mimeType": "image/jpeg"}]},
    ]
    wire = to_openai(history)
    assert [m["role"] for m in wire] == ["assistant", "tool", "tool", "user"]
    assert wire[3]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}}
    assert content_of(from_openai(wire)) == content_of(history)


def test_what_pi_cannot_hold_is_refused_in_one_line_naming_the_fix() -> None:
    with pytest.raises(MessageError, match="system prompt"):
        from_openai([{"role": "system", "content": "be brief"}])
    with pytest.raises(MessageError, match="data: URL"):
        from_openai([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}])
    with pytest.raises(MessageError, match="base64"):
        from_anthropic([{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "u"}}]}])


# ----- Anthropic -------------------------------------------------------------------------------------


CACHE_CONTROL = st.sampled_from([{"type": "ephemeral"}, {"type": "ephemeral", "ttl": "1h"}])


def cached(block: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """The block, or the block marked as a prompt-cache breakpoint (which comes back where it was)."""
    return block | st.builds(lambda b, c: {**b, "cache_control": c}, block, CACHE_CONTROL)


def anthropic_image() -> st.SearchStrategy[dict[str, Any]]:
    return cached(st.builds(lambda m, d: {"type": "image", "source": {"type": "base64", "media_type": m, "data": d}},
                            MIME, B64))


def anthropic_text() -> st.SearchStrategy[dict[str, Any]]:
    return cached(st.builds(lambda t: {"type": "text", "text": t}, TEXT))


@st.composite
def anthropic_history(draw: st.DrawFn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "user", "content": draw(
        TEXT | st.lists(anthropic_text() | anthropic_image(), min_size=1, max_size=3))}]
    for turn in range(draw(st.integers(0, 3))):
        calls = [draw(cached(st.just({"type": "tool_use", "id": cid, "name": draw(NAME), "input": draw(ARGS)})))
                 for cid in ids(draw(st.integers(1, 3)), turn)]
        thinking = draw(st.lists(
            st.builds(lambda t, s: {"type": "thinking", "thinking": t, "signature": s}, TEXT, B64)
            | st.builds(lambda d: {"type": "redacted_thinking", "data": d}, B64), max_size=1))
        out.append({"role": "assistant", "content": [*thinking, *draw(st.lists(anthropic_text(), max_size=2)), *calls]})
        results = []
        for c in calls:
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": c["id"], "content": draw(
                TEXT | st.lists(anthropic_text(), min_size=2, max_size=2)
                | st.lists(anthropic_image(), min_size=1, max_size=2))}
            if draw(st.booleans()):
                block["is_error"] = True
            results.append(draw(cached(st.just(block))))
        out.append({"role": "user", "content": [*results, *draw(st.lists(anthropic_text(), max_size=1))]})
    out.append({"role": "assistant", "content": draw(st.lists(anthropic_text(), min_size=1, max_size=2))})
    return out


@given(anthropic_history())
def test_an_anthropic_history_comes_back_as_the_agent_sent_it(history: list[dict[str, Any]]) -> None:
    assert to_anthropic(from_anthropic(history)) == history


@given(pi_history())
def test_pi_messages_survive_the_anthropic_shape(history: list[dict[str, Any]]) -> None:
    assert content_of(from_anthropic(to_anthropic(history))) == content_of(history)


def test_condense_summaries_become_user_text_joined_to_the_next_prompt_for_anthropic() -> None:
    summary = {"role": "custom", "customType": "context-prune-summary", "content": "the summary", "display": True,
               "timestamp": 5}
    wire = to_anthropic([{"role": "assistant", "content": [{"type": "text", "text": "done"}]}, summary,
                         {"role": "user", "content": "next", "timestamp": 6}])
    assert wire == [{"role": "assistant", "content": [{"type": "text", "text": "done"}]},
                    {"role": "user", "content": [{"type": "text", "text": "the summary"},
                                                 {"type": "text", "text": "next"}]}]
