"""Superseded reads: a `read` output that a later change or a later whole re-read made stale.

Once the model has edited or rewritten a file, or read the same lines of it again, the earlier read
shows text that is no longer the file (or is shown again later): it costs tokens on every request
and says nothing a summary needs to repeat. So at a flush (never between flushes: the flush rewrites
the cached prompt anyway) such a read is indexed on its own, with no summary, and renders as a stub
that says why it went and which ref brings it back through `context_tree_query`.

What counts, decided from the branch alone so every flush of the same branch decides the same way:
- only a successful `read` (an error is not a read), not protected, not already in the index;
- superseded by a call of a strictly later assistant turn (calls of one turn may run in any order)
  on the same file: paths are taken relative to the session's directory, lexically normalised, with
  the `@` of an editor mention dropped; `~` is not expanded (the home of the machine that recorded a
  session may not be this one's), and with no known directory relative paths meet only relative ones;
- that call is a successful `edit` or `write`, or a successful `read` whose shown lines cover the
  earlier read's: a read shows from `offset` (default 1) to the line before the `offset=N` its
  continuation notice names, or to the end of the file when it has no such notice.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from condense.capture import Turn, TurnScan
from condense.records import Batch, ToolCallRecord

IsSummarized = Callable[[str], bool]
IsProtected = Callable[[str, dict[str, Any]], bool]

READ = "read"
CHANGES = {"edit": "edited", "write": "rewritten"}
_CONTINUE = re.compile(r"Use offset=(\d+) to continue")
_END = float("inf")

LineRange = tuple[int, float]  # first and last line shown; last is infinite for "to the end of the file"


def superseded_stub(record: ToolCallRecord, ref: str) -> str:
    """The stub of a superseded read: which file, what made it stale, and the ref that brings it back."""
    how = CHANGES.get(record.superseded_by or "", "read again")
    return (f"[Superseded read of `{record.args.get('path')}`: the file was {how} later. Original output: ref "
            f"`{ref}`. Use context_tree_query to retrieve it.]")


def _path(record: ToolCallRecord, cwd: str | None) -> str | None:
    raw = record.args.get("path")
    if not isinstance(raw, str) or not raw.strip():
        return None
    path = raw.removeprefix("@")
    return posixpath.normpath(posixpath.join(cwd, path) if cwd and not path.startswith("~") else path)


def _whole(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def shown_lines(record: ToolCallRecord) -> LineRange:
    """The lines a successful read showed (see the module docstring)."""
    first = _whole(record.args.get("offset"), 1)
    notices = _CONTINUE.findall(record.result_text[-300:])
    return first, (int(notices[-1]) - 1 if notices else _END)


def _covers(later: LineRange, earlier: LineRange) -> bool:
    return later[0] <= earlier[0] and later[1] >= earlier[1]


Order = tuple[int, int]  # a call's turn index and its place among the turn's calls: branch order
Read = tuple[Order, ToolCallRecord]


class SupersededReads:
    """The superseded reads of a branch that grows between flushes, kept with the flusher: a flush walks
    only the turns that closed since the last one (and the one still open), and builds records only for
    `read`, `edit` and `write` calls. Whether a read is superseded depends on that read and the later
    calls alone, so every read is followed whatever its index or protection state, and those two are
    asked when the reads are handed out: the reads a walk of the whole branch would find, in its order."""

    def __init__(self) -> None:
        self._reset(None, [])

    def _reset(self, cwd: str | None, turns: list[Any]) -> None:
        self._cwd = cwd
        self._turns = turns  # the scan's list of turns: another list means the scan started over
        self._done = 0  # turns walked for good
        self._open: dict[str, list[Read]] = {}  # path -> its reads not superseded so far
        self._found: dict[str, Read] = {}  # superseded reads not known to be indexed yet, marked

    def find(self, scan: TurnScan, branch: list[dict[str, Any]], cwd: str | None, is_summarized: IsSummarized,
             is_protected: IsProtected) -> list[ToolCallRecord]:
        """The superseded reads of `branch` that are not indexed yet, in branch order, each marked with
        what superseded it. `scan` walks the branch's turns (the flusher's own, kept as it grows)."""
        scan.of(branch)
        if scan.turns is not self._turns or cwd != self._cwd:
            self._reset(cwd, scan.turns)
        for turn in scan.turns[self._done:scan.closed]:
            self._walk(turn, self._open, self._found)
        self._done = max(self._done, scan.closed)
        for key in [key for key in self._found if is_summarized(key)]:
            del self._found[key]
        found = self._found
        if scan.closed < len(scan.turns):  # the open turn may gain results: walked again next time
            found = dict(found)
            self._walk(scan.turns[-1], dict(self._open), found)
        return [record for _order, record in sorted(found.values(), key=lambda read: read[0])
                if not is_summarized(record.key) and not is_protected(READ, record.args)]

    def _walk(self, turn: Turn, open_reads: dict[str, list[Read]], found: dict[str, Read]) -> None:
        """Supersede what `turn`'s calls supersede. Lists in `open_reads` are replaced, never changed, so
        a shallow copy walks an open turn without touching what is kept."""
        for position, (call, result) in enumerate(turn.answered()):
            if result is None or (call.get("name") != READ and call.get("name") not in CHANGES):
                continue
            record = turn.record(call, result)
            path = _path(record, self._cwd)
            if path is None or record.is_error:
                continue
            still = []
            for order, earlier in open_reads.get(path, []):
                if earlier.turn_index < record.turn_index and (
                        record.tool_name in CHANGES or _covers(shown_lines(record), shown_lines(earlier))):
                    found[earlier.key] = (order, earlier.with_changes(superseded_by=record.tool_name))
                else:
                    still.append((order, earlier))
            if record.tool_name == READ:
                still.append(((turn.turn_index, position), record))
            open_reads[path] = still


def without_keys(batches: list[Batch], keys: set[str]) -> list[Batch]:
    """The batches less the calls of `keys`; a batch left empty goes, an untouched one stays the same object."""
    out = []
    for batch in batches:
        kept = [call for call in batch.tool_calls if call.key not in keys]
        if kept:
            out.append(batch if len(kept) == len(batch.tool_calls) else replace(batch, tool_calls=kept))
    return out
