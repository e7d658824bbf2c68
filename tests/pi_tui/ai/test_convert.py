"""convert_to_llm: Pi's convertToLlm, byte for byte."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pi_tui.ai.convert import bash_execution_text, convert_to_llm


def bash(**fields: Any) -> dict[str, Any]:
    base = {"role": "bashExecution", "command": "ls -la", "output": "a\nb", "exitCode": 0,
            "cancelled": False, "truncated": False, "timestamp": 5}
    return {**base, **fields}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, "Ran `ls -la`\n```\na\nb\n```"),
        ({"output": ""}, "Ran `ls -la`\n(no output)"),
        ({"exitCode": 2}, "Ran `ls -la`\n```\na\nb\n```\n\nCommand exited with code 2"),
        ({"exitCode": None}, "Ran `ls -la`\n```\na\nb\n```"),
        ({"cancelled": True, "exitCode": 130}, "Ran `ls -la`\n```\na\nb\n```\n\n(command cancelled)"),
        (
            {"truncated": True, "fullOutputPath": "/tmp/out.log"},
            "Ran `ls -la`\n```\na\nb\n```\n\n[Output truncated. Full output: /tmp/out.log]",
        ),
        ({"truncated": True}, "Ran `ls -la`\n```\na\nb\n```"),
    ],
)
def test_bash_execution_text_matches_pi(fields: dict[str, Any], expected: str) -> None:
    assert bash_execution_text(bash(**fields)) == expected


def test_bash_execution_becomes_a_user_text_message_unless_excluded() -> None:
    out = convert_to_llm([bash(), bash(excludeFromContext=True, command="secret")])  # type: ignore[list-item]
    assert out == [{"role": "user", "content": [{"type": "text", "text": "Ran `ls -la`\n```\na\nb\n```"}],
                    "timestamp": 5}]


def test_custom_string_content_becomes_one_text_block_and_display_details_are_ignored() -> None:
    custom = {"role": "custom", "customType": "note", "content": "hello", "display": False,
              "details": {"x": 1}, "timestamp": 9}
    assert convert_to_llm([custom]) == [  # type: ignore[list-item]
        {"role": "user", "content": [{"type": "text", "text": "hello"}], "timestamp": 9}
    ]


def test_custom_block_content_passes_through() -> None:
    blocks = [{"type": "text", "text": "t"}, {"type": "image", "data": "AAA", "mimeType": "image/png"}]
    custom = {"role": "custom", "customType": "x", "content": blocks, "display": True, "timestamp": 1}
    assert convert_to_llm([custom]) == [{"role": "user", "content": blocks, "timestamp": 1}]  # type: ignore[list-item]


def test_summaries_use_pis_exact_wrappers() -> None:
    branch = {"role": "branchSummary", "summary": "did X", "fromId": "abcd1234", "timestamp": 3}
    compaction = {"role": "compactionSummary", "summary": "did Y", "tokensBefore": 9000, "timestamp": 4}
    out = convert_to_llm([branch, compaction])  # type: ignore[list-item]
    assert out[0]["content"][0]["text"] == (  # type: ignore[index, typeddict-item]  # one text block
        "The following is a summary of a branch that this conversation came back from:\n\n"
        "<summary>\ndid X</summary>"
    )
    assert out[1]["content"][0]["text"] == (  # type: ignore[index, typeddict-item]  # one text block
        "The conversation history before this point was compacted into the following summary:\n\n"
        "<summary>\ndid Y\n</summary>"
    )
    assert [m["timestamp"] for m in out] == [3, 4]


def test_standard_roles_pass_through_as_the_same_objects_and_unknown_roles_are_dropped() -> None:
    user = {"role": "user", "content": "hi", "timestamp": 1}
    result = {"role": "toolResult", "toolCallId": "c", "toolName": "ls", "content": [], "isError": False,
              "timestamp": 2}
    out = convert_to_llm([user, {"role": "mystery", "timestamp": 3}, result])  # type: ignore[list-item]
    assert len(out) == 2
    assert out[0] is user
    assert out[1] is result


def test_a_list_needing_no_rewrite_is_returned_as_is() -> None:
    messages = [{"role": "user", "content": "hi", "timestamp": 1}]
    assert convert_to_llm(messages) is messages  # type: ignore[arg-type]


def test_inputs_are_never_mutated() -> None:
    messages = [
        bash(),
        {"role": "custom", "customType": "n", "content": "c", "display": True, "timestamp": 2},
        {"role": "branchSummary", "summary": "s", "fromId": "f", "timestamp": 3},
        {"role": "user", "content": [{"type": "text", "text": "u"}], "timestamp": 4},
    ]
    before = copy.deepcopy(messages)
    out = convert_to_llm(messages)  # type: ignore[arg-type]
    out[0]["content"].append({"type": "text", "text": "later"})  # type: ignore[union-attr]
    assert messages == before
