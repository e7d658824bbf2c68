"""Other agents' session files read as Pi sessions: what the Claude Code and Codex readers share.

`show`, `context`, `query`, `replay` and `whatif` judge the sessions people have, and many have them from
another agent. A reader turns such a file into Pi entries in memory: it detects the file by its first
lines, reads every JSON line (a broken one becomes a warning, as in a Pi file), and builds entries that
each hang from the one before, unless the other agent undid turns. The result is a `ForeignSession`,
which refuses every write: pi-tui never writes to a file it did not make.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from condense.json_text import valid_parsed
from condense.session_file import LoadWarning
from condense.timefmt import ms_to_iso
from pi_tui.session.migrate import CURRENT_VERSION
from pi_tui.session.store import Session, SessionError

PROBE_LINES = 20

Record = dict[str, Any]


class ForeignSession(Session):
    """A session read from another agent's file (`kind`, continued in `home`): every write is refused."""

    def __init__(self, header: dict[str, Any], chain: EntryChain, path: Path, kind: str, home: str) -> None:
        super().__init__(header, chain.entries, path)
        self.leaf_id = chain.leaf  # the other agent may have undone the turns last in the file
        self.kind = kind
        self.home = home

    def _persist(self, entry: dict[str, Any]) -> None:
        raise SessionError(f"{self.path}: a {self.kind} is read, never written; continue it in {self.home},"
                           " or in pi-tui from a session of its own")


def header(session_id: str, timestamp: str, cwd: str) -> dict[str, Any]:
    """The Pi session header the entries of another agent's file stand under."""
    return {"type": "session", "version": CURRENT_VERSION, "id": session_id, "timestamp": timestamp, "cwd": cwd}


def parse(line: str) -> Record | None:
    """One line as a JSON object (a lone surrogate in it read as U+FFFD, as in a Pi session), None when
    it is not one."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):  # json's decoder recurses per nesting level
        return None
    return valid_parsed(value, line) if isinstance(value, dict) else None


def starts_like(path: str | os.PathLike[str], verdict: Callable[[Record], bool | None]) -> bool:
    """Does the file start as `verdict` wants? It sees the first readable lines in turn and answers
    yes, no, or None (this line does not tell); a file no line tells about is not one."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            for _, line in zip(range(PROBE_LINES), file, strict=False):
                record = parse(line)
                answer = None if record is None else verdict(record)
                if answer is not None:
                    return answer
    except OSError:
        return False
    return False


def read_records(file: Path) -> tuple[list[tuple[int, Record]], list[LoadWarning]]:
    """Every line that is a JSON object, with its line number; any other non-blank line is a warning."""
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SessionError(f"{file}: cannot read it ({exc.strerror or exc})") from None
    records: list[tuple[int, Record]] = []
    warnings: list[LoadWarning] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        record = parse(line)
        if record is None:
            warnings.append(LoadWarning(str(file), number, "not a JSON object"))
        else:
            records.append((number, record))
    return records, warnings


def usage(input_tokens: int, output: int, cache_read: int, cache_write: int) -> dict[str, Any]:
    """Pi's usage record for counts another agent recorded; its cost is left for the judge to price."""
    counts = {"input": input_tokens, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write}
    return {**counts, "totalTokens": sum(counts.values()),
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def stop_reason(content: Sequence[Mapping[str, Any]]) -> str:
    """Why a reply that did not say so stopped: it called tools, or it ended its turn."""
    return "toolUse" if any(block.get("type") == "toolCall" for block in content) else "stop"


class EntryChain:
    """Pi entries built in memory, each the child of the leaf; `rewind` moves the leaf back to where
    another agent undid turns, so what follows starts a new branch and the undone turns stay off it."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.entries: list[dict[str, Any]] = []
        self.leaf: str | None = None

    def next_id(self) -> str:
        return f"{self.prefix}{len(self.entries) + 1:06d}"

    def add(self, kind: str, ms: int, **fields: Any) -> str:
        entry_id = self.next_id()
        self.entries.append({"type": kind, "id": entry_id, "parentId": self.leaf,
                             "timestamp": ms_to_iso(ms) if ms else "", **fields})
        self.leaf = entry_id
        return entry_id

    def add_message(self, message: dict[str, Any]) -> str:
        return self.add("message", int(message.get("timestamp") or 0), message=message)

    def rewind(self, entry_id: str | None) -> None:
        self.leaf = entry_id
