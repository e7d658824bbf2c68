"""Scenarios of src/chain-detector.test.ts: which spans of a branch are chains, and what they hold."""

from __future__ import annotations

from functools import partial
from typing import Any

from condense.chains import branch_messages, detect_chains, with_closing_message
from condense.protect import is_protected
from tests.support.chains import call, calls, final, result, summary_message, synthetic, user


def protect_tools(*names: str) -> Any:
    return partial(is_protected, protected_tools=set(names), protected_paths=[])


def read_and_todo_chain() -> list[dict[str, Any]]:
    return [
        user(1),
        calls(2, call("tc-read", "read"), call("tc-todo", "todowrite")),
        result(None, "tc-read", "x", name="read"),
        result(None, "tc-todo", "plan", name="todowrite"),
        final(5),
    ]


# ----- detect_chains -------------------------------------------------------------------------------


def test_empty_input_returns_empty_array() -> None:
    assert detect_chains([]) == []


def test_single_complete_chain_produces_one_range() -> None:
    messages = [user(100), calls(200, "tc1", "tc2"), result(300, "tc1"), result(310, "tc2"), final(400)]
    [chain] = detect_chains(messages)
    assert chain.start_user_timestamp == 100
    assert chain.middle_tool_call_ids == ("tc1", "tc2")
    assert chain.final_assistant_timestamp == 400


def test_multi_chain_sequence_produces_n_ranges_in_order() -> None:
    messages = [user(100), calls(200, "tc1"), result(300, "tc1"), final(400),
                user(500), calls(600, "tc2"), result(700, "tc2"), final(800)]
    chains = detect_chains(messages)
    assert [(c.start_user_timestamp, c.final_assistant_timestamp) for c in chains] == [(100, 400), (500, 800)]


def test_open_chain_no_text_only_close_is_not_emitted() -> None:
    assert detect_chains([user(100), calls(200, "tc1"), result(300, "tc1")]) == []


def test_synthetic_chain_message_is_not_treated_as_a_chain_start() -> None:
    assert detect_chains([synthetic(50), final(200)]) == []


def test_synthetic_chain_message_in_a_real_multi_chain_sequence_is_a_passthrough() -> None:
    messages = [synthetic(50), user(100), calls(200, "tc1"), result(300, "tc1"), final(400)]
    assert [c.start_user_timestamp for c in detect_chains(messages)] == [100]


def test_interrupted_chain_user_interrupts_before_text_only_close_emits_with_null_final() -> None:
    messages = [user(100), calls(200, "tc1"), result(300, "tc1"), user(400), final(500)]
    interrupted, conversational = detect_chains(messages)
    assert (interrupted.start_user_timestamp, interrupted.final_assistant_timestamp) == (100, None)
    assert interrupted.closed is False
    # a round without tools is still a chain: it is the selector that ignores it
    assert (conversational.start_user_timestamp, conversational.final_assistant_timestamp) == (400, 500)
    assert conversational.middle_tool_call_ids == ()


def test_agent_message_flush_closing_assistant_absent_from_branch_newest_chain_reads_as_open() -> None:
    branch = [user(100), calls(200, "tc1"), result(300, "tc1"), final(400),
              user(500), calls(600, "tc2"), result(700, "tc2")]  # the closing reply is not saved yet
    assert [c.start_user_timestamp for c in detect_chains(branch)] == [100]


def test_middle_tool_call_ids_contains_all_tool_call_ids_from_assistant_and_tool_result_messages() -> None:
    messages = [user(100), calls(200, "tc1", "tc2"), result(300, "tc1"), result(310, "tc2"),
                calls(400, "tc3"), result(500, "tc3"), result(510, "orphan-result"), final(600)]
    [chain] = detect_chains(messages)
    assert chain.middle_tool_call_ids == ("tc1", "tc2", "tc3", "orphan-result")


# ----- protected ids ---------------------------------------------------------------------------------


def test_is_empty_when_no_protected_tools_are_given() -> None:
    [chain] = detect_chains(read_and_todo_chain())
    assert chain.protected_tool_call_ids == ()
    assert sorted(chain.middle_tool_call_ids) == ["tc-read", "tc-todo"]


def test_collects_protected_ids_by_tool_name_from_both_branches() -> None:
    [chain] = detect_chains(read_and_todo_chain(), protect_tools("todowrite"))
    assert chain.protected_tool_call_ids == ("tc-todo",)
    assert sorted(chain.middle_tool_call_ids) == ["tc-read", "tc-todo"]
    # a result whose call is outside the chain is still judged by its tool name
    lone_result = [user(1), result(None, "tc-x", name="todowrite"), final(3)]
    [lone] = detect_chains(lone_result, protect_tools("todowrite"))
    assert lone.protected_tool_call_ids == ("tc-x",)


def test_does_not_leak_protected_ids_across_consecutive_chains() -> None:
    messages = [
        user(1), calls(2, call("tc-todo", "todowrite")), result(None, "tc-todo", "p", name="todowrite"),
        final(4),
        user(5), calls(6, call("tc-read", "read")), result(None, "tc-read", "x", name="read"), final(8),
    ]
    first, second = detect_chains(messages, protect_tools("todowrite"))
    assert first.protected_tool_call_ids == ("tc-todo",)
    assert second.protected_tool_call_ids == ()
    assert second.middle_tool_call_ids == ("tc-read",)


def test_collects_protected_ids_by_args_path_via_predicate() -> None:
    by_path = partial(is_protected, protected_tools=set(), protected_paths=["**/skills/**/*.md"])
    skill = {"type": "toolCall", "id": "tc-skill", "name": "read", "input": {"path": "/h/skills/x/SKILL.md"}}
    messages = [
        user(1),
        calls(2, skill, call("tc-src", "read", {"path": "/h/src/app.py"})),
        result(3, "tc-skill", "skill text", name="read"),
        result(4, "tc-src", "source", name="read"),
        final(5),
    ]
    [chain] = detect_chains(messages, by_path)
    assert chain.protected_tool_call_ids == ("tc-skill",)


def test_populates_protected_tool_call_ids_on_an_interrupted_open_new_user_chain() -> None:
    messages = [user(1), calls(2, call("tc-todo", "todowrite")),
                result(None, "tc-todo", "p", name="todowrite"), user(4)]
    [interrupted] = detect_chains(messages, protect_tools("todowrite"))
    assert interrupted.final_assistant_timestamp is None
    assert interrupted.protected_tool_call_ids == ("tc-todo",)


# ----- occurrence keys -------------------------------------------------------------------------------


def test_emits_one_occurrence_key_per_middle_tool_result() -> None:
    [chain] = detect_chains([user(1000), calls(1100, "bash_1"), result(1150, "bash_1"), final(1200)])
    assert chain.middle_occurrence_keys == ("bash_1@1150",)


def test_a_tool_call_with_no_result_contributes_no_occurrence_key() -> None:
    [chain] = detect_chains([user(1000), calls(1100, "bash_1"), final(1200)])
    assert chain.middle_tool_call_ids == ("bash_1",)
    assert chain.middle_occurrence_keys == ()


def test_two_chains_reusing_one_id_get_distinct_occurrence_keys() -> None:
    messages = [user(1000), calls(1100, "bash_23"), result(1150, "bash_23"), final(1200),
                user(2000), calls(2100, "bash_23"), result(2150, "bash_23"), final(2200)]
    first, second = detect_chains(messages)
    assert first.middle_tool_call_ids == second.middle_tool_call_ids == ("bash_23",)
    assert first.middle_occurrence_keys == ("bash_23@1150",)
    assert second.middle_occurrence_keys == ("bash_23@2150",)


def test_an_interrupted_chain_still_reports_the_keys_it_collected() -> None:
    messages = [user(1000), calls(1100, "bash_1", "bash_2"), result(1150, "bash_1"), result(1160, "bash_2"),
                user(2000)]
    [interrupted] = detect_chains(messages)
    assert interrupted.final_assistant_timestamp is None
    assert interrupted.middle_occurrence_keys == ("bash_1@1150", "bash_2@1160")


# ----- with_closing_message ----------------------------------------------------------------------------


def test_undefined_closing_returns_the_same_array_reference() -> None:
    messages = [user(100)]
    assert with_closing_message(messages, None) is messages


def test_appends_closing_when_branch_does_not_already_end_with_it() -> None:
    branch = [user(100), calls(200, "tc1"), result(300, "tc1")]
    closing = final(400)
    merged = with_closing_message(branch, closing)
    assert len(merged) == 4
    assert merged[3] is closing
    assert len(branch) == 3  # not mutated


def test_does_not_double_append_when_branch_already_ends_with_the_closing_message_role_timestamp() -> None:
    closing = final(400)
    branch = [user(100), calls(200, "tc1"), result(300, "tc1"), closing]
    assert with_closing_message(branch, closing) is branch
    other = [user(100), final(400)]
    assert with_closing_message(other, final(400)) is other  # a distinct object, same role and timestamp


def test_threading_the_closing_message_makes_the_newest_chain_close_effective_window_k() -> None:
    branch = [user(100), calls(200, "tc1"), result(300, "tc1"), final(400),
              user(500), calls(600, "tc2"), result(700, "tc2")]
    chains = detect_chains(with_closing_message(branch, final(800)))
    assert len(chains) == 2
    assert (chains[1].start_user_timestamp, chains[1].final_assistant_timestamp) == (500, 800)


# ----- our choices beyond the reference scenarios ------------------------------------------------------


def test_custom_messages_neither_open_nor_interrupt_a_chain() -> None:
    """pi-condense 2.10.0 let other extensions' custom messages open chains; we keep 2.9.1's rule."""
    def note(ts: int) -> dict[str, Any]:
        return {"role": "custom", "customType": "other-extension", "content": "note", "display": True,
                "timestamp": ts}

    messages = [note(50), user(100), calls(200, "tc1"), result(300, "tc1"),
                summary_message(310, [("tc1", 300)]), note(320), final(400)]
    [chain] = detect_chains(messages)
    assert (chain.start_user_timestamp, chain.final_assistant_timestamp) == (100, 400)
    assert chain.middle_tool_call_ids == ("tc1",)


def test_branch_messages_reads_only_message_entries_in_order() -> None:
    branch = [
        {"type": "message", "id": "a", "message": user(1)},
        {"type": "custom", "customType": "context-prune-index", "data": {}},
        {"type": "message", "id": "b", "message": final(2)},
    ]
    assert branch_messages(branch) == [user(1), final(2)]
