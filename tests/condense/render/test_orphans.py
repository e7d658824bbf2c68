"""Scenarios of src/orphan-sweep.test.ts (phase 4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from condense.messages import AssistantMessage, ToolResultMessage
from tests.support.memory_host import assistant, call, result, user
from tests.support.reference import sweep_orphans


def asst(*ids: str) -> AssistantMessage:
    return assistant(1, *(call(i) for i in ids))


def res(call_id: str) -> ToolResultMessage:
    return result(call_id, "out", 2)


def test_returns_the_same_array_reference_when_there_is_no_orphan() -> None:
    messages = [user("go", 0), asst("a"), res("a")]
    out, swept = sweep_orphans(messages)
    assert out is messages and swept == []


def test_removes_a_tool_result_whose_call_was_never_opened() -> None:
    out, swept = sweep_orphans([user("go", 0), res("ghost")])
    assert swept == ["ghost"] and [m["role"] for m in out] == ["user"]


def test_open_call_tracking_is_per_turn_a_validly_used_id_does_not_license_a_later_orphan() -> None:
    messages = [user("go", 0), asst("a"), res("a"), asst("b"), res("b"), res("a")]
    out, swept = sweep_orphans(messages)
    assert swept == ["a"] and len(out) == 5


def test_legitimate_reuse_of_the_same_bare_id_across_turns_is_kept_not_swept() -> None:
    messages = [user("go", 0), asst("a"), res("a"), asst("a"), res("a")]
    assert sweep_orphans(messages)[0] is messages


def test_a_duplicate_result_for_one_call_is_swept() -> None:
    out, swept = sweep_orphans([user("go", 0), asst("a"), res("a"), res("a")])
    assert swept == ["a"] and len(out) == 3


def test_keeps_results_for_every_id_of_a_multi_call_assistant_turn() -> None:
    messages = [user("go", 0), asst("a", "b", "c"), res("c"), res("a"), res("b")]
    assert sweep_orphans(messages)[0] is messages


BARRIERS: list[Mapping[str, Any]] = [
    {"role": "custom", "customType": "note", "content": "x", "display": False, "timestamp": 1},
    user("steer", 1),
    {"role": "branchSummary", "summary": "s", "fromId": "x", "timestamp": 1},
    {"role": "compactionSummary", "summary": "s", "tokensBefore": 1, "timestamp": 1},
    {"role": "bashExecution", "command": "ls", "output": "", "exitCode": 0, "cancelled": False,
     "truncated": False, "timestamp": 1},
    {"role": "future-role", "timestamp": 1},
]


@pytest.mark.parametrize("barrier", BARRIERS, ids=[b["role"] for b in BARRIERS])
def test_a_barrier_role_between_call_and_result_sweeps_the_result(barrier: dict[str, Any]) -> None:
    out, swept = sweep_orphans([asst("a"), barrier, res("a")])
    assert swept == ["a"] and out == [asst("a"), barrier]


def test_multi_call_turn_barrier_sweeps_only_the_not_yet_consumed_result() -> None:
    _, swept = sweep_orphans([asst("a", "b"), res("a"), BARRIERS[0], res("b")])
    assert swept == ["b"]


def test_trailing_barrier_after_a_completed_cycle_is_a_no_op() -> None:
    messages = [asst("a"), res("a"), BARRIERS[0]]
    assert sweep_orphans(messages)[0] is messages


def test_a_reply_calling_one_id_twice_vouches_for_two_results_not_three() -> None:
    """The second result of such a reply used to be swept: its output never reached the model."""
    messages = [user("go", 0), asst("a", "a"), res("a"), res("a")]
    out, swept = sweep_orphans(messages)
    assert out is messages and swept == []
    out, swept = sweep_orphans([*messages, res("a")])
    assert swept == ["a"] and len(out) == 4
