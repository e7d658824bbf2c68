"""What condense captures and persists, and the custom entry types it writes.

The persisted shapes are camelCase dicts identical to the pi-condense family's, so a session pruned
by pi-tui can be read by those tools and theirs by us. In memory they are dataclasses; `to_json` and
`from_json` are the only places that know the wire names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from condense.messages import SUMMARY_TYPE
from condense.occurrence import occ_key, occurrence_of, result_timestamp_of

# customType values of the session entries condense writes
RECORD_PREFIX = "context-prune-"
SUMMARY = SUMMARY_TYPE  # custom_message, in the model's context
INDEX = "context-prune-index"
DEDUP_ALIAS = "context-prune-dedup-alias"
FRONTIER = "context-prune-frontier"
STATS = "context-prune-stats"
CHAIN = "context-prune-chain"
DIAGNOSTIC = "context-prune-diagnostic"
FLUSH_METRICS = "context-prune-flush-metrics"
RECORDS = "context-prune-records"  # the compact format's records of one burst of writing (condense.record_bursts)
CARRIED = "context-prune-carried"  # compact: records another entry holds, named there (condense.record_bursts)

QUERY_TOOL = "context_tree_query"


@dataclass(frozen=True)
class ToolCallRecord:
    """One tool call and its original output: the unit of capture, indexing and recovery."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    result_text: str
    is_error: bool
    turn_index: int
    timestamp: int  # the batch's time; NOT an identity (see occurrence.py)
    result_timestamp: int | None = None
    spill_path: str | None = None
    spill_bytes: int | None = None
    result_preview: str | None = None
    content_hash: str | None = None
    superseded_by: str | None = None  # edit | write | read: stubbed as stale, with no summary (supersede.py)
    result_occurrence: int = 1  # a result repeating an earlier one's id and timestamp: 2, 3, ...
    in_entry: bool = False  # persisted without its text and arguments: they are read back from its entries

    @property
    def key(self) -> str:
        return occ_key(self.tool_call_id, self.result_timestamp, self.result_occurrence)

    def with_changes(self, **changes: Any) -> ToolCallRecord:
        return replace(self, **changes)

    def to_json(self, copy: bool = True) -> dict[str, Any]:
        """The pi-condense record; with `copy` False, only what the session cannot tell: the output's
        identity and what pruning added (a spill, a stale mark). Its text, arguments, tool name, error
        flag, turn and time are read back from the call's and the result's own entries (copying them grew
        a pruned session file by 30-90%); a record written outside any turn (a chain's backfill, turn -1)
        keeps its turn, and its time where that is not its result's. A record without a result timestamp
        is always copied: a bare id may name more than one result."""
        if not copy and self.result_timestamp is not None:
            data: dict[str, Any] = {"toolCallId": self.tool_call_id}
            if self.turn_index < 0:
                data["turnIndex"] = self.turn_index
            if self.turn_index < 0 and self.timestamp != self.result_timestamp:
                data["timestamp"] = self.timestamp
        else:
            data = {"toolCallId": self.tool_call_id, "toolName": self.tool_name, "args": self.args,
                    "resultText": self.result_text, "isError": self.is_error, "turnIndex": self.turn_index,
                    "timestamp": self.timestamp}
        optional = {
            "resultTimestamp": self.result_timestamp,
            "spillPath": self.spill_path,
            "spillBytes": self.spill_bytes,
            "resultPreview": self.result_preview,
            "contentHash": self.content_hash,
            "supersededBy": self.superseded_by,
            "resultOccurrence": self.result_occurrence if self.result_occurrence > 1 else None,
        }
        data.update({k: v for k, v in optional.items() if v is not None})
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToolCallRecord:
        args = data.get("args")
        return cls(
            tool_call_id=str(data.get("toolCallId", "")),
            tool_name=str(data.get("toolName", "")),
            args=args if isinstance(args, dict) else {},
            result_text=str(data.get("resultText") or ""),
            is_error=bool(data.get("isError", False)),
            turn_index=_whole(data.get("turnIndex")),
            timestamp=_whole(data.get("timestamp", data.get("resultTimestamp"))),  # compact: its result's time
            result_timestamp=result_timestamp_of(data.get("resultTimestamp")),
            spill_path=data.get("spillPath") if isinstance(data.get("spillPath"), str) else None,
            spill_bytes=data.get("spillBytes") if isinstance(data.get("spillBytes"), int) else None,
            result_preview=data.get("resultPreview") if isinstance(data.get("resultPreview"), str) else None,
            content_hash=data.get("contentHash") if isinstance(data.get("contentHash"), str) else None,
            superseded_by=data.get("supersededBy") if isinstance(data.get("supersededBy"), str) else None,
            result_occurrence=occurrence_of(data, "resultOccurrence"),
            in_entry="resultText" not in data,
        )


def _whole(value: Any) -> int:
    """A persisted number as an int; 0 when a damaged entry holds anything but a finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0
    return int(value)


@dataclass(frozen=True)
class SummaryRef:
    """A short ref (`t12`) handed to the model for one occurrence."""

    short_id: str
    tool_call_id: str
    result_timestamp: int | None = None
    result_occurrence: int = 1

    @property
    def key(self) -> str:
        return occ_key(self.tool_call_id, self.result_timestamp, self.result_occurrence)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"shortId": self.short_id, "toolCallId": self.tool_call_id}
        if self.result_timestamp is not None:
            data["resultTimestamp"] = self.result_timestamp
        if self.result_occurrence > 1:
            data["resultOccurrence"] = self.result_occurrence
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SummaryRef | None:
        short, call = data.get("shortId"), data.get("toolCallId")
        if not isinstance(call, str):
            return None
        return cls(short if isinstance(short, str) else call, call, result_timestamp_of(data.get("resultTimestamp")),
                   occurrence_of(data, "resultOccurrence"))


@dataclass
class Batch:
    """The tool calls of one assistant turn (or, grouped, of one user turn) waiting to be summarised."""

    turn_index: int
    timestamp: int
    assistant_text: str
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    user_turn_group: int | None = None  # set by the branch rescan; live batches have none

    @property
    def raw_chars(self) -> int:
        return sum(len(call.result_text) for call in self.tool_calls)
