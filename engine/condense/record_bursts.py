"""condense's `custom` records written one session entry per burst of writing, and read back alike.

A flush writes dozens of small records (index, chain, fold, frontier, stats, metrics). As entries of
their own, each paid Pi's envelope (type, id, parentId, timestamp, customType: some 150 bytes), a third
of what pruning added to a session file. In the compact format (`index_copies` off) the records a burst
writes are held and go into one `context-prune-records` entry, in the order they were written, records
of one type in a row sharing one item (`[type, data, data, ...]`): before the next summary (so no
record lands after a summary written after it) and when the burst ends, on every way out of it. A lone
record is written as its own entry. With `index_copies` every record is an
entry of its own at once, as pi-condense writes and reads them.

Every reader of condense's records goes through `expanded` (or `records_of`), which gives a records
entry back as the entries its records would have been, so files of every format read alike. Given a
way to read entries by id (`condense.host.EntryReader`), it gives a `context-prune-carried` record (what
`/tree` carries onto a branch: `{"entry": id, "records": [position | [position, {field: value}]],
"with": {field: value}}`) back as the records it names, held by that entry on the branch left behind,
each with the fields the carried record changes (`with` for all; a null removes one), at its own place.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from condense.host import EntryReader, Host
from condense.records import CARRIED, RECORD_PREFIX, RECORDS

log = logging.getLogger("condense")


class RecordWriter:
    """Where the engine's records go: held while a burst is open (compact format), else written at once."""

    def __init__(self, host: Host, bursts: Callable[[], bool]) -> None:
        """`bursts`: whether records are held and written together now (False: `index_copies`)."""
        self.host = host
        self._bursts = bursts
        self._held: list[tuple[str, Any]] = []
        self._depth = 0

    def append(self, custom_type: str, data: Any) -> None:
        """Persist a record: held inside a burst, else written now, after anything still held. Outside a
        burst it raises as the host's append does."""
        if self._depth and self._bursts():
            self._held.append((custom_type, data))
            return
        self.write()
        self.host.append_entry(custom_type, data)

    async def append_custom_message(self, custom_type: str, content: str, display: bool, details: Any) -> None:
        """A summary, after the records written before it."""
        self.write()
        await self.host.append_custom_message(custom_type, content, display, details)

    def write(self) -> None:
        """Write what is held, as one entry. A failed write raises as the host's append does and keeps
        every record held, for the next write: none is lost while the engine runs."""
        if not self._held:
            return
        if len(self._held) == 1:
            self.host.append_entry(*self._held[0])
        else:
            self.host.append_entry(RECORDS, _items(self._held))
        self._held = []

    @contextmanager
    def burst(self) -> Iterator[None]:
        """Hold the records written inside (bursts nest: the outermost writes them). What is held is
        written on the way out, whatever the way: an exception or a return."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if not self._depth:
                self._write_logged()

    def _write_logged(self) -> None:
        try:
            self.write()
        except Exception as exc:  # kept: the next write tries again
            log.exception("pruner: could not write %d records: %s; they are kept and written with the next write",
                          len(self._held), exc)

    def settle(self) -> None:
        """Before the engine rebuilds from the branch: write what is held, or, where it cannot be written,
        drop it, as the rebuild does (the branch is what the engine knows; a record of another branch
        must never be written onto the next one)."""
        try:
            self.write()
        except Exception as exc:
            log.exception("pruner: dropped %d records the session could not take: %s", len(self._held), exc)
            self._held = []


def _items(records: list[tuple[str, Any]]) -> list[list[Any]]:
    """A records entry's data: the records in order, those of one type in a row in one item."""
    items: list[list[Any]] = []
    for kind, data in records:
        name = kind.removeprefix(RECORD_PREFIX)
        if items and items[-1][0] == name:
            items[-1].append(data)
        else:
            items.append([name, data])
    return items


Entry = TypeVar("Entry", bound=Mapping[str, Any])
Read = Callable[[str], Mapping[str, Any] | None]
"""A session's entry by id, on any branch (`EntryReader.entry`)."""
Source = tuple[str, int]
"""Where a record is held: the id of its entry and its position among that entry's records."""


def entry_reader(host: object) -> Read | None:
    """How `host` reads entries by id, where it can (`EntryReader`)."""
    return host.entry if isinstance(host, EntryReader) else None


def expanded(entries: Iterable[Entry], read: Read | None = None) -> Iterator[Entry | dict[str, Any]]:
    """`entries` with each records entry given back as the entries its records would have been (its id,
    parent and time), in order; every other entry as it is. With `read`, a carried record is given back
    as the records it names (without, as it is)."""
    for entry, _ in sourced(entries, read):
        yield entry


def sourced(entries: Iterable[Entry], read: Read | None = None) -> Iterator[tuple[Entry | dict[str, Any], Source]]:
    """`expanded`, each entry with where its record is held (a carried record's: where the record it names
    is held)."""
    for entry in entries:
        held: list[Entry | dict[str, Any]] = list(_records(entry)) if _is(entry, RECORDS) else [entry]
        for position, record in enumerate(held):
            if read is not None and _is(record, CARRIED):
                yield from _carried(record, read)
            else:
                yield record, (str(entry.get("id")), position)


def records_of(entries: Iterable[Mapping[str, Any]], custom_type: str, read: Read | None = None) -> Iterator[Any]:
    """The data of every record of `custom_type` in `entries`, in order, whichever way it is stored."""
    for entry in expanded(entries, read):
        if entry.get("type") == "custom" and entry.get("customType") == custom_type:
            yield entry.get("data")


def held_records(entry: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """The records an entry holds, in order (a records entry's, or the entry itself)."""
    if entry is None:
        return []
    return list(_records(entry)) if _is(entry, RECORDS) else [entry]


def merged(data: Mapping[str, Any], *changes: Mapping[str, Any]) -> dict[str, Any]:
    """A record's data with a carried record's changes (a null removes a field; none is ever null)."""
    combined = dict(data)
    for change in changes:
        combined.update(change)
    return {key: value for key, value in combined.items() if value is not None}


def _carried(record: Mapping[str, Any], read: Read) -> Iterator[tuple[dict[str, Any], Source]]:
    """The records a carried record names, at its own place (a record its entry no longer holds, or
    another carried one, is skipped, as a damaged record is)."""
    data = record.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("entry"), str):
        return
    held, shared = held_records(read(data["entry"])), data.get("with")
    envelope = {key: record.get(key) for key in ("id", "parentId", "timestamp")}
    items = data.get("records")
    for item in items if isinstance(items, list) else []:
        if isinstance(item, int) and not isinstance(item, bool):
            position, own = item, {}
        elif _change(item):
            position, own = item
        else:
            continue
        if not 0 <= position < len(held):
            continue
        named = held[position]
        if named.get("type") != "custom" or _is(named, CARRIED) or not isinstance(named.get("data"), dict):
            continue
        changed = merged(named["data"], shared if isinstance(shared, dict) else {}, own)
        yield ({"type": "custom", **envelope, "customType": named.get("customType"), "data": changed},
               (data["entry"], position))


def _change(item: Any) -> bool:
    return isinstance(item, list) and len(item) == 2 and isinstance(item[0], int) and isinstance(item[1], dict)


def _is(entry: Mapping[str, Any], custom_type: str) -> bool:
    return entry.get("type") == "custom" and entry.get("customType") == custom_type


def _records(entry: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """A records entry's records as entries (a damaged item is skipped, as a damaged entry is)."""
    items = entry.get("data")
    envelope = {key: entry.get(key) for key in ("id", "parentId", "timestamp")}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, list) and len(item) >= 2 and isinstance(item[0], str):
            for data in item[1:]:
                yield {"type": "custom", **envelope, "customType": RECORD_PREFIX + item[0], "data": data}
