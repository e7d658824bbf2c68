"""Scenarios of src/summarizer.test.ts: which summariser answers are usable."""

from __future__ import annotations

from condense.summarize.runner import is_usable_summary


def test_accepts_non_empty_text_that_stopped_normally() -> None:
    assert is_usable_summary("- `t1` read a.ts", "stop") is True


def test_rejects_empty_text() -> None:
    assert is_usable_summary("", "stop") is False


def test_rejects_whitespace_only_text() -> None:
    assert is_usable_summary("  \n\t ", "stop") is False


def test_rejects_truncated_output_even_with_text() -> None:
    assert is_usable_summary("- a summary that was cut", "length") is False
