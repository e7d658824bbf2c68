"""`pi-tui query`: what `context_tree_query` would return for refs of a session, as the model would read it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from condense import unknown_refs
from condense.config import CondenseConfig
from condense.paging import FIRST_PAGE, Page
from pi_tui.errors import UserError
from pi_tui.modes.offline import offline_engine
from pi_tui.session.store import Session

_RANGE = re.compile(r"(\d+)(?:-(\d*))?")


@dataclass(frozen=True)
class QueryAnswer:
    text: str
    missing: list[str]  # refs the session does not know: a script must not take "not found" for an answer


def query_refs(session: Session, config: CondenseConfig, refs: list[str], page: Page = FIRST_PAGE) -> QueryAnswer:
    engine, _ = offline_engine(session, config)
    text, _ = engine.query(refs, page)
    return QueryAnswer(text, unknown_refs(engine, refs))


def query_page(offset: int | None, column: int | None, lines: str | None, grep: str | None) -> Page:
    """The page the command's options ask for: the tool's offset, column, limit and pattern."""
    for flag, value in (("--offset", offset), ("--column", column)):
        if value is not None and value < 1:
            raise UserError(f"{flag} {value}: give a number from 1 (the first line or character)")
    if lines is not None and offset is not None:
        raise UserError("--lines and --offset both say where to start: give one of them")
    if grep is not None and not grep:
        raise UserError("--grep: the text is empty; give the text to look for")
    start, limit = _line_range(lines) if lines is not None else (offset or 1, None)
    if grep is not None and limit is not None:  # a search's limit counts what it finds: the range says where it looks
        return Page(start, column or 1, None, grep, last=start + limit - 1)
    return Page(start, column or 1, limit, grep)


def _line_range(text: str) -> tuple[int, int | None]:
    """`A-B` (lines A to B), `A-` (from A on) or `A` (line A alone): the first line and how many."""
    match = _RANGE.fullmatch(text.strip())
    first = int(match.group(1)) if match else 0
    last = match.group(2) if match else None
    end = first if last is None else int(last) if last else None
    if match is None or first < 1 or (end is not None and end < first):
        raise UserError(f"--lines {text!r}: give line numbers from 1, like 100-200, 100- or 100")
    return first, None if end is None else end - first + 1
