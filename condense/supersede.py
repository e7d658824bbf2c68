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

from condense.capture import branch_records
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


def find_superseded(branch: list[dict[str, Any]], cwd: str | None, is_summarized: IsSummarized,
                    is_protected: IsProtected) -> list[ToolCallRecord]:
    """The branch's superseded reads not yet indexed, in branch order, each marked with what superseded it."""
    records = branch_records(branch)
    open_reads: dict[str, list[ToolCallRecord]] = {}  # path -> reads not superseded so far
    found: dict[str, str] = {}  # superseded read's key -> the tool that superseded it
    for record in records:
        path = _path(record, cwd)
        if path is None or record.is_error or (record.tool_name != READ and record.tool_name not in CHANGES):
            continue
        waiting = open_reads.setdefault(path, [])
        still = []
        for earlier in waiting:
            if earlier.turn_index < record.turn_index and (
                    record.tool_name in CHANGES or _covers(shown_lines(record), shown_lines(earlier))):
                found[earlier.key] = record.tool_name
            else:
                still.append(earlier)
        if record.tool_name == READ and not is_summarized(record.key) and not is_protected(READ, record.args):
            still.append(record)
        open_reads[path] = still
    return [record.with_changes(superseded_by=found[record.key]) for record in records if record.key in found]


def without_keys(batches: list[Batch], keys: set[str]) -> list[Batch]:
    """The batches less the calls of `keys`; a batch left empty goes, an untouched one stays the same object."""
    out = []
    for batch in batches:
        kept = [call for call in batch.tool_calls if call.key not in keys]
        if kept:
            out.append(batch if len(kept) == len(batch.tool_calls) else replace(batch, tool_calls=kept))
    return out
