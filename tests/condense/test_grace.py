"""Recovery grace (`src/recovery-grace.test.ts`): which `context_tree_query` results stay verbatim."""

from __future__ import annotations

from typing import Any

from condense.records import QUERY_TOOL
from tests.support.reference import in_grace_recovery_keys


def user(ts: int) -> dict[str, Any]:
    return {"role": "user", "content": "go on", "timestamp": ts}


def result(call_id: str, ts: int, tool: str = QUERY_TOOL) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": tool,
        "content": [{"type": "text", "text": "recovered"}],
        "isError": False,
        "timestamp": ts,
    }


def test_includes_a_recovery_output_in_the_current_user_turn_group_age_0() -> None:
    assert in_grace_recovery_keys([user(1), result("q1", 2)], 3) == {"q1@2"}


def test_includes_a_recovery_output_exactly_k_user_turns_old() -> None:
    messages = [user(1), result("q1", 2), user(3), user(4), user(5)]
    assert in_grace_recovery_keys(messages, 3) == {"q1@2"}


def test_excludes_a_recovery_output_older_than_k_user_turns() -> None:
    messages = [user(1), result("q1", 2), user(3), user(4), user(5), user(6)]
    assert in_grace_recovery_keys(messages, 3) == set()


def test_returns_empty_set_when_grace_disabled_k_0() -> None:
    assert in_grace_recovery_keys([user(1), result("q1", 2)], 0) == set()


def test_ignores_non_recovery_tool_outputs() -> None:
    messages = [user(1), result("r1", 2, tool="read"), result("q1", 3)]
    assert in_grace_recovery_keys(messages, 3) == {"q1@3"}


def test_judges_multiple_recovery_outputs_by_their_own_positions() -> None:
    messages = [user(1), result("old", 2), user(3), result("mid", 4), user(5), user(6), result("new", 7)]
    assert in_grace_recovery_keys(messages, 2) == {"mid@4", "new@7"}
    assert in_grace_recovery_keys(messages, 1) == {"new@7"}


def test_keys_a_timestamped_recovery_output_by_occurrence_not_the_bare_id() -> None:
    keys = in_grace_recovery_keys([user(1), result("reused", 100)], 3)
    assert "reused@100" in keys
    assert "reused" not in keys


def test_does_not_conflate_two_occurrences_of_the_same_reused_bare_id() -> None:
    messages = [user(1), result("reused", 100), user(2), user(3), user(4), user(5), result("reused", 600)]
    assert in_grace_recovery_keys(messages, 3) == {"reused@600"}


def test_a_legacy_result_without_timestamp_is_keyed_by_its_bare_id() -> None:
    legacy = {k: v for k, v in result("q1", 0).items() if k != "timestamp"}
    assert in_grace_recovery_keys([user(1), legacy], 3) == {"q1"}
