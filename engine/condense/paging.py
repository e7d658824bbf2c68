"""Pages of one recovered output: `context_tree_query` answers at most 2,000 lines / 50 KB at a time.

The first page is Pi's head truncation, byte for byte as before, so the answers a session already
holds and the renders built on them stay the same. Beyond it, every byte stays reachable: a page
starts at any line (and, inside a line longer than the cap, at any character), a search lists the
matching lines with their numbers, and a page that stops short says exactly which call gives the rest.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from condense.blobs import utf8_bytes
from condense.plural import counted
from condense.records import QUERY_TOOL

MAX_LINES = 2000
MAX_BYTES = 50 * 1024
MATCH_CHARS = 500  # of a matching line longer than this, the stretch around the match is shown
MATCH_LEAD = 100  # characters shown before the match in such a stretch


@dataclass(frozen=True)
class Page:
    """Which part of an output to show: from line `offset`, character `column` of that line (both
    1-based), at most `limit` lines, or only the lines containing `pattern` (plain text, any case), at
    most `limit` of them, looked for up to line `last` (`pi-tui query --lines A-B --grep`)."""

    offset: int = 1
    column: int = 1
    limit: int | None = None
    pattern: str | None = None
    last: int | None = None


FIRST_PAGE = Page()


@dataclass(frozen=True)
class _Lines:
    lines: list[str]

    @classmethod
    def of(cls, text: str) -> _Lines:
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()  # a trailing newline ends the last line, it does not start another
        return cls(lines)

    @property
    def total(self) -> int:
        return len(self.lines)


def page_text(text: str, ref: str, page: Page = FIRST_PAGE) -> str:
    """`text` as the page asks, with a last line saying where it stands when it is not the whole text.
    `ref` is what the model passes to ask for the next page."""
    if page.pattern is not None:
        return _matches(_Lines.of(text), ref, page)
    if page == FIRST_PAGE:
        return _first_page(text, ref)
    return _window(_Lines.of(text), ref, page)


def _first_page(text: str, ref: str) -> str:
    """Pi's `truncateHead`: whole lines from the top within both limits (kept byte-identical)."""
    lines = _Lines.of(text)
    if lines.total <= MAX_LINES and len(utf8_bytes(text)) <= MAX_BYTES:
        return text
    kept = _whole_lines(lines.lines, 0, MAX_LINES)
    if kept == lines.total:  # only the final newline was over the limit
        return text
    if kept == 0:  # the first line alone is over the byte limit: show its head
        return _window(lines, ref, FIRST_PAGE)
    shown = "\n".join(lines.lines[:kept])
    return f"{shown}\n[Output truncated: {kept}/{lines.total} lines shown. {_continue(ref, FIRST_PAGE, kept + 1)}]"


def _whole_lines(lines: list[str], start: int, most: int, used: int = -1) -> int:
    """How many whole lines from `start` fit in `most` lines and the byte limit, `used` bytes being shown
    already (-1: nothing, so the first line needs no line break before it)."""
    count = 0
    for line in lines[start : start + most]:
        used += len(utf8_bytes(line)) + 1
        if used > MAX_BYTES:
            break
        count += 1
    return count


def _head_chars(text: str, max_bytes: int) -> int:
    """How many characters of `text` fit in `max_bytes` UTF-8 bytes, never splitting a character."""
    data = utf8_bytes(text)
    if len(data) <= max_bytes:
        return len(text)
    end = max_bytes
    while end > 0 and data[end] & 0xC0 == 0x80:  # a continuation byte: step back to a boundary
        end -= 1
    return len(data[:end].decode("utf-8", "surrogatepass"))


def _window(lines: _Lines, ref: str, page: Page) -> str:
    """Lines from `page.offset` (its first one from `page.column`), within the limits."""
    start, skip = page.offset - 1, page.column - 1
    if start >= lines.total or skip > len(lines.lines[start]):
        where = f"Line {page.offset}" if start >= lines.total else f"Character {page.column} of line {page.offset}"
        return f"[{where} is past the end: the output has {counted(lines.total, 'line')}]"
    most = min(MAX_LINES, page.limit or MAX_LINES)
    first = lines.lines[start][skip:]
    if len(utf8_bytes(first)) > MAX_BYTES:  # one line over the cap: cut inside it
        cut = _head_chars(first, MAX_BYTES)
        end = skip + cut
        shown = (f"line {page.offset} of {lines.total}, characters {skip + 1}-{end} of "
                 f"{len(lines.lines[start])} shown")
        return f"{first[:cut]}\n[Output truncated: {shown}. {_continue(ref, page, page.offset, end + 1)}]"
    used = len(utf8_bytes(first))
    kept = 1 + _whole_lines(lines.lines, start + 1, most - 1, used)
    last = start + kept  # 1-based number of the last line shown
    body = "\n".join([first, *lines.lines[start + 1 : last]])
    shown = f"lines {page.offset}-{last} of {lines.total}" + (f" (line {page.offset} from character "
                                                             f"{page.column})" if skip else "")
    if last >= lines.total:
        return f"{body}\n[{shown[0].upper()}{shown[1:]} shown: the end of the output]"
    return f"{body}\n[Output truncated: {shown} shown. {_continue(ref, page, last + 1, shown=kept)}]"


def _matches(lines: _Lines, ref: str, page: Page) -> str:
    """The lines from `page.offset` on that contain the pattern, numbered, within the limits."""
    pattern = page.pattern or ""
    most = min(MAX_LINES, page.limit or MAX_LINES)
    found: list[str] = []
    used = 0
    quoted = json.dumps(pattern, ensure_ascii=False)
    end = lines.total if page.last is None else min(page.last, lines.total)
    for number, text in _matching(lines.lines[:end], pattern, page.offset):
        used += len(utf8_bytes(text)) + (1 if found else 0)
        if len(found) == most or used > MAX_BYTES:
            shown = f"{counted(len(found), 'matching line')} shown, lines {page.offset}-{number - 1} of {lines.total}"
            more = _continue(ref, page, number, shown=len(found))
            return "\n".join([*found, f"[Output truncated: {shown}. {more}]"])
        found.append(text)
    searched = f"lines {page.offset}-{end}" if page.offset > 1 or end < lines.total else counted(end, "line")
    verb = "contains" if len(found) == 1 else "contain"
    return "\n".join([*found, f"[{len(found)} of {searched} {verb} {quoted}]"])


def _matching(lines: list[str], pattern: str, offset: int) -> Iterator[tuple[int, str]]:
    """(line number, what to show) for each line from `offset` containing `pattern` in any case: the
    whole line, or for a long one the stretch around the first match and where it starts."""
    needle = re.compile(re.escape(pattern), re.IGNORECASE)  # a literal: linear time on any line
    for number in range(offset, len(lines) + 1):
        line = lines[number - 1]
        match = needle.search(line)
        if match is None:
            continue
        if len(line) <= MATCH_CHARS:
            yield number, f"{number}: {line}"
            continue
        start = max(0, min(match.start() - MATCH_LEAD, len(line) - MATCH_CHARS))
        end = start + MATCH_CHARS
        yield number, f"{number}: [characters {start + 1}-{end} of {len(line)}] {line[start:end]}"


def _continue(ref: str, page: Page, offset: int, column: int = 1, shown: int = 0) -> str:
    """The call that gives the rest, as the model writes it: a page the size limits cut short goes on
    for the lines its `limit` still asked for, one its `limit` ended asks for as many again."""
    arguments: dict[str, object] = {"toolCallIds": [ref], "offset": offset}
    if column > 1:
        arguments["column"] = column
    if page.limit is not None:
        arguments["limit"] = page.limit - shown if shown < page.limit else page.limit
    if page.pattern is not None:
        arguments["pattern"] = page.pattern
    return f"Continue with {QUERY_TOOL}({json.dumps(arguments, ensure_ascii=False)})"

