"""Scenarios of src/occurrence-key.test.ts."""

from __future__ import annotations

import math

from condense.occurrence import ParsedKey, bare_id, occ_key, parse_occ_key, result_timestamp_of


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
