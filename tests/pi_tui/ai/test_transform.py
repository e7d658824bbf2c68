"""transform_messages: Pi's provider transform, plus dropping results whose call is gone."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pi_tui.ai.openai_format import to_openai_messages
from pi_tui.ai.transform import model_api, transform_messages
from pi_tui.ai.types import ModelSpec
from tests.support.fake_openai import validate_request

MODEL = ModelSpec(provider="openai", id="gpt-x")
OTHER = ModelSpec(provider="anthropic", id="claude-y")


def user(text: str, ts: int) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": ts}


def assistant(*blocks: dict[str, Any], ts: int = 0, stop: str = "stop", spec: ModelSpec = MODEL) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks), "api": model_api(spec), "provider": spec.provider,
            "model": spec.id, "usage": {}, "stopReason": stop, "timestamp": ts}


def call(call_id: str, name: str = "ls", **extra: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {}, **extra}


def result(call_id: str, ts: int = 0, name: str = "ls") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": "out"}], "isError": False, "timestamp": ts}


def synthetic(call_id: str, ts: int, name: str = "ls") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": "No result provided"}], "isError": True, "timestamp": ts}


def blocks_for(message: dict[str, Any], model: ModelSpec) -> list[dict[str, Any]]:
    return transform_messages([message], model)[0]["content"]  # type: ignore[list-item, return-value]  # a dict message; its content as dicts


# --- pass 1 ---------------------------------------------------------------------------------------


def test_signed_thinking_is_kept_verbatim_for_the_same_model() -> None:
    block = {"type": "thinking", "thinking": "", "thinkingSignature": "sig"}
    assert blocks_for(assistant(block), MODEL)[0] is block


def test_thinking_becomes_plain_text_for_another_model() -> None:
    block = {"type": "thinking", "thinking": "because", "thinkingSignature": "sig"}
    assert blocks_for(assistant(block, spec=OTHER), MODEL) == [{"type": "text", "text": "because"}]


def test_empty_thinking_is_dropped_unless_signed_by_the_same_model() -> None:
    empty = {"type": "thinking", "thinking": "  \n"}
    assert blocks_for(assistant(empty), MODEL) == []
    assert blocks_for(assistant(empty, spec=OTHER), MODEL) == []


def test_unsigned_thinking_of_the_same_model_is_kept() -> None:
    block = {"type": "thinking", "thinking": "hmm"}
    assert blocks_for(assistant(block), MODEL) == [block]


def test_redacted_thinking_survives_only_for_the_same_model() -> None:
    redacted = {"type": "thinking", "thinking": "", "thinkingSignature": "opaque", "redacted": True}
    assert blocks_for(assistant(redacted), MODEL) == [redacted]
    assert blocks_for(assistant(redacted, spec=OTHER), MODEL) == []


def test_provider_signatures_on_text_and_calls_are_dropped_across_models() -> None:
    text = {"type": "text", "text": "hi", "textSignature": "msg_1"}
    tool = call("c1", thoughtSignature="g")
    out = transform_messages([assistant(text, tool, spec=OTHER), result("c1")], MODEL)  # type: ignore[list-item]
    assert out[0]["content"] == [{"type": "text", "text": "hi"}, call("c1")]
    same = transform_messages([assistant(text, tool), result("c1")], MODEL)  # type: ignore[list-item]
    assert same[0]["content"] == [text, tool]


def test_anthropic_replies_count_as_the_same_model_under_their_own_api() -> None:
    spec = ModelSpec(provider="anthropic", id="claude-y")  # default api field is openai-completions
    block = {"type": "thinking", "thinking": "t", "thinkingSignature": "sig"}
    message = assistant(block, spec=spec)
    assert message["api"] == "anthropic-messages"
    assert blocks_for(message, spec) == [block]


# --- pass 2 ---------------------------------------------------------------------------------------


def test_unanswered_calls_get_a_synthetic_error_stamped_with_the_next_message_time() -> None:
    turn = assistant(call("a"), call("b", "read"), ts=2)
    messages = [user("go", 1), turn, result("a", 3), user("stop", 40)]
    out = transform_messages(messages, MODEL)  # type: ignore[arg-type]
    assert out == [messages[0], messages[1], messages[2], synthetic("b", 40, "read"), messages[3]]


def test_a_following_assistant_also_closes_the_pending_calls() -> None:
    messages = [user("go", 1), assistant(call("a"), ts=2), assistant({"type": "text", "text": "x"}, ts=7)]
    out = transform_messages(messages, MODEL)  # type: ignore[arg-type]
    assert out == [messages[0], messages[1], synthetic("a", 7), messages[2]]


def test_errored_and_aborted_turns_are_skipped_and_their_results_dropped() -> None:
    messages = [
        user("go", 1),
        assistant(call("a"), ts=2, stop="error"),
        result("a", 3),
        assistant(call("b"), ts=4, stop="aborted"),
        user("again", 5),
    ]
    assert transform_messages(messages, MODEL) == [messages[0], messages[4]]  # type: ignore[arg-type]


def test_an_errored_turn_still_closes_the_calls_before_it() -> None:
    messages = [user("go", 1), assistant(call("a"), ts=2), assistant(ts=6, stop="error"), user("u", 9)]
    out = transform_messages(messages, MODEL)  # type: ignore[arg-type]
    assert out == [messages[0], messages[1], synthetic("a", 6), messages[3]]


def test_orphan_calls_at_the_very_end_get_nothing() -> None:
    messages = [user("go", 1), assistant(call("a"), ts=2)]
    assert transform_messages(messages, MODEL) is messages  # type: ignore[arg-type]


def test_results_without_a_pending_call_are_dropped() -> None:
    messages = [
        user("go", 1),
        result("ghost", 2),
        assistant(call("a"), ts=3),
        result("a", 4),
        result("a", 5),
        user("next", 6),
        result("a", 7),
    ]
    out = transform_messages(messages, MODEL)  # type: ignore[arg-type]
    assert out == [messages[0], messages[2], messages[3], messages[5]]


def test_a_valid_history_comes_back_as_the_same_list() -> None:
    messages = [user("go", 1), assistant(call("a"), ts=2), result("a", 3), assistant(ts=4), user("u", 5)]
    assert transform_messages(messages, MODEL) is messages  # type: ignore[arg-type]


def test_inputs_are_not_mutated_and_output_is_deterministic() -> None:
    messages = [
        user("go", 1),
        assistant(
            {"type": "thinking", "thinking": "t", "thinkingSignature": "s"},
            call("a", thoughtSignature="g"),
            ts=2,
            spec=OTHER,
        ),
        user("u", 5),
    ]
    before = copy.deepcopy(messages)
    first = transform_messages(messages, MODEL)  # type: ignore[arg-type]
    second = transform_messages(messages, MODEL)  # type: ignore[arg-type]
    assert messages == before
    assert first == second


# --- property: whatever the history, a strict provider accepts it ---------------------------------

_step = st.sampled_from(["user", "assistant", "calls", "error", "result", "stray"])


def _history(steps: list[str], call_counts: list[int]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    last_calls: list[str] = []
    for i, (step, count) in enumerate(zip(steps, call_counts, strict=False)):
        ts = i + 1
        if step == "user":
            messages.append(user(f"u{i}", ts))
        elif step in ("assistant", "calls", "error"):
            ids = [f"c{i}_{k}" for k in range(count)] if step != "assistant" else []
            text = {"type": "text", "text": f"a{i}"}
            messages.append(assistant(text, *(call(c) for c in ids), ts=ts,
                                      stop="error" if step == "error" else "toolUse"))
            last_calls = ids
        elif step == "result" and last_calls:
            messages.append(result(last_calls.pop(0), ts))
        elif step == "stray":
            messages.append(result(f"gone{i}", ts))
    messages.append(user("final", len(steps) + 1))
    return messages


@given(st.lists(_step, max_size=25), st.lists(st.integers(1, 3), min_size=25, max_size=25))
def test_any_history_ending_in_a_user_message_is_accepted_by_a_strict_provider(
    steps: list[str], call_counts: list[int]
) -> None:
    messages = _history(steps, call_counts)
    # the builders' replies carry an empty usage, which the transform does not read
    body = {"model": "m", "messages": to_openai_messages("sys", transform_messages(messages, MODEL), MODEL)}  # type: ignore[arg-type]
    validate_request(body)
