"""Pi-compatible session files: load, migrate, walk the tree, append.

A session is a JSONL file: a header line, then one entry per line, each pointing at its parent, so
the file holds a tree and the current position in it (the leaf) is the last entry. We only ever
append, one flushed line per entry, so a crash loses at most the line being written, and a torn line
left by an earlier crash is skipped on load with a warning instead of making the session unreadable.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from condense.messages import AgentMessage
from pi_tui.errors import UserError
from pi_tui.paths import ensure_private_dir, sessions_dir_for
from pi_tui.session.context import SessionContext, build_context, extend_context
from pi_tui.session.migrate import CURRENT_VERSION, migrate
from pi_tui.session.schema import check_line
from pi_tui.session.timefmt import now_iso

_PERSIST_ROLES = {"user", "assistant", "toolResult", "custom", "bashExecution"}


class SessionError(UserError):
    """A session file that cannot be used at all (missing, unreadable, no header)."""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dump_line(obj: dict[str, Any]) -> str:
    """One JSONL line the way JavaScript's JSON.stringify writes it: compact, UTF-8, no escapes except
    for lone surrogates (a JS string cut inside an emoji holds one), which it writes as `\\udXXX` and
    which UTF-8 cannot encode."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


@dataclass(frozen=True)
class LoadWarning:
    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}; line skipped"


def read_lines(path: Path) -> tuple[list[dict[str, Any]], list[LoadWarning]]:
    """Every usable line of a session file, with a warning for each line that is not."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise SessionError(f"{path}: no such session file") from exc
    except OSError as exc:
        raise SessionError(f"{path}: cannot read: {exc.strerror}") from exc
    objs: list[dict[str, Any]] = []
    warnings: list[LoadWarning] = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            warnings.append(LoadWarning(str(path), number, "not valid UTF-8"))
            continue
        except json.JSONDecodeError as exc:
            warnings.append(LoadWarning(str(path), number, f"not valid JSON ({exc.msg})"))
            continue
        except RecursionError:  # json's decoder recurses per nesting level
            warnings.append(LoadWarning(str(path), number, "JSON nested too deeply to read"))
            continue
        reason = check_line(obj)
        if reason is not None:
            warnings.append(LoadWarning(str(path), number, reason))
            continue
        objs.append(obj)
    return objs, warnings


def new_session_path(directory: Path, session_id: str, iso: str) -> Path:
    stamp = iso.replace(":", "-").replace(".", "-")
    return directory / f"{stamp}_{session_id}.jsonl"


class Session:
    """One session: its header, its entries in file order, the tree over them and the file behind them."""

    def __init__(self, header: dict[str, Any], entries: list[dict[str, Any]], path: Path | None) -> None:
        self.header = header
        self.entries = entries
        self.path = path
        self.warnings: list[LoadWarning] = []
        self.source_version = CURRENT_VERSION
        self.by_id: dict[str, dict[str, Any]] = {}
        for entry in entries:
            entry_id = entry.get("id")
            if isinstance(entry_id, str):
                self.by_id.setdefault(entry_id, entry)
        self.leaf_id: str | None = entries[-1].get("id") if entries else None
        self._on_disk = path is not None and path.exists()
        self._needs_rewrite = False
        # the current branch and its context, kept up to date by `append` so that a session growing one
        # entry per step does not walk its whole tree again for every model request; keyed by the leaf
        # and the entry count they were built for, so any other change rebuilds them
        self._cached_for: tuple[str | None, int] | None = None
        self._branch_cache: list[dict[str, Any]] = []
        self._context_cache: SessionContext | None = None

    # ----- construction -------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Session:
        """Load any Pi session file (version 1, 2 or 3); older versions are migrated in memory only."""
        file = Path(path)
        objs, warnings = read_lines(file)
        if not objs or objs[0].get("type") != "session":
            raise SessionError(f"{file}: not a session file (the first line is not a session header)")
        header, rest = objs[0], objs[1:]
        extra_headers = [i for i, o in enumerate(rest) if o.get("type") == "session"]
        for i in reversed(extra_headers):
            del rest[i]
        version = migrate([header, *rest])
        session = cls(header, rest, file)
        session.warnings = warnings
        session.source_version = version
        session._needs_rewrite = version < CURRENT_VERSION
        return session

    @classmethod
    def create(cls, cwd: str | os.PathLike[str], directory: Path | None = None) -> Session:
        """A new, empty session for `cwd`; its file appears with the first assistant message, as in Pi."""
        session_id = str(uuid.uuid4())
        iso = now_iso()
        header = {"type": "session", "version": CURRENT_VERSION, "id": session_id, "timestamp": iso,
                  "cwd": str(cwd)}
        folder = directory if directory is not None else sessions_dir_for(cwd)
        return cls(header, [], new_session_path(folder, session_id, iso))

    @classmethod
    def in_memory(cls, cwd: str | os.PathLike[str] = ".") -> Session:
        session = cls.create(cwd)
        session.path = None
        return session

    # ----- reading ------------------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return str(self.header.get("id", ""))

    @property
    def cwd(self) -> str:
        return str(self.header.get("cwd", ""))

    @property
    def name(self) -> str | None:
        """The latest `session_info` name on file, like Pi's `/name`."""
        for entry in reversed(self.entries):
            if entry.get("type") == "session_info":
                name = entry.get("name")
                return name.strip() if isinstance(name, str) and name.strip() else None
        return None

    def get(self, entry_id: str) -> dict[str, Any] | None:
        return self.by_id.get(entry_id)

    def children(self, entry_id: str | None) -> list[dict[str, Any]]:
        return [e for e in self.entries if e.get("parentId") == entry_id]

    def branch_entries(self, leaf_id: str | None = None) -> list[dict[str, Any]]:
        """Root-to-leaf path of `leaf_id` (default: the current leaf); a parent cycle ends the walk."""
        if leaf_id is None or leaf_id == self.leaf_id:
            return list(self._current_branch())
        return self._walk(leaf_id)

    def _current_branch(self) -> list[dict[str, Any]]:
        if self._cached_for != (self.leaf_id, len(self.entries)):
            self._branch_cache = self._walk(self.leaf_id)
            self._context_cache = None
            self._cached_for = (self.leaf_id, len(self.entries))
        return self._branch_cache

    def _walk(self, target: str | None) -> list[dict[str, Any]]:
        if target is None:
            return []
        path: list[dict[str, Any]] = []
        seen: set[str] = set()
        current = self.by_id.get(target)
        while current is not None:
            cid = current.get("id")
            if cid in seen:
                break
            seen.add(cid)
            path.append(current)
            parent = current.get("parentId")
            current = self.by_id.get(parent) if isinstance(parent, str) else None
        path.reverse()
        return path

    def build_context(self) -> SessionContext:
        """The current branch's context; a fresh object each time (callers append to its messages)."""
        context = self._current_context()
        return SessionContext(list(context.messages), context.thinking_level, context.model)

    def messages(self) -> list[AgentMessage]:
        return list(self._current_context().messages)

    def _current_context(self) -> SessionContext:
        branch = self._current_branch()
        if self._context_cache is None:
            self._context_cache = build_context(branch)
        return self._context_cache

    def _extend_caches(self, entry: dict[str, Any], before: tuple[str | None, int]) -> None:
        """Grow the cached branch and context by an entry just appended at their leaf."""
        if self._cached_for != before:
            return
        self._branch_cache.append(entry)
        self._cached_for = (self.leaf_id, len(self.entries))
        if self._context_cache is not None and not extend_context(self._context_cache, entry):
            self._context_cache = None

    # ----- moving in the tree -------------------------------------------------------------------

    def branch(self, entry_id: str) -> None:
        """Move the leaf to `entry_id`; the next append starts a new branch there."""
        if entry_id not in self.by_id:
            raise SessionError(f"no entry {entry_id!r} in this session")
        self.leaf_id = entry_id

    def reset_leaf(self) -> None:
        self.leaf_id = None

    # ----- appending ----------------------------------------------------------------------------

    def _new_id(self) -> str:
        for _ in range(100):
            candidate = uuid.uuid4().hex[:8]
            if candidate not in self.by_id:
                return candidate
        return uuid.uuid4().hex

    def append(self, kind: str, fields: dict[str, Any], timestamp: str | None = None) -> str:
        """Append an entry of `kind` as a child of the leaf, move the leaf to it, persist it.

        `timestamp` keeps a recorded entry's time when a session is re-enacted (replay)."""
        entry = {
            "type": kind,
            "id": self._new_id(),
            "parentId": self.leaf_id,
            "timestamp": timestamp or now_iso(),
            **fields,
        }
        before = (self.leaf_id, len(self.entries))
        self.entries.append(entry)
        self.by_id[entry["id"]] = entry
        self.leaf_id = entry["id"]
        self._extend_caches(entry, before)
        self._persist(entry)
        return entry["id"]

    def append_message(self, message: AgentMessage) -> str:
        role = message.get("role")
        if role not in _PERSIST_ROLES:
            raise SessionError(f"a {role!r} message is not stored as a message entry")
        if role == "custom":
            return self.append_custom_message(
                message["customType"], message["content"], message.get("display", False),  # type: ignore[typeddict-item]
                message.get("details"),
            )
        return self.append("message", {"message": message})

    def append_custom(self, custom_type: str, data: Any = None) -> str:
        fields: dict[str, Any] = {"customType": custom_type}
        if data is not None:
            fields["data"] = data
        return self.append("custom", fields)

    def append_custom_message(self, custom_type: str, content: Any, display: bool, details: Any = None) -> str:
        fields: dict[str, Any] = {"customType": custom_type, "content": content, "display": display}
        if details is not None:
            fields["details"] = details
        return self.append("custom_message", fields)

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self.append("model_change", {"provider": provider, "modelId": model_id})

    def append_thinking_level_change(self, level: str) -> str:
        return self.append("thinking_level_change", {"thinkingLevel": level})

    def append_session_info(self, name: str) -> str:
        return self.append("session_info", {"name": name})

    def append_label(self, target_id: str, label: str | None) -> str:
        fields: dict[str, Any] = {"targetId": target_id}
        if label is not None:
            fields["label"] = label
        return self.append("label", fields)

    def append_compaction(self, summary: str, first_kept_id: str, tokens_before: int,
                          details: Any = None) -> str:
        fields: dict[str, Any] = {"summary": summary, "firstKeptEntryId": first_kept_id,
                                  "tokensBefore": tokens_before}
        if details is not None:
            fields["details"] = details
        return self.append("compaction", fields)

    def branch_with_summary(self, entry_id: str | None, summary: str, details: Any = None) -> str:
        """Move to `entry_id` and record what the abandoned branch did, as Pi's `/tree` does."""
        if entry_id is not None and entry_id not in self.by_id:
            raise SessionError(f"no entry {entry_id!r} in this session")
        self.leaf_id = entry_id
        fields: dict[str, Any] = {"fromId": entry_id or "root", "summary": summary}
        if details is not None:
            fields["details"] = details
        return self.append("branch_summary", fields)

    # ----- persistence --------------------------------------------------------------------------

    @property
    def is_persisted(self) -> bool:
        return self._on_disk

    def _has_assistant(self) -> bool:
        return any(e.get("type") == "message" and e["message"].get("role") == "assistant"
                   for e in self.entries)

    def _persist(self, entry: dict[str, Any]) -> None:
        if self.path is None:
            return
        if not self._on_disk:
            # Like Pi: a session that never got a reply leaves no file behind.
            if not self._has_assistant():
                return
            self._write_whole()
            return
        if self._needs_rewrite:
            self._write_whole(backup=True)
            return
        self._append_lines([entry])

    def flush(self) -> None:
        """Write a session that is still buffered (no reply yet), e.g. before handing its path out."""
        if self.path is not None and not self._on_disk:
            self._write_whole()

    def _write_whole(self, backup: bool = False) -> None:
        """Write header and all entries to a temp file and rename it over the session atomically."""
        assert self.path is not None
        ensure_private_dir(self.path.parent)
        if backup and self.path.exists():
            bak = self.path.with_name(f"{self.path.name}.v{self.source_version}.bak")
            if not bak.exists():
                shutil.copy2(self.path, bak)
                os.chmod(bak, 0o600)
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(dump_line(self.header))
            for entry in self.entries:
                out.write(dump_line(entry))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.path)
        self._on_disk = True
        self._needs_rewrite = False

    def _append_lines(self, entries: Iterable[dict[str, Any]]) -> None:
        assert self.path is not None
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            size = os.fstat(fd).st_size
            data = "".join(dump_line(e) for e in entries).encode("utf-8")
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # a torn last line must not swallow ours
            os.write(fd, data)
        finally:
            os.close(fd)

    def save_as(self, path: str | os.PathLike[str]) -> None:
        """Write the whole session, as version 3, to a new file (used by replay and conversions)."""
        self.header["version"] = CURRENT_VERSION
        self.path = Path(path)
        self._on_disk = False
        self._write_whole()
