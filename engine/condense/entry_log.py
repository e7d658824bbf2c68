"""Where a host without an agent keeps its session: a linear log of Pi session entries.

LocalHost runs the engine for any program that is not pi-tui's live agent; the one thing those programs
differ in is where the entries live. A library user or a test keeps them in memory or in a folder
(`MemoryLog`, `FileLog`, both here); pi-tui's offline commands keep them in the session file they read
(an adapter over pi-tui's Session). The file is Pi's JSONL (version 3 header, one entry per line,
appended and flushed per entry), so `pi-tui show`, `query` and `whatif` read it like any recorded
session, and reopening the same folder continues the same conversation. The file is written and read
by the same rules as pi-tui's own session store (FileLog says which), so a full disk, a kill, a damaged
line or pi-tui writing into the same folder loses nothing.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import uuid
import weakref
from pathlib import Path
from typing import Any, Protocol

from condense.atomic_file import append_lines, create, refuse_read_only, replace, write_temp
from condense.blobs import blob_dir
from condense.capture import entry_ms
from condense.errors import StoreFormatError, StoreInUseError, StoreWriteError
from condense.json_text import LONE_SURROGATE
from condense.messages import AgentMessage, CustomMessage
from condense.session_file import Tree, build_tree, read_lines, tree_problem, walk
from condense.store_lock import lock_folder
from condense.timefmt import now_iso

log = logging.getLogger("condense")

SESSION_VERSION = 3

class EntryLog(Protocol):
    """A session as LocalHost needs it: the branch it reads back, appending, and where files go."""

    @property
    def session_id(self) -> str: ...

    def branch(self) -> list[dict[str, Any]]:
        """Session entries of the current branch, root to leaf."""
        ...

    def messages(self) -> list[AgentMessage]:
        """The conversation the branch holds as Pi-shaped message dicts (the same object for an entry
        every time: renders reuse by identity)."""
        ...

    def append(self, kind: str, fields: dict[str, Any]) -> object:
        """Add an entry of `kind` (`message`, `custom`, `custom_message`, ...) after the branch's last."""
        ...

    def blobs_dir(self) -> Path | None:
        """The spill folder for oversized outputs; None keeps them inline."""
        ...

    def cwd(self) -> str | None:
        """The working folder relative paths in tool calls are relative to (None: unknown)."""
        ...


def dump_line(obj: dict[str, Any]) -> str:
    """One JSONL line the way JavaScript's JSON.stringify writes it: compact, UTF-8, no escapes except
    for lone surrogates (a JS string cut inside an emoji holds one), which it writes as `\\udXXX` and
    which UTF-8 cannot encode. pi-tui's session store writes with it too, so both files read alike."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


class MemoryLog:
    """Entries in memory. `blobs` is a spill folder of the caller's choosing (None: nothing spills)."""

    def __init__(self, cwd: str | os.PathLike[str] | None = ".", blobs: Path | None = None) -> None:
        self.entries: list[dict[str, Any]] = []
        self._ids: set[str] = set()  # every id ever stored, so a new one never repeats an old one
        self._by_id: dict[str, dict[str, Any]] = {}  # every entry read or appended, on any branch
        self._custom: dict[str, tuple[dict[str, Any], CustomMessage]] = {}  # entry id: (entry, its message)
        self._blobs = blobs
        self.notices: list[str] = []  # what opening found (a damaged line, a second branch), for the caller
        self.write_error: StoreWriteError | None = None  # set while appended entries could not be written
        self.header: dict[str, Any] = {"type": "session", "version": SESSION_VERSION, "id": str(uuid.uuid4()),
                                       "timestamp": now_iso(),
                                       "cwd": str(Path(cwd).resolve()) if cwd is not None else ""}

    @property
    def session_id(self) -> str:
        return str(self.header["id"])

    def branch(self) -> list[dict[str, Any]]:
        return list(self.entries)

    def messages(self) -> list[AgentMessage]:
        """Message entries, and custom messages in place (Pi's buildSessionContext on a linear log)."""
        out: list[AgentMessage] = []
        for entry in self.entries:
            if entry.get("type") == "message" and isinstance(entry.get("message"), dict):
                out.append(entry["message"])
            elif entry.get("type") == "custom_message":
                known = self._custom.get(entry["id"])
                if known is None or known[0] is not entry:
                    known = self._custom[entry["id"]] = (entry, custom_message_of(entry))
                out.append(known[1])
        return out

    def append(self, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Add an entry of `kind` after the last one and write it through (see `_write`)."""
        entry_id = uuid.uuid4().hex[:8]
        while entry_id in self._ids:
            entry_id = uuid.uuid4().hex[:8]
        entry = {"type": kind, "id": entry_id, "parentId": self.entries[-1]["id"] if self.entries else None,
                 "timestamp": now_iso(), **fields}
        self._write(entry)
        self.entries.append(entry)
        self._ids.add(entry_id)
        self._by_id[entry_id] = entry
        return entry

    def entry(self, entry_id: str) -> dict[str, Any] | None:
        """An entry by id, on any branch of the file (`condense.host.EntryReader`)."""
        return self._by_id.get(entry_id)

    def _write(self, entry: dict[str, Any]) -> None:
        """Memory only: nothing to write."""

    def save(self) -> None:
        """Memory only: nothing to write."""

    def close(self) -> None:
        """Memory only: nothing held."""

    def blobs_dir(self) -> Path | None:
        return self._blobs

    def cwd(self) -> str | None:
        return str(self.header.get("cwd") or "") or None


class FileLog(MemoryLog):
    """Entries in a folder's Pi session file: the newest `*.jsonl` in it is continued, or a new one is
    created on the first entry; spilled outputs go to `<folder>/<sessionId>-blobs/`.

    It writes as pi-tui's session store does. A new file appears whole, its header with its first
    entries (a kill or a full disk at the first write leaves no file, never an empty one; an empty one
    an older version left is continued as empty). An append lands whole or not at all; one that does not
    fit (a full disk) keeps its entries in memory, says so in `write_error`, and they are written before
    the next entry. A damaged line is skipped with a warning (`notices`, and the `condense` logger), and
    the rest of the branch is kept (condense.session_file).

    It continues its own branch: the id of the last entry it wrote is kept beside the file, and a file
    that another writer (pi-tui on a stale view) continued from an earlier point is reopened at that
    entry, with a notice that there are two branches. One writer per folder (condense.store_lock): the
    folder is locked from opening until `close()` (or garbage collection, or the process's end)."""

    def __init__(self, folder: str | os.PathLike[str], cwd: str | os.PathLike[str] = ".") -> None:
        super().__init__(cwd)
        self.folder = Path(folder)
        self.unsaved: list[dict[str, Any]] = []  # appended, not yet in the file (it could not be written)
        self._on_disk = False  # the file holds our header
        self._unlock = weakref.finalize(self, lock_folder(self.folder))
        try:
            self.path = self._open(self.folder)
        except BaseException:
            self._unlock()
            raise

    def save(self) -> None:
        """Write what is still kept in memory; raises StoreWriteError while it cannot be written."""
        self._save()
        if self.write_error is not None:
            raise self.write_error

    def close(self) -> None:
        """Release the folder for another writer; entries appended after this are refused. What could
        not be written is tried once more, and is lost (a warning says so) if it still cannot be."""
        if self._unlock.alive and self.unsaved:
            self._save()
            if self.write_error is not None:
                log.warning("%s; the store was closed, so they are lost", self.write_error)
        self._unlock()

    def _open(self, folder: Path) -> Path:
        existing = sorted(folder.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime_ns, p.name)) \
            if folder.is_dir() else []
        if not existing:
            stamp = self.header["timestamp"].replace(":", "-").replace(".", "-")
            return folder / f"{stamp}_{self.header['id']}.jsonl"
        path = existing[-1]
        values, warnings, damage = read_lines(path)
        if not values and not warnings:  # a kill at the first write of an older version: no entry lost
            named = _NAMED_ID.search(path.name)
            if named is not None:
                self.header["id"] = named[1]  # the file keeps its name, and the name its id
            return path
        self.header, self._on_disk = _header(path, values[0][1]), True
        tree = build_tree(str(path), values, warnings, damage, self.header, tree_problem)
        self._ids = {e["id"] for e in tree.entries} | set(tree.skipped)
        by_id = self._by_id = {e["id"]: e for e in tree.entries}
        self.entries = walk(by_id, self._own_leaf(path, tree, by_id), tree.skipped)
        for warning in tree.warnings:
            self._notice(f"{warning} (the entries after it are kept)")
        return path

    def _own_leaf(self, path: Path, tree: Tree, by_id: dict[str, dict[str, Any]]) -> str | None:
        """Where this library left off, when another writer forked the file from an earlier point; else
        the file's leaf, as Pi's (the library's own last entries, or another writer continuing them)."""
        try:
            recorded = _read_leaf(_leaf_path(path))
        except (OSError, ValueError):
            return tree.leaf_id
        if recorded not in by_id or any(e["id"] == recorded for e in walk(by_id, tree.leaf_id, tree.skipped)):
            return tree.leaf_id
        self._notice(f"{path}: this store has two branches: another writer continued it from an earlier point"
                     f" (its newest entry is {tree.leaf_id}); this library goes on with its own, which ends at"
                     f" {recorded}")
        return recorded

    def _notice(self, text: str) -> None:
        log.warning("%s", text)
        self.notices.append(text)

    def _write(self, entry: dict[str, Any]) -> None:
        if not self._unlock.alive:
            raise StoreInUseError(f"{self.folder}: this store was closed; open it again to add to it")
        self.unsaved.append(entry)
        self._save()

    def _save(self) -> None:
        if not self.unsaved:
            return
        try:
            self._write_lines("".join(dump_line(e) for e in self.unsaved).encode("utf-8"))
        except OSError as exc:
            count = len(self.unsaved)
            reason, remedy = _reason(exc)
            self.write_error = StoreWriteError(
                f"{self.path}: could not write the store: {reason}; {count} "
                f"{'entry is' if count == 1 else 'entries are'} kept in memory and written with the next one:"
                f" {remedy} and go on (nothing needs adding again; closing the store before then loses them)")
            return
        leaf, self.unsaved, self.write_error = self.unsaved[-1]["id"], [], None
        self._record_leaf(leaf)

    def _write_lines(self, data: bytes) -> None:
        """Append whole lines, or create the file whole, header first (an empty one is replaced); never
        to a file nobody may write, as pi-tui's store (root would)."""
        refuse_read_only(self.path)
        if not self._on_disk:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            temp = write_temp(self.path.parent, self.path.name, [dump_line(self.header).encode("utf-8"), data])
            if self.path.exists() and self.path.stat().st_size == 0:
                replace(temp, self.path)
            elif not create(temp, self.path):
                raise FileExistsError(errno.EEXIST, "another program created the session file meanwhile")
            self._on_disk = True
            return
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | getattr(os, "O_BINARY", 0))
        try:
            append_lines(fd, data)
        finally:
            os.close(fd)

    def _record_leaf(self, entry_id: str) -> None:
        """Keep the id of the last entry written beside the file. Only a hint: a file it does not match
        is reopened at its own leaf, so a failure here costs nothing but that. Never through a symbolic
        link, which could make it truncate any file of the user's."""
        with contextlib.suppress(OSError):
            fd = os.open(_leaf_path(self.path), os.O_WRONLY | os.O_CREAT | _NO_LINK, 0o600)
            try:
                data = entry_id.encode("utf-8")
                os.write(fd, data)  # ids are of one length: the old id is overwritten whole
                os.ftruncate(fd, len(data))
            finally:
                os.close(fd)

    def blobs_dir(self) -> Path | None:
        return blob_dir(self.folder, self.session_id)


def _header(path: Path, first: Any) -> dict[str, Any]:
    """The session header of a store's file: one condense can continue, or a StoreFormatError saying
    what to do."""
    if not isinstance(first, dict) or first.get("type") != "session" or not isinstance(first.get("id"), str):
        raise StoreFormatError(f"{path} is not a Pi session file (no session header); "
                               "name an empty folder or one this library wrote")
    if first.get("version") != SESSION_VERSION:
        version = first.get("version", 1)
        raise StoreFormatError(f"{path} is a version {version} Pi session; pi-tui rewrites it as version 3 when"
                               f" it first writes to it (send one message in `pi-tui --session {path}`; the"
                               f" original is kept beside it as .v{version}.bak), or name another folder")
    return first


_NAMED_ID = re.compile(r"_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")


def _leaf_path(session: Path) -> Path:
    return session.with_name(f".{session.name}.leaf")


# the leaf file is ours: opened through a symbolic link, it would be any file (or /dev/zero)
_NO_LINK = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
_LONGEST_ID = 256


def _read_leaf(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NO_LINK)  # a FIFO there never blocks
    try:
        return os.read(fd, _LONGEST_ID).decode("utf-8").strip()
    finally:
        os.close(fd)


def _reason(exc: OSError) -> tuple[str, str]:
    """Why a write failed, and what lets the next one through."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "no space left on the disk", "free some space"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (exc.strerror or "permission denied").lower(), "make it writable"
    return (exc.strerror or str(exc)).lower(), "fix the cause"


def open_log(folder: str | os.PathLike[str] | None, cwd: str | os.PathLike[str] = ".") -> MemoryLog:
    """The log of a folder (a Pi session file in it), or an in-memory one for None."""
    return MemoryLog(cwd) if folder is None else FileLog(folder, cwd)


def custom_message_of(entry: dict[str, Any]) -> CustomMessage:
    """The `custom` message a `custom_message` entry puts into the conversation (Pi's buildSessionContext)."""
    message: CustomMessage = {"role": "custom", "customType": entry.get("customType", ""),
                               "content": entry.get("content", ""), "display": bool(entry.get("display")),
                               "timestamp": entry_ms(entry)}
    if "details" in entry:
        message["details"] = entry["details"]
    return message

