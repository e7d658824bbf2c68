"""OpenHands' condenser as its SDK runs it: how events are counted, when it condenses, what it keeps,
and what its summariser is asked (condense/simulate/openhands_sdk.py)."""

from __future__ import annotations

from typing import Any

from condense.simulate import CharEncoder, Meter, SdkCondenser
from condense.simulate.openhands_sdk import (
    AGENT_KEEP_FIRST,
    AGENT_MAX_SIZE,
    PREVIEW_CHARS,
    SDK_KEEP_FIRST,
    SDK_MAX_SIZE,
    TEMPLATE_TOKENS,
    cut_points,
)

WINDOW = 200_000


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 0}


def calls(*ids: str, text: str = "", thinking: bool = False, stop: str = "toolUse") -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "thinking", "thinking": "hmm"}] if thinking else []
    content += [{"type": "text", "text": text}] if text else []
    content += [{"type": "toolCall", "id": i, "name": "bash", "arguments": {"command": f"run --secret-arg {i}"}}
                for i in ids]
    return {"role": "assistant", "content": content, "stopReason": stop, "timestamp": 0}


def reply(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop", "timestamp": 0}


def result(call_id: str, text: str = "ok") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 0}


def turns(count: int, start: int = 0, output: str = "ok") -> list[dict[str, Any]]:
    """`count` tool turns of one call each: two events a turn."""
    out: list[dict[str, Any]] = []
    for n in range(start, start + count):
        out += [calls(f"c{n}"), result(f"c{n}", output)]
    return out


def agent_condenser(max_tokens: int = WINDOW) -> SdkCondenser:
    return SdkCondenser(Meter(CharEncoder()), AGENT_MAX_SIZE, AGENT_KEEP_FIRST, max_tokens)


def test_a_reply_with_three_calls_is_three_actions_and_each_result_one_observation() -> None:
    condenser = agent_condenser()
    history = [user("go"), calls("a", "b", "c", text="three at once"), result("a"), result("b"), result("c")]
    condenser.context(history)
    assert [e.kind for e in condenser.view] == ["system", "message", "action", "action", "action",
                                               "observation", "observation", "observation"]
    assert "three at once" in condenser.view[2].text and "three at once" not in condenser.view[3].text, \
        "the reply's text rides on its first action only"
    assert cut_points(condenser.view) == [True, True, True, False, False, False, False, False, True], \
        "never inside one reply's calls, nor between a call and its result"


def test_an_aborted_reply_and_its_results_are_no_events() -> None:
    condenser = agent_condenser()
    condenser.context([user("go"), calls("x", stop="aborted"), result("x"), reply("done")])
    assert [e.kind for e in condenser.view] == ["system", "message", "message"]


def test_the_default_agent_condenses_past_80_events_keeping_the_first_4_and_the_newest_35() -> None:
    condenser = agent_condenser()
    history = [user("task"), *turns(39)]  # system + user + 78 = 80 events
    assert condenser.maybe_compact(history, 1) is None
    history.append(reply("done"))  # 81
    done = condenser.maybe_compact(history, 2)
    assert done is not None
    view = condenser.view
    assert len(view) == 4 + 1 + 35
    assert [e.kind for e in view[:5]] == ["system", "message", "action", "observation", "summary"]
    context = condenser.context(history)
    assert context[:3] == history[:3] and context[4:] == history[-35:]
    assert done.folded == history[3:-35], "events 4 to 45: turns 2 to 22"


def test_the_cut_moves_forward_past_a_reply_whose_calls_straddle_it() -> None:
    condenser = agent_condenser()
    # system, user, turns 0-20 (42 events), then a three-call reply at events 44-49, then 15 turns and a reply
    history = [user("task"), *turns(21), calls("a", "b", "c"), result("a"), result("b"), result("c"),
               *turns(15, start=21), reply("done")]
    assert len(condenser.context(history)) == len(history)
    assert len(condenser.view) == 81
    condenser.maybe_compact(history, 1)
    # the naive end is 81 - 35 = 46, inside the three-call reply (44-49): the cut moves to 50
    assert len(condenser.view) == 4 + 1 + (81 - 50)


def test_a_reply_with_thinking_opens_a_tool_loop_that_is_never_cut() -> None:
    condenser = agent_condenser()
    condenser.context([user("go"), calls("a", thinking=True), result("a"), calls("b"), result("b"),
                       reply("done"), calls("c"), result("c")])
    assert cut_points(condenser.view) == [True, True, True, False, False, False, True, True, False, True]


def test_the_class_defaults_condense_past_240_events_keeping_2_and_117() -> None:
    condenser = SdkCondenser(Meter(CharEncoder()), SDK_MAX_SIZE, SDK_KEEP_FIRST, WINDOW)
    history = [user("task"), *turns(119)]  # 240 events
    assert condenser.maybe_compact(history, 1) is None
    history.append(reply("done"))
    assert condenser.maybe_compact(history, 2) is not None
    assert len(condenser.view) == 2 + 1 + 117
    assert condenser.context(history)[1:] == [condenser.view[2].message, *history[-117:]]


def test_over_the_token_limit_it_keeps_only_what_fits_in_half() -> None:
    meter = Meter(CharEncoder(chars_per_token=1.0), system_tokens=100)
    condenser = SdkCondenser(meter, AGENT_MAX_SIZE, AGENT_KEEP_FIRST, max_tokens=20_000)
    history = [user("task"), *turns(20, output="x" * 1_000)]  # 42 events, about 21,000 tokens
    assert condenser.maybe_compact(history, 1) is not None
    kept = condenser.context(history)
    assert kept[3] is condenser.view[4].message, "the summary comes after the first 4 events"
    assert meter.tokens([*kept[:3], *kept[4:]]) < 20_000 // 2, "what it keeps of the history fits in half"
    assert len(kept) > 4, "and that is still some of it"


def test_the_summariser_reads_500_characters_of_each_event_and_never_a_calls_arguments() -> None:
    condenser = agent_condenser()
    long_output = "".join(f"{n:04d}" for n in range(1_000))  # 4,000 characters
    history = [user("task"), *turns(1), calls("big", text="t" * 600), result("big", long_output),
               *turns(37, start=1), reply("done")]
    done = condenser.maybe_compact(history, 1)
    assert done is not None and done.prompt is not None and done.head_tokens == TEMPLATE_TOKENS
    assert f"Result: {long_output[:PREVIEW_CHARS]}...\n</EVENT>" in done.prompt
    assert long_output[PREVIEW_CHARS:PREVIEW_CHARS + 8] not in done.prompt
    assert f"Thought: {'t' * PREVIEW_CHARS}...\n" in done.prompt
    assert "--secret-arg" not in done.prompt, "an action prints its class name only"
    assert done.prompt.count("<EVENT>") == len(done.folded), "the big reply is one action, its result one"
    meter = condenser.meter
    asked = meter.text_prompt(done.prompt, done.head_tokens)
    assert asked.tokens == TEMPLATE_TOKENS + meter.text_tokens(done.prompt)


def test_the_previous_summary_is_the_first_forgotten_event_and_read_as_497_characters() -> None:
    condenser = agent_condenser()
    history = [user("task"), *turns(39, output="y" * 300), reply("done")]
    first = condenser.maybe_compact(history, 1)
    assert first is not None and len(first.summary) > PREVIEW_CHARS
    summary = condenser.view[4].message
    history += [*turns(40, start=39)]
    second = condenser.maybe_compact(history, 2)
    assert second is not None and second.prompt is not None
    opening = second.prompt.split("</EVENT>", 1)[0]
    assert opening == f"\n<EVENT>\nCondensationSummaryEvent (environment)\n  user: {first.summary[:497]}...\n"
    assert second.folded[0] is summary
