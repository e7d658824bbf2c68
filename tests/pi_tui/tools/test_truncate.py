"""Limits shared by the tools: which limit wins, whole lines only for heads, partial tails."""

from pi_tui.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    append_notices,
    format_size,
    split_lines,
    truncate_head,
    truncate_line,
    truncate_tail,
)


def test_constants_match_pi() -> None:
    assert (DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH) == (2000, 51200, 500)


def test_format_size_units() -> None:
    assert format_size(0) == "0B"
    assert format_size(1023) == "1023B"
    assert format_size(1024) == "1.0KB"
    assert format_size(1536) == "1.5KB"
    assert format_size(DEFAULT_MAX_BYTES) == "50.0KB"
    assert format_size(1024 * 1024) == "1.0MB"
    assert format_size(10 * 1024 * 1024 + 512 * 1024) == "10.5MB"


def test_split_lines_trailing_newline_ends_a_line() -> None:
    assert split_lines("") == []
    assert split_lines("a\nb\n") == ["a", "b"]
    assert split_lines("a\nb") == ["a", "b"]
    assert split_lines("\n") == [""]


def test_head_exactly_at_line_limit_is_untouched() -> None:
    content = "x\n" * 2000
    cut = truncate_head(content)
    assert not cut.truncated and cut.content == content and cut.total_lines == 2000


def test_head_one_line_over_the_limit_keeps_2000() -> None:
    content = "\n".join(str(i) for i in range(1, 2002))
    cut = truncate_head(content)
    assert cut.truncated and cut.truncated_by == "lines"
    assert cut.output_lines == 2000 and cut.total_lines == 2001
    assert cut.content.split("\n")[-1] == "2000"


def test_head_byte_limit_keeps_whole_lines() -> None:
    content = "\n".join("y" * 99 for _ in range(1000))  # 100 bytes per line with its newline
    cut = truncate_head(content)
    assert cut.truncated_by == "bytes"
    assert cut.output_lines == 512  # 512 * 100 - 1 <= 51200 < 513 * 100 - 1
    assert cut.output_bytes == len(cut.content.encode()) <= DEFAULT_MAX_BYTES
    assert all(line == "y" * 99 for line in cut.content.split("\n"))


def test_head_byte_boundary() -> None:
    assert not truncate_head("z" * DEFAULT_MAX_BYTES).truncated
    assert not truncate_head("z" * DEFAULT_MAX_BYTES + "\n").truncated  # only the final newline is over
    over = truncate_head("a\n" + "z" * DEFAULT_MAX_BYTES)
    assert over.truncated and over.content == "a" and over.truncated_by == "bytes"


def test_head_first_line_over_the_limit_gives_nothing() -> None:
    cut = truncate_head("q" * (DEFAULT_MAX_BYTES + 1) + "\nshort")
    assert cut.content == "" and cut.first_line_exceeds_limit and cut.output_lines == 0


def test_tail_keeps_the_end() -> None:
    content = "\n".join(str(i) for i in range(1, 3001)) + "\n"
    cut = truncate_tail(content)
    assert cut.truncated_by == "lines" and cut.output_lines == 2000 and cut.total_lines == 3000
    assert cut.content.split("\n")[0] == "1001" and cut.content.endswith("3000")


def test_tail_byte_limit_keeps_whole_lines() -> None:
    content = "\n".join("w" * 99 for _ in range(1000))
    cut = truncate_tail(content)
    assert cut.truncated_by == "bytes" and cut.output_lines == 512 and not cut.last_line_partial


def test_tail_partial_last_line_cuts_on_a_character_boundary() -> None:
    line = "é" * 30_000  # 60,000 bytes
    cut = truncate_tail("first\n" + line)
    assert cut.last_line_partial and cut.output_lines == 1
    assert cut.output_bytes <= DEFAULT_MAX_BYTES and DEFAULT_MAX_BYTES - cut.output_bytes <= 1
    assert set(cut.content) == {"é"}


def test_details_are_camel_case_without_content() -> None:
    details = truncate_head("\n".join(["x"] * 2001)).to_details()
    assert details["truncatedBy"] == "lines" and details["totalLines"] == 2001
    assert details["outputLines"] == 2000 and "content" not in details
    assert set(details) >= {"truncated", "totalBytes", "outputBytes", "maxLines", "maxBytes"}


def test_truncate_line_and_notices() -> None:
    assert truncate_line("a" * 500) == ("a" * 500, False)
    assert truncate_line("a" * 501) == ("a" * 500 + "... [truncated]", True)
    assert append_notices("out", []) == "out"
    assert append_notices("out", ["one", "two"]) == "out\n\n[one. two]"
