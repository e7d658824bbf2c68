"""condense's `custom` records written one session entry per burst of writing, and read back alike.

A flush writes dozens of small records (index, chain, fold, frontier, stats, metrics). As entries of
their own, each paid Pi's envelope (type, id, parentId, timestamp, customType: some 150 bytes), a third
of what pruning added to a session file. In the compact format (`index_copies` off) the records a burst
writes are held and go into one `context-prune-records` entry, in the order they were written: before
the next summary (so no record lands after a summary written after it) and when the burst ends, on
every way out of it. A lone record is written as its own entry. With `index_copies` every record is an
entry of its own at once, as pi-condense writes and reads them.

Every reader of condense's records goes through `expanded` (or `records_of`), which gives a records
entry back as the entries its records would have been, so files of every format read alike.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from condense.host import Host
from condense.records import RECORD_PREFIX, RECORDS

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
            self.host.append_entry(RECORDS, [[kind.removeprefix(RECORD_PREFIX), data] for kind, data in self._held])
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


Entry = TypeVar("Entry", bound=Mapping[str, Any])


def expanded(entries: Iterable[Entry]) -> Iterator[Entry | dict[str, Any]]:
    """`entries` with each records entry given back as the entries its records would have been (its id,
    parent and time), in order; every other entry as it is."""
    for entry in entries:
        if entry.get("type") == "custom" and entry.get("customType") == RECORDS:
            yield from _records(entry)
        else:
            yield entry


def records_of(entries: Iterable[Mapping[str, Any]], custom_type: str) -> Iterator[Any]:
    """The data of every record of `custom_type` in `entries`, in order, whichever way it is stored."""
    for entry in expanded(entries):
        if entry.get("type") == "custom" and entry.get("customType") == custom_type:
            yield entry.get("data")


def _records(entry: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """A records entry's records as entries (a damaged item is skipped, as a damaged entry is)."""
    items = entry.get("data")
    envelope = {key: entry.get(key) for key in ("id", "parentId", "timestamp")}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str):
            yield {"type": "custom", **envelope, "customType": RECORD_PREFIX + item[0], "data": item[1]}
