"""Chains as detection sees them, and compressed chains as the session remembers them.

A `ChainRange` is a fact about the current branch (which messages form one closed user round). A
`ChainEntry` is a decision, persisted as a `context-prune-chain` entry: it names its range by the two
boundary timestamps only, because message positions shift and provider tool-call ids get reused,
while the timestamps of a user message and of an assistant reply are stamped once and never change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from condense.block_refs import BlockRefIssuer
from condense.occurrence import result_timestamp_of
from condense.record_bursts import Read, expanded
from condense.records import CHAIN
from condense.ref_ranges import packed, unpacked

BodySource = Literal["deterministic"]


@dataclass(frozen=True)
class ChainRange:
    """One user round: the user message, the tool-using turns after it, and (when closed) the
    text-only reply that ended it. Ids keep first-seen order and appear once."""

    start_user_timestamp: int
    final_assistant_timestamp: int | None  # None: interrupted by the next user message
    middle_tool_call_ids: tuple[str, ...] = ()  # from the calls and from the results
    middle_occurrence_keys: tuple[str, ...] = ()  # from the results only: calls have no result timestamp
    protected_tool_call_ids: tuple[str, ...] = ()
    middle_chars: int = 0  # what the model reads of its tool-calling turns and their outputs, unpruned

    @property
    def closed(self) -> bool:
        return self.final_assistant_timestamp is not None

    @property
    def lookup_keys(self) -> tuple[str, ...]:
        """How the index knows this chain's outputs: by occurrence, or by bare id for a chain whose
        calls never got a result."""
        return self.middle_occurrence_keys or self.middle_tool_call_ids


@dataclass(frozen=True)
class ChainEntry:
    """A compressed chain. `dropped_tool_call_ids` is only a health check at render time (the
    boundaries decide what is dropped); optional fields are left out of the JSON when empty so an
    entry written without them reads back identical."""

    block_id: str
    start_user_timestamp: int
    dropped_tool_call_ids: tuple[str, ...]
    final_assistant_timestamp: int | None
    tool_refs: tuple[str, ...]
    compressed_at: int
    dropped_occurrence_keys: tuple[str, ...] = ()
    protected_tool_call_ids: tuple[str, ...] = ()
    range_summary_text: str | None = None
    body_source: BodySource | None = None
    body_names: int | None = None  # set when a deterministic body can be made again (`summary_names` it used)
    read_back: bool = False  # read from a compact entry: its dropped ids and keys come from the branch
    backfilled_refs: tuple[str, ...] = ()  # compact: the refs of the outputs this entry indexes (`derive.py`)

    def to_json(self, copy: bool = True, written_after: int | None = None, issued: str | None = None) -> dict[str, Any]:
        """pi-condense's entry; with `copy` False, without what the branch tells again (`derive.py`): the
        ids and keys of the dropped outputs (the calls between the range's two boundaries), a
        deterministic body (made from those outputs' records, its source said by the names it used) and
        the index records of the outputs it was the first to index (by their refs); the refs as ranges
        (`condense.ref_ranges`), the final reply's time as an offset from the user message's, the block
        id left out when it is `issued`, the one a reader issues next (`next_block_id`), and the time of
        compression when it is `written_after`, the time of the newest message on the branch before the
        entry (`newest_message_time`), which a reader takes for it."""
        if copy:
            return self._full()
        final = self.final_assistant_timestamp
        data: dict[str, Any] = {} if self.block_id == issued else {"blockId": self.block_id}
        data["startUserTimestamp"] = self.start_user_timestamp
        if self.protected_tool_call_ids:
            data["protectedToolCallIds"] = list(self.protected_tool_call_ids)
        if final is None or final < self.start_user_timestamp:
            data["finalAssistantTimestamp"] = final
        else:
            data["finalAfter"] = final - self.start_user_timestamp
        data["toolRefs"] = packed(self.tool_refs)
        if self.compressed_at != written_after:
            data["compressedAt"] = self.compressed_at
        if self.body_names is not None:
            data["bodyNames"] = self.body_names
        elif self.range_summary_text:
            data["rangeSummaryText"] = self.range_summary_text
        if self.body_source is not None and self.body_names is None:
            data["bodySource"] = self.body_source
        if self.backfilled_refs:
            data["backfilled"] = packed(self.backfilled_refs)
        return data

    def _full(self) -> dict[str, Any]:
        """pi-condense's entry, every field copied."""
        data: dict[str, Any] = {"blockId": self.block_id, "startUserTimestamp": self.start_user_timestamp,
                                "droppedToolCallIds": list(self.dropped_tool_call_ids)}
        if self.dropped_occurrence_keys:
            data["droppedOccurrenceKeys"] = list(self.dropped_occurrence_keys)
        if self.protected_tool_call_ids:
            data["protectedToolCallIds"] = list(self.protected_tool_call_ids)
        data.update(finalAssistantTimestamp=self.final_assistant_timestamp, toolRefs=list(self.tool_refs),
                    compressedAt=self.compressed_at)
        if self.range_summary_text:
            data["rangeSummaryText"] = self.range_summary_text
        if self.body_source is not None:
            data["bodySource"] = self.body_source
        return data

    @classmethod
    def from_json(cls, data: Any, written_after: int = 0, issued: str = "") -> ChainEntry | None:
        """None for anything that cannot name a range (no block id, no start timestamp). `written_after`:
        the time of the newest message before the entry, the time of compression a compact one left out;
        `issued`: the block id a reader issues next, the one a compact entry without its own has."""
        if not isinstance(data, dict):
            return None
        block_id, start = data.get("blockId", issued), result_timestamp_of(data.get("startUserTimestamp"))
        if not isinstance(block_id, str) or not block_id or start is None:
            return None
        text = data.get("rangeSummaryText")
        names = data.get("bodyNames")
        body_names = names if isinstance(names, int) and not isinstance(names, bool) else None
        return cls(
            block_id=block_id,
            start_user_timestamp=start,
            dropped_tool_call_ids=_strings(data.get("droppedToolCallIds")),
            final_assistant_timestamp=_final(data, start),
            tool_refs=unpacked(data.get("toolRefs")),
            compressed_at=result_timestamp_of(data.get("compressedAt", written_after)) or 0,
            dropped_occurrence_keys=_strings(data.get("droppedOccurrenceKeys")),
            protected_tool_call_ids=_strings(data.get("protectedToolCallIds")),
            range_summary_text=text if isinstance(text, str) and text else None,
            body_source="deterministic" if data.get("bodySource") == "deterministic" or body_names is not None
            else None,
            body_names=body_names,
            read_back="droppedToolCallIds" not in data,
            backfilled_refs=unpacked(data.get("backfilled")),
        )

    @property
    def lookup_keys(self) -> tuple[str, ...]:
        return self.dropped_occurrence_keys or self.dropped_tool_call_ids


def chain_records(branch_entries: Iterable[Mapping[str, Any]], read: Read | None = None) -> list[ChainEntry]:
    """The branch's compressed chains as its `context-prune-chain` records say them, in order (one that
    names no range is skipped); `read`: the host's way to the records a carried record names."""
    return [entry for _, entry in chain_positions(branch_entries, read)]


def chain_positions(branch_entries: Iterable[Mapping[str, Any]],
                    read: Read | None = None) -> Iterator[tuple[int, ChainEntry]]:
    """Each compressed chain of the branch with the position of its record among the branch's expanded
    entries (`record_bursts.expanded`)."""
    newest = 0
    issued: list[str] = []
    for position, raw in enumerate(expanded(branch_entries, read)):
        stamp = message_time(raw)
        newest = newest if stamp is None else stamp
        if (raw.get("type") == "custom" and raw.get("customType") == CHAIN
                and (entry := ChainEntry.from_json(raw.get("data"), newest, next_block_id(issued))) is not None):
            issued.append(entry.block_id)
            yield position, entry


def next_block_id(ids: Iterable[str]) -> str:
    """The block id a reader gives the next compact chain entry that leaves its own out: the one after
    the highest it has read (`BlockRefIssuer`)."""
    issuer = BlockRefIssuer()
    issuer.rebuild_from(ids)
    return issuer.issue()


def _final(data: dict[str, Any], start: int) -> int | None:
    """The final reply's time: said, or (compact) an offset from the user message's."""
    after = data.get("finalAfter")
    if isinstance(after, int) and not isinstance(after, bool) and after >= 0:
        return start + after
    return result_timestamp_of(data.get("finalAssistantTimestamp"))


def message_time(entry: Mapping[str, Any]) -> int | None:
    """The timestamp of an entry's message; None for an entry without one."""
    message = entry.get("message")
    stamp = message.get("timestamp") if isinstance(message, dict) else None
    return stamp if isinstance(stamp, int) else None


def newest_message_time(branch: Sequence[Mapping[str, Any]]) -> int:
    """The newest message time on the branch (0 for none): what a chain compressed now records as the
    time of its compression, deterministic, unlike the wall clock."""
    return next((stamp for entry in reversed(branch) if (stamp := message_time(entry)) is not None), 0)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


class ChainRegistry:
    """The compressed chains of the branch, one per start timestamp (a later entry for the same
    start replaces the earlier one), and the issuer of the next block id."""

    def __init__(self) -> None:
        self._by_start: dict[int, ChainEntry] = {}
        self.block_refs = BlockRefIssuer()
        self.version = 0  # changes with every registration: a render may reuse its work while it holds
        self._recorded: list[str] = []  # the block id of every chain record on the branch, replaced ones too

    def __len__(self) -> int:
        return len(self._by_start)

    def __iter__(self) -> Iterator[ChainEntry]:
        return iter(list(self._by_start.values()))

    def __contains__(self, start_user_timestamp: object) -> bool:
        """Whether the chain starting at this user timestamp is already compressed."""
        return start_user_timestamp in self._by_start

    def entries(self) -> list[ChainEntry]:
        return list(self._by_start.values())

    def find_by_block_id(self, block_id: str) -> ChainEntry | None:
        return next((entry for entry in self._by_start.values() if entry.block_id == block_id), None)

    def register(self, entry: ChainEntry) -> None:
        """Memory only: the caller persists the entry first."""
        self._by_start[entry.start_user_timestamp] = entry
        self._recorded.append(entry.block_id)
        self.version += 1

    def next_recorded(self) -> str:
        """The block id a reader of the branch gives a compact chain entry written next without its own."""
        return next_block_id(self._recorded)

    def issue_block_id(self) -> str:
        return self.block_refs.issue()

    def rebuild(self, branch_entries: Iterable[dict[str, Any]],
                complete: Callable[[list[ChainEntry]], list[ChainEntry]] | None = None,
                read: Read | None = None) -> None:
        """Replace everything with what the branch's `context-prune-chain` entries say; `complete` gives
        compact entries what they leave to the branch (`derive.py`). Block ids of replaced entries still
        count for the counter: an id once written is never issued again."""
        self._by_start = {}
        self.version += 1
        recorded = chain_records(branch_entries, read)
        for entry in complete(recorded) if complete is not None else recorded:
            self.register(entry)
        self._recorded = [entry.block_id for entry in recorded]
        self.block_refs.rebuild_from(self._recorded)
