"""Where a host without an agent keeps its session: a linear log of Pi session entries.

LocalHost runs the engine for any program that is not pi-tui's live agent; the one thing those programs
differ in is where the entries live. A library user or a test keeps them in memory or in a folder
(`MemoryLog`, `FileLog`, both here); pi-tui's offline commands keep them in the session file they read
(an adapter over pi-tui's Session). The file is Pi's JSONL (version 3 header, one entry per line,
appended and flushed per entry), so `pi-tui show`, `query` and `whatif` read it like any recorded
session, and reopening the same folder continues the same conversation.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import uuid
import weakref
from pathlib import Path
from typing import Any, Protocol

from condense.blobs import blob_dir
from condense.capture import entry_ms
from condense.errors import CondenseError, StoreFormatError
from condense.messages import AgentMessage, CustomMessage
from condense.timefmt import now_iso

SESSION_VERSION = 3

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


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
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


class MemoryLog:
    """Entries in memory. `blobs` is a spill folder of the caller's choosing (None: nothing spills)."""

    def __init__(self, cwd: str | os.PathLike[str] | None = ".", blobs: Path | None = None) -> None:
        self.entries: list[dict[str, Any]] = []
        self._ids: set[str] = set()  # every id ever stored, so a new one never repeats an old one
        self._custom: dict[str, tuple[dict[str, Any], CustomMessage]] = {}  # entry id: (entry, its message)
        self._blobs = blobs
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
        return entry

    def _write(self, entry: dict[str, Any]) -> None:
        """Memory only: nothing to write."""

    def close(self) -> None:
        """Memory only: nothing held."""

    def blobs_dir(self) -> Path | None:
        return self._blobs

    def cwd(self) -> str | None:
        return str(self.header.get("cwd") or "") or None


class StoreInUseError(CondenseError, RuntimeError):
    """The store folder is already open for writing, in this process or another."""


class FileLog(MemoryLog):
    """Entries in a folder's Pi session file: the newest `*.jsonl` in it is continued, or a new one is
    created on the first entry; spilled outputs go to `<folder>/<sessionId>-blobs/`.

    One writer per folder: two writers would each continue the branch they read at opening, and the
    file would end up with two interleaved branches, one of them unreachable. So the folder holds an
    exclusive advisory lock from opening until `close()` (or garbage collection, or the process's end)."""

    def __init__(self, folder: str | os.PathLike[str], cwd: str | os.PathLike[str] = ".") -> None:
        super().__init__(cwd)
        self.folder = Path(folder)
        self._unlock = weakref.finalize(self, os.close, _lock_folder(self.folder))
        try:
            self.path = self._open(self.folder)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Release the folder for another writer; entries appended after this are refused."""
        self._unlock()

    def _open(self, folder: Path) -> Path:
        existing = sorted(folder.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime_ns, p.name)) \
            if folder.is_dir() else []
        if not existing:
            stamp = self.header["timestamp"].replace(":", "-").replace(".", "-")
            return folder / f"{stamp}_{self.header['id']}.jsonl"
        path = existing[-1]
        objects = _read_objects(path)
        header = objects[0] if objects and objects[0].get("type") == "session" else None
        if header is None or not isinstance(header.get("id"), str):
            raise StoreFormatError(f"{path} is not a Pi session file (no session header); "
                             "name an empty folder or one this library wrote")
        if header.get("version") != SESSION_VERSION:
            raise StoreFormatError(f"{path} is a version {header.get('version', 1)} Pi session; pi-tui rewrites it as"
                             " version 3 when it first writes to it (send one message in `pi-tui --session"
                             f" {path}`; the original is kept beside it as .v{header.get('version', 1)}.bak),"
                             " or name another folder")
        self.header = header
        entries = [o for o in objects[1:] if o.get("type") != "session"]
        self._ids = {e["id"] for e in entries if isinstance(e.get("id"), str)}
        self.entries = _path_to_leaf(entries)
        return path

    def _write(self, entry: dict[str, Any]) -> None:
        if not self._unlock.alive:
            raise StoreInUseError(f"{self.folder}: this store was closed; open it again to add to it")
        new = not self.path.exists()
        if new:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            data = ((dump_line(self.header) if new else "") + dump_line(entry)).encode("utf-8")
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # a torn last line must not swallow this entry
            os.write(fd, data)
        finally:
            os.close(fd)

    def blobs_dir(self) -> Path | None:
        return blob_dir(self.folder, self.session_id)


def _lock_folder(folder: Path) -> int:
    """A descriptor of `folder` (created 0700 if missing) holding its exclusive lock; the kernel drops
    the lock when the descriptor closes, the process's death included."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreInUseError(f"{folder}: this store is already open in another Condenser (in this process or"
                              " another); close that one (its close(), or end its process) or name another"
                              " folder") from None
    return fd


def open_log(folder: str | os.PathLike[str] | None, cwd: str | os.PathLike[str] = ".") -> MemoryLog:
    """The log of a folder (a Pi session file in it), or an in-memory one for None."""
    return MemoryLog(cwd) if folder is None else FileLog(folder, cwd)


def _read_objects(path: Path) -> list[dict[str, Any]]:
    """Every JSON object line of `path`; a torn or damaged line is skipped, never fatal."""
    objects: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            objects.append(obj)
    return objects


def _path_to_leaf(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Root-to-leaf path ending at the last entry: a file someone branched (with pi-tui's `/tree`)
    continues from its newest point, as Pi does."""
    by_id = {e["id"]: e for e in entries if isinstance(e.get("id"), str)}
    path: list[dict[str, Any]] = []
    entry: dict[str, Any] | None = entries[-1] if entries else None
    seen: set[str] = set()
    while entry is not None and entry.get("id") not in seen:
        seen.add(entry.get("id", ""))
        path.append(entry)
        parent = entry.get("parentId")
        entry = by_id.get(parent) if isinstance(parent, str) else None
    return path[::-1]


def custom_message_of(entry: dict[str, Any]) -> CustomMessage:
    """The `custom` message a `custom_message` entry puts into the conversation (Pi's buildSessionContext)."""
    message: CustomMessage = {"role": "custom", "customType": entry.get("customType", ""),
                               "content": entry.get("content", ""), "display": bool(entry.get("display")),
                               "timestamp": entry_ms(entry)}
    if "details" in entry:
        message["details"] = entry["details"]
    return message

