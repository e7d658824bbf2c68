"""Scenarios of src/occurrence-key.test.ts."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from condense import Condenser, FileLog
from condense.engine import CondenseEngine
from condense.occurrence import (
    Copies,
    ParsedKey,
    bare_id,
    message_key,
    numbered,
    occ_key,
    originals,
    parse_occ_key,
    result_timestamp_of,
)
from condense.records import SUMMARY
from condense.render.stub import summarized_stub
from tests.support.memory_host import Driver, MemoryHost, assistant, call, make, result, user
from tests.support.session_checks import index_records


def test_occ_key_joins_id_and_timestamp() -> None:
    assert occ_key("bash_23", 1700) == "bash_23@1700"


def test_occ_key_returns_the_bare_id_when_the_timestamp_is_absent() -> None:
    assert occ_key("bash_23", None) == "bash_23"


def test_parse_occ_key_round_trips() -> None:
    assert parse_occ_key("bash_23@1700") == ParsedKey("bash_23", 1700)


def test_parse_occ_key_treats_a_key_with_no_separator_as_a_bare_id() -> None:
    assert parse_occ_key("bash_23") == ParsedKey("bash_23", None)


def test_parse_occ_key_treats_a_trailing_non_numeric_segment_as_part_of_a_bare_id() -> None:
    assert parse_occ_key("call_abc@sha") == ParsedKey("call_abc@sha", None)  # copilot ids may contain '@'


def test_parse_occ_key_splits_on_the_last_separator_so_ids_containing_at_survive() -> None:
    assert parse_occ_key("call@abc@1700") == ParsedKey("call@abc", 1700)


def test_parse_occ_key_needs_an_id_before_the_separator() -> None:
    assert parse_occ_key("@1700") == ParsedKey("@1700", None)


def test_bare_tool_call_id_strips_the_suffix() -> None:
    assert bare_id("bash_23@1700") == "bash_23"


def test_bare_tool_call_id_passes_a_bare_id() -> None:
    assert bare_id("bash_23") == "bash_23"


def test_result_timestamp_of_passes_a_number() -> None:
    assert result_timestamp_of(1700) == 1700


def test_result_timestamp_of_rejects_undefined_strings_and_null() -> None:
    assert result_timestamp_of(None) is None
    assert result_timestamp_of("1700") is None
    assert result_timestamp_of(True) is None


def test_result_timestamp_of_nan() -> None:
    # The reference passes NaN through (typeof number); JSON cannot carry NaN and a NaN key could never
    # match again, so we treat NaN (and infinities) as no timestamp.
    assert result_timestamp_of(math.nan) is None
    assert result_timestamp_of(math.inf) is None


# ----- a result repeating an earlier result's id and timestamp -----------------------------------------


def test_a_repeat_s_key_carries_its_number_and_parses_back() -> None:
    assert occ_key("bash_23", 1700, 2) == "bash_23@1700#2"
    assert occ_key("bash_23", 1700, 1) == "bash_23@1700"  # the first keeps the key it always had
    assert parse_occ_key("bash_23@1700#2") == ParsedKey("bash_23", 1700, 2)
    assert parse_occ_key("call@x@1700#3") == ParsedKey("call@x", 1700, 3)
    assert parse_occ_key("bash_23@1700#1") == ParsedKey("bash_23@1700#1", None)  # never written: an id
    assert parse_occ_key("bash_23@1700#") == ParsedKey("bash_23@1700#", None)


def test_numbering_copies_only_the_repeats_and_gives_them_back_as_they_came() -> None:
    first, other, repeat = result("c1", "alpha", 50), result("c2", "x", 50), result("c1", "bravo", 50)
    messages: list[Any] = [user("go", 1), assistant(10, call("c1"), call("c2"), call("c1")), first, other, repeat]
    copies: Copies = {}
    out = numbered(messages, copies)
    assert out[:4] == messages[:4] and all(a is b for a, b in zip(out[:4], messages[:4], strict=True))
    assert [message_key(m) for m in out[2:]] == ["c1@50", "c2@50", "c1@50#2"]
    assert numbered(messages, copies)[4] is out[4]  # the same copy every time: renders stay incremental
    assert numbered(out, copies) == out  # numbering a numbered list changes nothing
    assert originals(out, copies) is not out and originals(out, copies)[4] is repeat
    unrepeated = messages[:4]
    assert numbered(unrepeated) is unrepeated


async def two_outputs_in_one_millisecond(same_reply: bool) -> tuple[MemoryHost, CondenseEngine, Driver]:
    """`call_1` answered twice at 50 ms: by two replies (a reused id, a clock that stood still) or by one
    reply that called the id twice."""
    host, engine, driver = make({"chain_compression": {"rolling_window": 3}})
    host.add_message(user("go", 1))
    replies = [[("alpha", "a.py"), ("bravo", "b.py")]] if same_reply else [[("alpha", "a.py")], [("bravo", "b.py")]]
    for turn, outputs in enumerate(replies):
        await engine.before_request(10 + turn)
        message = assistant(10 + turn, *(call("call_1", "bash", command=f"cat {path}") for _, path in outputs))
        host.add_message(message)
        results = [result("call_1", word * 400, 50, "bash") for word, _ in outputs]
        for item in results:
            host.add_message(item)
        await engine.on_turn_end(message, results, turn)
        driver.turn += 1
    await driver.final(60)
    return host, engine, driver


@pytest.mark.parametrize("same_reply", [False, True], ids=["two-replies", "one-reply"])
async def test_two_outputs_sharing_an_id_and_a_millisecond_are_both_recovered(same_reply: bool) -> None:
    host, engine, driver = await two_outputs_in_one_millisecond(same_reply)
    results = [m for m in driver.render() if m["role"] == "toolResult"]
    assert [r["content"][0]["text"] for r in results] == [summarized_stub("t1"), summarized_stub("t2")]
    assert all("occurrence" not in r for r in results)  # the numbering never leaves the engine
    assert [key for key, _ in engine.index.get_records_for_id("call_1")] == ["call_1@50", "call_1@50#2"]
    assert "alpha" in engine.query(["t1"])[0] and "bravo" in engine.query(["t2"])[0]
    both = engine.query(["call_1"])[0]
    assert "## toolRef: call_1@50\n" in both and "## toolRef: call_1@50#2\n" in both and "bravo" in both
    named = [ref for e in host.entries if e.get("customType") == SUMMARY for ref in e["details"]["toolCallRefs"]]
    assert [ref.get("resultOccurrence") for ref in named] == [None, 2]  # the first as it always was
    assert index_records(host.entries) == [], "each summary stands for the records of its outputs"


async def test_the_orphan_sweep_keeps_both_results_of_a_reply_that_called_one_id_twice() -> None:
    host, _, driver = make()
    host.add_message(user("go", 1))
    message = assistant(10, call("call_1", "bash", command="ls a"), call("call_1", "bash", command="ls b"))
    host.add_message(message)
    for word in ("alpha", "bravo"):
        host.add_message(result("call_1", word, 50, "bash"))
    swept = [m for m in driver.render() if m["role"] == "toolResult"]
    assert [m["content"][0]["text"] for m in swept] == ["alpha", "bravo"]
    assert host.custom("context-prune-diagnostic") == []


@pytest.mark.parametrize("same_reply", [False, True], ids=["two-replies", "one-reply"])
async def test_the_keys_of_repeats_hold_across_a_reopen(same_reply: bool, tmp_path: Path) -> None:
    host, engine, driver = await two_outputs_in_one_millisecond(same_reply)
    before = driver.render()
    reopened = CondenseEngine(host, engine.config)
    reopened.on_session_start()
    assert reopened.render(host.messages()) == before
    assert "bravo" in reopened.query(["t2"])[0] and "alpha" in reopened.query(["t1"])[0]
    store = FileLog(tmp_path)
    for entry in host.entries:
        store.append(entry["type"], {k: v for k, v in entry.items() if k not in ("type", "id", "parentId")})
    store.close()
    # the same branch, read back from a session file
    with Condenser(tmp_path, config={"chain_compression": {"rolling_window": 3}}) as library:
        assert "bravo" in library.query(["t2"]) and "alpha" in library.query(["call_1@50"])
