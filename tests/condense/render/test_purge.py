"""Error purge (`src/error-purge.test.ts`, plus the shape-keeping purge of upstream #19).

ARCHITECTURE decision: the purge keeps the arguments' shape. v2.9.1 replaced the whole arguments object
with `{_purged: '<purged-errored-args size="N"/>'}` (N = length of the serialised arguments); here each
string longer than 200 characters becomes `<purged-errored-args size="N"/>` (N = that string's length)
and keys, types and array lengths stay. Scenarios whose expectation differs say so.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.support.reference import purge_errored_args

LONG = "x" * 300
MARKER_300 = '<purged-errored-args size="300"/>'


def assistant(*calls: tuple[str, dict[str, Any]], name: str = "bash", ts: int = 1) -> dict[str, Any]:
    blocks = [{"type": "toolCall", "id": call_id, "name": name, "arguments": args} for call_id, args in calls]
    return {"role": "assistant", "content": blocks, "timestamp": ts}


def result(call_id: str, is_error: bool, ts: int = 2) -> dict[str, Any]:
    text = "Error: file not found" if is_error else "ok"
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
            "content": [{"type": "text", "text": text}], "isError": is_error, "timestamp": ts}


def later_turns(count: int) -> list[dict[str, Any]]:
    """`count` more successful assistant turns after the one under test."""
    out: list[dict[str, Any]] = []
    for n in range(count):
        out += [assistant((f"later{n}", {"cmd": "ls"})), result(f"later{n}", False)]
    return out


def purge(messages: list[Any], cooldown_turns: int = 2, min_arg_chars: int = 10) -> list[Any]:
    return purge_errored_args(messages, enabled=True, cooldown_turns=cooldown_turns,
                              min_arg_chars=min_arg_chars)


def failed_then(args: dict[str, Any], turns_after: int = 2) -> list[dict[str, Any]]:
    return [assistant(("tc1", args)), result("tc1", True), *later_turns(turns_after)]


def args_of(messages: list[Any], position: int = 0, slot: int = 0) -> Any:
    return messages[position]["content"][slot]["arguments"]


# ------------------------------------------------------------------------- the reference's scenarios


def test_returns_input_array_reference_unchanged_when_no_errored_tool_results() -> None:
    messages = [assistant(("tc1", {"cmd": LONG})), result("tc1", False), *later_turns(2)]
    assert purge(messages) is messages


def test_does_not_purge_while_still_within_cooldown() -> None:
    messages = failed_then({"content": LONG}, turns_after=1)  # age 1 < 2
    out = purge(messages)
    assert out is messages
    assert args_of(out) == {"content": LONG}


def test_purges_args_after_cooldown_when_args_meet_min_arg_chars() -> None:
    messages = failed_then({"content": LONG})
    out = purge(messages)
    assert out is not messages
    # v2.9.1: {"_purged": '<purged-errored-args size="314"/>'} (the size of the whole serialised
    # arguments); here the key stays and only the long string shrinks.
    assert args_of(out) == {"content": MARKER_300}
    assert out[1] is messages[1]
    assert out[1]["content"][0]["text"] == "Error: file not found"


def test_does_not_purge_when_args_are_below_min_arg_chars() -> None:
    messages = failed_then({"x": LONG})
    assert purge(messages, min_arg_chars=1000) is messages


def test_does_not_purge_when_is_error_is_false() -> None:
    messages = [assistant(("tc1", {"content": LONG})), result("tc1", False), *later_turns(2)]
    assert purge(messages) is messages


def test_only_purges_errored_tool_calls_in_a_multi_tool_call_assistant_message() -> None:
    ok_args = {"content": LONG}
    messages = [assistant(("tc-err", {"content": LONG}), ("tc-ok", ok_args)),
                result("tc-err", True), result("tc-ok", False), *later_turns(2)]
    out = purge(messages)
    assert args_of(out, slot=0) == {"content": MARKER_300}
    assert args_of(out, slot=1) is ok_args
    assert out[0]["content"][1] is messages[0]["content"][1]


def test_does_not_mutate_the_input_messages_array_or_any_message_object() -> None:
    messages = failed_then({"path": "src/foo.ts", "edits": [{"oldText": LONG, "newText": "x"}]})
    snapshot = copy.deepcopy(messages)
    first, first_args = messages[0], args_of(messages)
    purge(messages)
    assert messages == snapshot
    assert messages[0] is first
    assert args_of(messages) is first_args


def test_exactly_at_cooldown_boundary_age_equals_cooldown_turns_is_purged() -> None:
    out = purge(failed_then({"content": LONG}, turns_after=2), cooldown_turns=2)
    assert args_of(out)["content"] == MARKER_300


def test_one_below_cooldown_boundary_age_equals_cooldown_turns_minus_1_is_not_purged() -> None:
    messages = failed_then({"content": LONG}, turns_after=1)
    assert purge(messages, cooldown_turns=2) is messages


# ----------------------------------------------------------------------- shape-keeping purge (#19)


def test_nested_long_strings_are_purged_and_the_array_length_kept() -> None:
    original = {"path": "src/foo.ts",
                "edits": [{"oldText": "a" * 15000, "newText": "x"}, {"oldText": "y", "newText": "b" * 15000}]}
    out = purge(failed_then(original), min_arg_chars=500)
    assert args_of(out) == {
        "path": "src/foo.ts",
        "edits": [{"oldText": '<purged-errored-args size="15000"/>', "newText": "x"},
                  {"oldText": "y", "newText": '<purged-errored-args size="15000"/>'}],
    }
    assert len(json.dumps(args_of(out))) < 500


def test_short_strings_numbers_booleans_and_null_are_untouched() -> None:
    nested = {"depth": 3, "tags": ["a", "b"]}
    original = {"line": 42, "ratio": 0.5, "force": True, "z": None, "s": "short", "nested": nested,
                "big": "x" * 201}
    out = purge(failed_then(original))
    assert args_of(out) == {**original, "big": '<purged-errored-args size="201"/>'}
    assert list(args_of(out)) == list(original)  # key order kept: the rendered bytes stay deterministic
    assert args_of(out)["nested"] is nested  # untouched containers are shared, not copied


def test_a_string_of_exactly_200_chars_stays_verbatim() -> None:
    messages = failed_then({"s": "x" * 200})
    assert purge(messages) is messages


def test_a_grammar_tools_input_property_stays_a_string() -> None:
    # The reporter's case (#19): a failed `codemode` call whose `code` must stay a string on replay.
    out = purge(failed_then({"code": "x" * 1000}), min_arg_chars=500)
    assert args_of(out) == {"code": '<purged-errored-args size="1000"/>'}


def test_a_body_made_only_of_short_strings_is_returned_by_identity() -> None:
    messages = failed_then({f"k{i}": "v" for i in range(600)})
    assert purge(messages, min_arg_chars=500) is messages


def test_a_second_pass_over_purged_output_returns_the_same_list() -> None:
    messages = failed_then({"path": "src/foo.ts", "content": "x" * 1000})
    out = purge(messages, min_arg_chars=5)
    assert out is not messages
    assert purge(out, min_arg_chars=5) is out


def test_disabled_returns_the_same_list() -> None:
    messages = failed_then({"content": LONG})
    assert purge_errored_args(messages, enabled=False, cooldown_turns=2, min_arg_chars=10) is messages


# ------------------------------------------------------------------------------- reused call ids


def test_a_reused_id_in_a_later_successful_turn_is_not_purged() -> None:
    # The reference keys results by bare id, so an old error would purge every call sharing its id.
    # Each call is paired with the result in its own turn instead.
    messages = [assistant(("bash_1", {"content": LONG})), result("bash_1", True),
                assistant(("bash_1", {"content": LONG})), result("bash_1", False), *later_turns(2)]
    out = purge(messages)
    assert args_of(out, position=0) == {"content": MARKER_300}
    assert out[2] is messages[2]


def test_an_old_successful_call_is_not_purged_for_a_later_error_under_its_id() -> None:
    messages = [assistant(("bash_1", {"content": LONG})), result("bash_1", False),
                assistant(("bash_1", {"content": LONG})), result("bash_1", True), *later_turns(2)]
    out = purge(messages)
    assert out[0] is messages[0]
    assert args_of(out, position=2) == {"content": MARKER_300}


def test_the_age_counts_from_the_erroring_calls_own_turn() -> None:
    # bash_1 failed long ago and again just now: the old call is purged, the fresh one waits its cooldown.
    messages = [assistant(("bash_1", {"content": LONG})), result("bash_1", True), *later_turns(2),
                assistant(("bash_1", {"content": LONG})), result("bash_1", True)]
    out = purge(messages)
    assert args_of(out, position=0) == {"content": MARKER_300}
    assert out[-2] is messages[-2]


def test_a_result_without_a_call_in_its_own_turn_purges_nothing() -> None:
    # An errored result whose call belongs to an earlier turn is not that call's result.
    messages = [assistant(("tc1", {"content": LONG})), result("tc1", False),
                assistant(("tc2", {"cmd": "ls"})), result("tc1", True), *later_turns(2)]
    assert purge(messages) is messages


def test_an_errored_result_before_any_assistant_message_purges_nothing() -> None:
    # A context that starts mid-turn (after a compaction): the result's call is not in the list at all.
    messages = [result("tc1", True), *later_turns(2), assistant(("tc1", {"content": LONG}))]
    assert purge(messages) is messages


def test_the_text_a_model_wrote_that_was_no_json_object_shrinks_like_arguments() -> None:
    """pi-tui keeps such text beside `arguments: {}` and sends it back; a truncated `write` is long."""
    messages = failed_then({})
    call = {**messages[0]["content"][0], "rawArguments": '{"content": "' + LONG}
    messages[0] = {**messages[0], "content": [call]}
    out = purge(messages)
    assert out[0]["content"][0] == {**call, "rawArguments": '<purged-errored-args size="313"/>'}
    short = {**call, "rawArguments": '{"path": '}
    unchanged = [{**messages[0], "content": [short]}, *messages[1:]]
    assert purge(unchanged) is unchanged
