"""Context metrics (`src/context-metrics.test.ts`).

The reference takes the branch already projected to messages; `compute_context_metrics` takes the branch's
session entries (what the host's `branch()` returns) and projects them itself, so the fixtures wrap each
message in a `message` entry. Expected values are recomputed here from JavaScript's conventions
(`JSON.stringify(x).length`, `Math.round`), not from the module under test.
"""

from __future__ import annotations

import json
import math
from typing import Any

from condense.frontier import Frontier
from condense.metrics import ContextMetrics, compute_context_metrics

# ---------------------------------------------------------------------------------------- fixtures


def user(ts: int, text: str = "do the thing") -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def call(call_id: str, name: str = "bash", args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": args or {}}


def thinking(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": text, "thinkingSignature": "sig"}


def with_tools(ts: int, *calls: dict[str, Any], think: str | None = None) -> dict[str, Any]:
    blocks = ([thinking(think)] if think else []) + [{"type": "text", "text": "working..."}, *calls]
    return {"role": "assistant", "content": blocks, "timestamp": ts, "usage": {}, "stopReason": "toolUse"}


def text_reply(ts: int, text: str = "done", think: str | None = None) -> dict[str, Any]:
    blocks = ([thinking(think)] if think else []) + [{"type": "text", "text": text}]
    return {"role": "assistant", "content": blocks, "timestamp": ts, "usage": {}, "stopReason": "stop"}


def tool_result(ts: int, call_id: str, name: str = "bash", text: str = "output") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": ts}


def entries(*messages: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "message", "id": f"{n:08x}", "parentId": f"{n - 1:08x}" if n else None,
             "timestamp": "2026-03-15T10:00:00.000Z", "message": m} for n, m in enumerate(messages)]


def chars(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def js_round(value: float) -> int:
    return math.floor(value + 0.5)


def tokens(value: Any) -> int:
    return js_round(chars(value) / 4)


def share(part: list[dict[str, Any]], whole: list[dict[str, Any]]) -> int:
    return js_round(100 * sum(map(chars, part)) / sum(map(chars, whole)))


def at_frontier(call_id: str, turn_index: int) -> Frontier:
    return Frontier(last_attempted_tool_call_id=call_id, last_attempted_tool_name="bash",
                    last_attempted_turn_index=turn_index, attempted_batch_count=1,
                    attempted_tool_call_count=1)


def never(*_: Any) -> bool:
    return False


def metrics(messages: list[dict[str, Any]], frontier: Frontier | None = None, is_summarized: Any = never,
            is_protected: Any = never) -> ContextMetrics:
    return compute_context_metrics(entries(*messages), frontier, is_summarized, is_protected)


def big_closed_chain() -> list[dict[str, Any]]:
    big_result = tool_result(300, "tc1", text="x" * 2000)
    return [user(100), with_tools(200, call("tc1")), big_result, text_reply(400)]


def reads_skills(tool_name: str, args: dict[str, Any]) -> bool:
    return tool_name == "read" and "/skills/" in str(args.get("path", ""))


# ----------------------------------------------------------------------------- open-cycle thinking


def test_empty_branch_all_zeros() -> None:
    assert compute_context_metrics([], None, never, never) == ContextMetrics(0, 0, 0)


def test_open_segment_thinking_only_counts_thinking_blocks_strictly_after_the_last_text_only_assistant(
) -> None:
    open_block = thinking("open thought that survives")
    open_turn = with_tools(800, call("tc2"))
    open_turn["content"].insert(0, open_block)
    messages = [
        user(100), text_reply(200, think="excluded thought A"),
        user(300), with_tools(400, call("tc1")), tool_result(500, "tc1"),
        text_reply(600, think="excluded thought B"),
        user(700), open_turn, tool_result(900, "tc2"),
    ]
    assert metrics(messages).open_cycle_thinking_tokens == tokens(open_block)


def test_zero_text_only_assistants_whole_branch_is_the_open_segment() -> None:
    only = thinking("the only thought")
    turn = {"role": "assistant", "content": [only, call("tc1")], "timestamp": 200, "usage": {},
            "stopReason": "toolUse"}
    assert metrics([user(100), turn, tool_result(300, "tc1")]).open_cycle_thinking_tokens == tokens(only)


def test_no_thinking_blocks_anywhere_open_cycle_thinking_tokens_is_0() -> None:
    messages = [user(100), with_tools(200, call("tc1")), tool_result(300, "tc1")]
    assert metrics(messages).open_cycle_thinking_tokens == 0


# ------------------------------------------------------------------------------ largest chain share


def test_closed_chain_larger_than_open_segment_chain_dominates() -> None:
    chain = big_closed_chain()
    messages = [*chain, user(500), text_reply(600)]  # the last reply is text-only: the open segment is empty
    pct = metrics(messages).largest_chain_share_pct
    assert pct == share(chain, messages)
    assert 0 < pct < 100


def test_open_segment_larger_than_any_closed_chain_open_segment_dominates() -> None:
    chain = [user(100), with_tools(200, call("tc1")), tool_result(300, "tc1"), text_reply(400)]
    open_segment = [user(500), with_tools(600, call("tc2")), tool_result(700, "tc2", text="y" * 3000)]
    messages = chain + open_segment
    assert sum(map(chars, open_segment)) > sum(map(chars, chain))
    assert metrics(messages).largest_chain_share_pct == share(open_segment, messages)


def test_a_projected_custom_message_counts_toward_the_denominator_only_never_the_chain_numerator() -> None:
    # The reference's name: "a projected custom_message entry (role "custom") counts toward the
    # denominator only, never the chain numerator".
    chain = big_closed_chain()
    closer = text_reply(500, "ok")
    summary_entry = {"type": "custom_message", "id": "0000000a", "parentId": "00000003",
                     "timestamp": "1970-01-01T00:00:00.450Z", "customType": "context-prune-summary",
                     "content": "s" * 3000, "display": True}
    # What the entry puts into the context (Pi's projection): role "custom", the entry's time in ms.
    projected = {"role": "custom", "customType": "context-prune-summary", "content": "s" * 3000,
                 "display": True, "timestamp": 450}
    without = compute_context_metrics(entries(*chain), None, never, never)
    branch = [*entries(*chain), summary_entry, *entries(closer)]
    with_summary = compute_context_metrics(branch, None, never, never)
    assert without.largest_chain_share_pct == 100
    assert with_summary.largest_chain_share_pct == share(chain, [*chain, projected, closer])
    assert with_summary.largest_chain_share_pct < without.largest_chain_share_pct


def test_interrupted_chain_null_final_assistant_timestamp_is_counted() -> None:
    interrupted = [user(100), with_tools(200, call("tc1")), tool_result(300, "tc1", text="z" * 5000)]
    messages = [*interrupted, user(400), text_reply(500)]
    pct = metrics(messages).largest_chain_share_pct
    assert pct == share(interrupted, messages)
    assert pct > 0


def test_empty_branch_denominator_is_0_gives_0_not_nan() -> None:
    assert compute_context_metrics([], None, never, never).largest_chain_share_pct == 0


# ------------------------------------------------------------------------------------ frontier gap


TWO_CALLS = [user(100), with_tools(200, call("tc1"), call("tc2")),
             tool_result(300, "tc1"), tool_result(310, "tc2")]


def test_null_frontier_whole_branch_counted() -> None:
    assert metrics(TWO_CALLS).frontier_gap_tokens == tokens(TWO_CALLS[2]) + tokens(TWO_CALLS[3])


def test_boundary_mid_turn_split_excludes_at_or_before_calls_includes_later_calls_in_same_turn() -> None:
    assert metrics(TWO_CALLS, at_frontier("tc1", 0)).frontier_gap_tokens == tokens(TWO_CALLS[3])


def test_bare_id_miss_id_not_present_in_the_matched_turn_whole_branch_counted() -> None:
    gap = metrics(TWO_CALLS, at_frontier("tc-does-not-exist", 0)).frontier_gap_tokens
    assert gap == tokens(TWO_CALLS[2]) + tokens(TWO_CALLS[3])


def test_turn_index_not_found_in_branch_whole_branch_counted() -> None:
    messages = [user(100), with_tools(200, call("tc1")), tool_result(300, "tc1")]
    assert metrics(messages, at_frontier("tc1", 99)).frontier_gap_tokens == tokens(messages[2])


def test_excludes_a_tool_result_whose_occurrence_key_is_already_summarized() -> None:
    messages = [user(100), with_tools(200, call("tc1")), tool_result(300, "tc1")]
    assert metrics(messages, is_summarized=lambda key: key == "tc1@300").frontier_gap_tokens == 0


def test_excludes_a_tool_result_from_a_protected_tool_args_looked_up_from_the_pairing_tool_call() -> None:
    messages = [user(100), with_tools(200, call("tc1", "read", {"path": "/skills/secret.md"})),
                tool_result(300, "tc1", "read")]
    assert metrics(messages, is_protected=reads_skills).frontier_gap_tokens == 0


def test_exact_value_pin_frontier_gap_tokens_equals_math_round_json_stringify_msg_length_over_4() -> None:
    result_msg = tool_result(300, "tc1", text="a fixed output payload")
    messages = [user(100), with_tools(200, call("tc1")), result_msg]
    expected = js_round(len(json.dumps(result_msg, separators=(",", ":"))) / 4)
    assert metrics(messages).frontier_gap_tokens == expected


def test_a_tool_call_id_reused_in_a_later_turn_past_the_boundary_still_counts_its_result() -> None:
    later = tool_result(700, "tc1", text="y" * 196)
    messages = [user(100), with_tools(200, call("tc1")), tool_result(300, "tc1"), text_reply(400),
                user(500), with_tools(600, call("tc1")), later]
    assert metrics(messages, at_frontier("tc1", 0)).frontier_gap_tokens == tokens(later)


def test_args_pairing_for_a_reused_id_uses_the_nearest_preceding_assistants_tool_call_not_a_global_id_map(
) -> None:
    messages = [user(100), with_tools(200, call("tc1", "read", {"path": "/normal.md"})),
                tool_result(300, "tc1", "read"), text_reply(400),
                user(500), with_tools(600, call("tc1", "read", {"path": "/skills/secret.md"})),
                tool_result(700, "tc1", "read")]
    assert metrics(messages, is_protected=reads_skills).frontier_gap_tokens == tokens(messages[2])


# ------------------------------------------------------------------------------------ our additions


def test_to_json_uses_the_persisted_camel_case_keys() -> None:
    assert ContextMetrics(12000, 62, 195000).to_json() == {
        "openCycleThinkingTokens": 12000, "largestChainSharePct": 62, "frontierGapTokens": 195000,
    }


def test_token_estimates_round_half_up_like_math_round() -> None:
    # Find a result of 4k+2 characters with k even: Python's round() would give k, Math.round gives k+1.
    result_msg = next(r for n in range(8) if chars(r := tool_result(300, "tc1", text="a" * n)) % 8 == 2)
    gap = metrics([user(100), with_tools(200, call("tc1")), result_msg]).frontier_gap_tokens
    assert gap == chars(result_msg) // 4 + 1
    assert gap != round(chars(result_msg) / 4)


def test_non_ascii_text_counts_one_character_per_character() -> None:
    result_msg = tool_result(300, "tc1", text="é" * 400)
    gap = metrics([user(100), with_tools(200, call("tc1")), result_msg]).frontier_gap_tokens
    assert gap == tokens(result_msg)
    assert gap < js_round(len(json.dumps(result_msg, separators=(",", ":"))) / 4)  # not 6 per "\u00e9"


def test_session_records_that_are_not_in_the_context_are_ignored() -> None:
    chain = [user(100), with_tools(200, call("tc1")), tool_result(300, "tc1"), text_reply(400)]
    bookkeeping: list[dict[str, Any]] = [
        {"type": "custom", "id": "0000000b", "customType": "context-prune-index", "data": {"x": "y" * 900}},
        {"type": "model_change", "id": "0000000c", "provider": "anthropic", "modelId": "m"},
    ]
    result = compute_context_metrics([*entries(*chain), *bookkeeping], None, never, never)
    assert result.largest_chain_share_pct == 100


def test_a_frontier_written_as_an_occurrence_key_finds_its_call() -> None:
    assert metrics(TWO_CALLS, at_frontier("tc1@300", 0)).frontier_gap_tokens == tokens(TWO_CALLS[3])


def test_the_frontier_turn_index_counts_every_assistant_message_from_zero() -> None:
    # Turn 0 is a text-only reply; the tool turn is turn 1, as capture numbers it.
    messages = [user(50), text_reply(60), *TWO_CALLS]
    assert metrics(messages, at_frontier("tc1", 1)).frontier_gap_tokens == tokens(TWO_CALLS[3])
    whole = tokens(TWO_CALLS[2]) + tokens(TWO_CALLS[3])
    assert metrics(messages, at_frontier("tc1", 0)).frontier_gap_tokens == whole
