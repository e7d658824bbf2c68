"""The retention measure: which tokens count as tool-given first uses, and how each is classified
from the context a strategy sent (condense/simulate/retention.py)."""

from __future__ import annotations

from typing import Any

from condense.simulate import ObservationMasking, RetentionMeter, find_uses, message_text


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 0}


def call(call_id: str, command: str) -> dict[str, Any]:
    return {"role": "assistant", "stopReason": "toolUse", "timestamp": 0,
            "content": [{"type": "toolCall", "id": call_id, "name": "bash", "arguments": {"command": command}}]}


def reply(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop", "timestamp": 0}


def result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 1}


OLD, LOST, FRESH = "src/old_module.py", "config/settings_v2.toml", "lib/fresh_token.py"

HISTORY = [
    user("fix the bug"),
    call("a", "ls"), result("a", f"the old code: {OLD}\n"),
    call("b", "ls"), result("b", f"settings live in {LOST}."),
    call("c", "ls"), result("c", f"new code: {FRESH} and lib/user_said.py"),
    user("now the second part; also look at lib/user_said.py"),
    reply(f"Editing {OLD}, {LOST} and {FRESH}; lib/user_said.py too. Also parseConfig and a1b2c3d4."),
]
REPLIES = [1, 3, 5, 8]  # the history position of each request's reply


def text_of(context: list[dict[str, Any]]) -> str:
    return "\n".join(message_text(m) for m in context)


def stub(message: dict[str, Any], ref: str) -> dict[str, Any]:
    return {**message, "content": [{"type": "text", "text": f"[pruned: summary here; ref `{ref}`]"}]}


def test_a_first_use_is_a_token_from_an_earlier_tool_output_that_no_one_wrote_before() -> None:
    uses = find_uses(HISTORY, REPLIES)
    assert {u.token for u in uses} == {OLD, LOST, FRESH}, \
        "the user wrote lib/user_said.py; parseConfig and a1b2c3d4 come from no tool output"
    assert all(u.request == 3 and u.earlier_turn for u in uses)
    assert {u.token: u.sources for u in uses} == {OLD: (2,), LOST: (4,), FRESH: (6,)}
    again = [*HISTORY, reply(f"Done with {OLD}.")]
    assert len(find_uses(again, [*REPLIES, 9])) == 3, "a token counts once, at its first use"


def test_visible_behind_a_condense_ref_or_lost() -> None:
    uses = find_uses(HISTORY, REPLIES)
    originals = {"t1": HISTORY[2], "t2": HISTORY[4]}

    def lookup(message: dict[str, Any]) -> tuple[str, str] | None:
        ref = next((r for r, m in originals.items() if m is message), None)
        return None if ref is None else (ref, f"## toolRef: {ref}\n\n{message['content'][0]['text']}")

    condensed = [*HISTORY[:2], stub(HISTORY[2], "t1"), HISTORY[3], stub(HISTORY[4], "t9"), *HISTORY[5:8]]
    meter = RetentionMeter(HISTORY, uses)
    hidden = meter.observe(3, text_of(condensed), lookup)
    assert {(h.token, h.kind, h.source) for h in hidden} == {(OLD, "recoverable", 2), (LOST, "lost", 4)}, \
        "each hidden use names the output a model would fetch again"
    shares = meter.result().all
    assert (shares.visible, shares.recoverable, shares.lost) == (1, 1, 1), \
        "fresh is in the context, old behind t1; the stub of b shows t9, whose query is not b's"
    assert meter.result().earlier_turn == shares

    masked = RetentionMeter(HISTORY, uses)
    masked.observe(3, text_of(ObservationMasking(keep=1).apply(HISTORY[:8])))
    lossy = masked.result().all
    assert (lossy.visible, lossy.recoverable, lossy.lost) == (1, 0, 2)
    assert lossy.visible_share == 1 / 3 and lossy.lost_share == 2 / 3


def test_a_ref_whose_query_does_not_give_the_output_back_whole_is_no_recovery() -> None:
    uses = [u for u in find_uses(HISTORY, REPLIES) if u.token == OLD]
    meter = RetentionMeter(HISTORY, uses)
    meter.observe(3, text_of([stub(HISTORY[2], "t1")]), lambda m: ("t1", "## toolRef: t1\n\nsomething else"))
    assert meter.result().all.lost == 1


def test_requests_that_are_never_observed_count_no_use() -> None:
    meter = RetentionMeter(HISTORY, find_uses(HISTORY, REPLIES))
    meter.observe(2, text_of(HISTORY[:5]))
    assert meter.result().all.uses == 0 and meter.result().all.visible_share is None
