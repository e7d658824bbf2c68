"""Reading back a session file that writers raced or a full disk interrupted: does every entry hang on
the tree, is no temporary file left behind, and which turns did it keep; what its index records name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from condense.index import named_records
from condense.occurrence import result_entries
from condense.record_bursts import records_of
from condense.records import INDEX
from pi_tui.session.store import Session


def by_text(session: Session) -> dict[str, dict[str, Any]]:
    """Message entries by their first text block, in file order."""
    return {e["message"]["content"][0]["text"]: e for e in session.entries
            if e["type"] == "message" and e["message"]["role"] in ("user", "assistant")
            and e["message"]["content"] and e["message"]["content"][0].get("type") == "text"}


def first_texts(session: Session) -> list[str]:
    """The first text of each user and assistant message in the file: which turns survived, in order."""
    return list(by_text(session))


def index_records(entries: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The records of each index entry of a branch as pi-condense's dicts (call id, result time): a
    compact record names its output by its result entry's id."""
    results = result_entries(entries)
    return [named_records(data, results) for data in records_of(entries, INDEX) if isinstance(data, dict)]


def assert_every_parent_resolves(path: Path) -> Session:
    """The file loads cleanly and no entry points at a parent the file lacks (a lost turn would)."""
    session = Session.open(path)
    assert session.warnings == []
    ids = {e["id"] for e in session.entries}
    assert len(ids) == len(session.entries), "no id twice"
    dangling = [e["id"] for e in session.entries if e["parentId"] is not None and e["parentId"] not in ids]
    assert dangling == [], f"parentIds pointing nowhere: {dangling}"
    return session


def no_temp_files(folder: Path) -> list[Path]:
    """The `.tmp` files a whole-file write left below `folder` (a finished or failed one leaves none)."""
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]
