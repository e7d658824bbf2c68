"""Where Pi's compaction cut a branch: the part of it the model still reads.

A `compaction` entry stands, in the context Pi builds, for everything before its `firstKeptEntryId`:
those messages are no longer sent, so condense must neither summarise their outputs (a paid call for
text no request carries) nor compress their chains. Only the newest compaction of a branch counts, as in
Pi's `buildSessionContext`. Kept as the branch grows, so a flush reads only the entries appended since.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from condense.prefix import Following


@dataclass(frozen=True)
class Cut:
    """The first entry of the branch the context holds (`position`), and the session-wide index of the
    first assistant turn at or after it (`turn`, as capture counts turns); both 0 without a compaction."""

    position: int = 0
    turn: int = 0


class CompactionCut:
    """The `Cut` of a branch that grows between calls (any other change starts the walk over)."""

    def __init__(self) -> None:
        self._seen = Following()
        self._reset()

    def _reset(self) -> None:
        self.cut = Cut()
        self._at: dict[str, Cut] = {}  # for each entry id, the cut that would start at it
        self._assistants = 0

    def of(self, branch: list[dict[str, Any]]) -> Cut:
        held = self._seen.follow(branch)
        if not held:
            self._reset()
        for position, entry in enumerate(branch[held:], start=held):
            kind = entry.get("type")
            entry_id = entry.get("id")
            if isinstance(entry_id, str):
                self._at[entry_id] = Cut(position, self._assistants)
            if kind == "compaction":
                # a first kept entry not on the branch (a line skipped on load): nothing before it is kept
                self.cut = self._at.get(str(entry.get("firstKeptEntryId")), Cut(position, self._assistants))
            elif kind == "message" and (entry.get("message") or {}).get("role") == "assistant":
                self._assistants += 1
        return self.cut
