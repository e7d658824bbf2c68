"""Every byte of a recovered output is reachable: following each page's notice gives the output back
whole, however long its lines; a search finds a line by its text and says its number."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from condense.messages import content_text
from condense.paging import FIRST_PAGE, MAX_BYTES, MAX_LINES, Page, page_text
from condense.query import QueryArguments
from pi_tui.session.store import Session
from tests.conftest import corpus_path

_NEXT = re.compile(r"\[Output truncated: [^\n]*\. Continue with context_tree_query\((\{.*\})\)\]\Z")
_END = re.compile(r"\n?\[Lines \d+-\d+ of \d+[^\n]* shown: the end of the output\]\Z")

LOG = "\n".join(f"{n:05d} INFO served in {n % 97:2d}s" for n in range(1, 10_001))  # 10,000 lines of 24 characters


def follow(text: str, ref: str = "t1") -> tuple[str, int]:
    """Read `text` the way a model does: first page, then whatever each notice says to ask for next.
    The text read back and the number of calls it took."""
    page, read, calls = FIRST_PAGE, "", 0
    while True:
        calls += 1
        answer = page_text(text, ref, page)
        assert len(answer.encode()) <= MAX_BYTES + 300  # a page and its notice
        more = _NEXT.search(answer)
        if more is None:
            return read + _END.sub("", answer), calls
        body = answer[: more.start()].removesuffix("\n")
        arguments = QueryArguments.model_validate(json.loads(more.group(1)))
        assert arguments.toolCallIds == [ref]
        page = arguments.page()
        read += body if page.column > 1 else body + "\n"


def test_a_one_line_268_kb_output_is_read_whole_in_pages() -> None:
    output = "".join(f"{{\"id\": {n}, \"name\": \"item-{n}\"}}," for n in range(9_000))[:268_000]
    first = page_text(output, "t7")
    assert first.startswith(output[:MAX_BYTES])  # Pi's head truncation showed none of it
    assert first.endswith('Continue with context_tree_query({"toolCallIds": ["t7"], "offset": 1, "column": 51201})]')
    assert follow(output) == (output, 6)


def test_line_9999_of_a_240_kb_log_is_reached_by_offset_and_by_search() -> None:
    assert len(LOG.encode()) > 240 * 1024
    line = LOG.split("\n")[9998]
    assert line not in page_text(LOG, "t2")
    assert page_text(LOG, "t2", Page(offset=9999, limit=1)) == (
        f"{line}\n[Output truncated: lines 9999-9999 of 10000 shown. Continue with "
        'context_tree_query({"toolCallIds": ["t2"], "offset": 10000, "limit": 1})]')
    assert page_text(LOG, "t2", Page(pattern="09999 info")) == f'9999: {line}\n[1 of 10000 lines contains "09999 info"]'
    assert follow(LOG) == (LOG, 5)  # five pages of 2,000 lines (50,000 bytes each)


def test_a_page_from_an_offset_ends_by_saying_it_reached_the_end() -> None:
    assert page_text("a\nb\nc\n", "t1", Page(offset=2)) == "b\nc\n[Lines 2-3 of 3 shown: the end of the output]"
    assert page_text("a\nb", "t1", Page(offset=3)) == "[Line 3 is past the end: the output has 2 lines]"
    assert page_text("ab\nc", "t1", Page(offset=1, column=4)) == (
        "[Character 4 of line 1 is past the end: the output has 2 lines]")


def test_a_line_range_shorter_than_the_output_says_where_the_next_lines_start() -> None:
    shown = page_text(LOG, "t2", Page(offset=100, limit=3)).split("\n")
    assert shown[:3] == LOG.split("\n")[99:102]
    assert shown[3].endswith('Continue with context_tree_query({"toolCallIds": ["t2"], "offset": 103, "limit": 3})]')


def test_a_range_wider_than_a_page_goes_on_for_the_lines_it_still_asked_for() -> None:
    shown = page_text(LOG, "t2", Page(offset=1, limit=2500))
    assert shown.count("\n") == MAX_LINES
    assert shown.endswith('{"toolCallIds": ["t2"], "offset": 2001, "limit": 500})]')
    assert page_text(LOG, "t2", Page(offset=2001, limit=500)).split("\n")[-2] == LOG.split("\n")[2499]


def test_a_search_numbers_each_matching_line_and_pages_on_when_too_many_match() -> None:
    answer = page_text(LOG, "t2", Page(pattern="in 96s"))
    lines = answer.split("\n")
    assert lines[0] == f"96: {LOG.split(chr(10))[95]}"
    assert lines[-1] == '[103 of 10000 lines contain "in 96s"]'
    many = page_text(LOG, "t2", Page(pattern="INFO")).split("\n")
    shown = "\n".join(many[:-1])
    assert len(shown) <= MAX_BYTES < len(shown) + len(f"\n{len(many)}: ") + 24  # as many as 50 KB holds
    assert many[-2].startswith("1687: ")
    assert many[-1] == ('[Output truncated: 1687 matching lines shown, lines 1-1687 of 10000. Continue with '
                        'context_tree_query({"toolCallIds": ["t2"], "offset": 1688, "pattern": "INFO"})]')
    assert len(page_text(LOG, "t2", Page(pattern="INFO", limit=10)).split("\n")) == 11
    assert page_text(LOG, "t2", Page(pattern="ERROR")) == '[0 of 10000 lines contain "ERROR"]'


def test_a_search_shows_the_stretch_around_a_match_in_a_long_line_and_where_it_starts() -> None:
    output = "a" * 200_000 + "NEEDLE" + "b" * 68_000
    answer = page_text(output, "t1", Page(pattern="needle"))
    assert answer.startswith("1: [characters 199901-200400 of 268006] " + "a" * 100 + "NEEDLE")
    assert page_text(output, "t1", Page(offset=1, column=200_001)).startswith("NEEDLE")


def test_a_pattern_is_plain_text_not_a_regular_expression() -> None:
    assert page_text("a.c\nabc\n(x+)+y", "t1", Page(pattern="a.c")) == '1: a.c\n[1 of 3 lines contains "a.c"]'
    assert page_text("(x+)+y\n" + "x" * 50_000, "t1", Page(pattern="(x+)+y")).startswith("1: (x+)+y\n")


def corpus_outputs() -> list[str]:
    """Every tool output of the four Pi corpus sessions, as recorded (without a final line break, which a
    page does not keep)."""
    outputs = []
    for name in ("pi-before-compaction.jsonl", "pi-compact-hooks.jsonl", "pi-compaction-check.jsonl",
                 "pi-large-session.jsonl"):
        for entry in Session.open(corpus_path(name)).entries:  # every branch
            message = entry.get("message") or {}
            if message.get("role") == "toolResult":
                outputs.append(content_text(message.get("content") or []).removesuffix("\n"))
    return outputs


def test_every_output_of_the_corpus_is_read_back_whole() -> None:
    """Four of them are over one page: a `read` of 50 KB plus its own notice. Their last lines were out of
    reach before."""
    outputs = corpus_outputs()
    calls = [follow(output) for output in outputs]
    assert [read for read, _ in calls] == outputs
    assert (len(outputs), sum(1 for _, n in calls if n > 1)) == (1439, 4)


@given(st.lists(st.text(alphabet=st.sampled_from(["a", "é", "€", "𝄞", " "]), max_size=40_000), min_size=1,
                max_size=8))
def test_following_the_notices_gives_back_any_output_whole(lines: list[str]) -> None:
    """Cuts inside a line never split a character, whatever its UTF-8 length."""
    output = "\n".join(lines)
    read, _ = follow(output)
    assert read == output
