"""Pi-compatible session files: load, migrate, walk the tree, append.

A session is a JSONL file: a header line, then one entry per line, each pointing at its parent, so
the file holds a tree and the current position in it (the leaf) is the last entry. We only ever
append, one flushed line per entry, so a crash loses at most the line being written, and a torn line
left by an earlier crash is skipped on load with a warning instead of making the session unreadable.
"""

from __future__ import annotations

import errno
import itertools
import os
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from condense import session_file
from condense.entry_log import dump_line
from condense.messages import AgentMessage
from condense.session_file import Damage, LoadWarning, Values, build_tree, parent_of, walk
from condense.timefmt import now_iso
from pi_tui.errors import UserError
from pi_tui.paths import ensure_private_dir, sessions_dir_for
from pi_tui.session import atomic
from pi_tui.session.context import SessionContext, build_context, extend_context
from pi_tui.session.migrate import CURRENT_VERSION, migrate
from pi_tui.session.schema import prepare_entry

_PERSIST_ROLES = {"user", "assistant", "toolResult", "custom", "bashExecution"}


class SessionError(UserError):
    """A session file that cannot be used at all (missing, unreadable, no header)."""


class SessionWriteError(SessionError):
    """The session could not be written (a full disk, a read-only file): the conversation goes on in
    memory and the next write retries."""


WriteErrorHandler = Callable[[SessionWriteError | None], None]  # None: written again after a failure
_WRITE_ATTEMPTS = 10


def read_lines(path: Path) -> tuple[Values, list[LoadWarning], Damage]:
    """The file's lines as condense reads any session (condense.session_file); a file that cannot be
    read at all is a SessionError."""
    try:
        return session_file.read_lines(path)
    except FileNotFoundError as exc:
        raise SessionError(f"{path}: no such session file") from exc
    except OSError as exc:
        raise SessionError(f"{path}: cannot read: {exc.strerror}") from exc


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
        # Skipped lines that had an id: id -> their parent. In Pi such an entry stays in the tree and
        # contributes nothing, so its children hang from its parent here instead of being cut off.
        self.skipped_parents: dict[str, str | None] = {}
        self.source_version = CURRENT_VERSION
        self.by_id: dict[str, dict[str, Any]] = {}
        for entry in entries:
            entry_id = entry.get("id")
            if isinstance(entry_id, str):
                self.by_id[entry_id] = entry  # a repeated id means the later entry, as in Pi
        self.leaf_id: str | None = entries[-1].get("id") if entries else None
        self._on_disk = path is not None and path.exists()
        self._needs_rewrite = False
        self._unsaved: list[dict[str, Any]] = []  # appended in memory, not in the file yet
        self._seen = atomic.path_signature(path) if path is not None else None  # the file as we last saw it
        self.write_error: SessionWriteError | None = None
        self.on_write_error: WriteErrorHandler | None = None  # unset: a failed write raises
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
        values, warnings, damage = read_lines(file)
        objs = [v for _, v in values if isinstance(v, dict)]
        header = objs[0] if objs else None
        if header is None or header.get("type") != "session" or not isinstance(header.get("id"), str):
            raise SessionError(f"{file}: not a session file (the first line is not a session header)")
        version = migrate(objs)  # before any check: v1 compaction indexes count every line Pi parsed
        tree = build_tree(str(file), values, warnings, damage, header, prepare_entry)
        session = cls(header, tree.entries, file)
        session.skipped_parents = tree.skipped
        session.leaf_id = tree.leaf_id
        session.warnings = tree.warnings
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

    def model_ref(self) -> str | None:
        """The model the branch last talked to, as pi-tui names it (`demo`, or `provider/id`); None when
        it records none."""
        model = self.build_context().model
        if model is None or not model[0] or not model[1]:
            return None
        return "demo" if model[0] == "demo" else f"{model[0]}/{model[1]}"

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

    def parent_id(self, entry: dict[str, Any]) -> str | None:
        """The entry's parent in the tree, looking through lines skipped on load."""
        return parent_of(entry, self.by_id, self.skipped_parents)

    def children(self, entry_id: str | None) -> list[dict[str, Any]]:
        return [e for e in self.entries if self.parent_id(e) == entry_id]

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
        return walk(self.by_id, target, self.skipped_parents)

    def build_context(self) -> SessionContext:
        """The current branch's context; a fresh object each time (callers append to its messages)."""
        context = self._current_context()
        return SessionContext(list(context.messages), context.thinking_level, context.model)

    def messages(self) -> list[AgentMessage]:
        return list(self._current_context().messages)

    def messages_view(self) -> list[AgentMessage]:
        """`messages` without the copy, for a reader that keeps nothing of the list itself: it is the
        session's own, grown in place as entries are appended (a replay reads it at every request)."""
        return self._current_context().messages

    def _current_context(self) -> SessionContext:
        branch = self._current_branch()
        if self._context_cache is None:
            self._context_cache = build_context(branch, self.skipped_parents)
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
        entry_id: str = entry["id"]
        before = (self.leaf_id, len(self.entries))
        self.entries.append(entry)
        self.by_id[entry_id] = entry
        self.leaf_id = entry_id
        self._extend_caches(entry, before)
        self._persist(entry)
        return entry_id

    def append_message(self, message: AgentMessage) -> str:
        role = message.get("role")
        if role not in _PERSIST_ROLES:
            raise SessionError(f"a {role!r} message is not stored as a message entry")
        if message["role"] == "custom":
            return self.append_custom_message(
                message["customType"], message["content"], message.get("display", False), message.get("details"),
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
        self._unsaved.append(entry)
        # Like Pi: a session that never got a reply leaves no file behind.
        if self._on_disk or self._has_assistant():
            self._save()

    def flush(self) -> None:
        """Write what is still buffered (no reply yet, or a failed write), e.g. before handing the path out."""
        if self.path is not None and (not self._on_disk or self._unsaved):
            self._save()

    def _save(self) -> None:
        """Write every entry the file lacks. A failure keeps them in memory for the next write to retry
        and is reported once, when it starts, not at every entry that follows."""
        try:
            self._write_unsaved()
        except (OSError, SessionError) as exc:
            self._failed(exc)
            return
        if self.write_error is not None:
            self.write_error = None
            if self.on_write_error is not None:
                self.on_write_error(None)

    def _write_unsaved(self) -> None:
        assert self.path is not None
        target = Path(os.path.realpath(self.path))  # a symlinked session: write its target, keep the link
        for _ in range(_WRITE_ATTEMPTS):
            with atomic.locked(target) as fd:
                if fd is None:
                    ensure_private_dir(target.parent)
                    if self._write_whole(target, None):
                        return
                    continue  # another process created the file meanwhile: join it, under the lock
                if self._needs_rewrite or atomic.signature(fd) != self._seen:
                    self._catch_up(target, fd)
                if self._needs_rewrite:
                    self._write_whole(target, fd)
                else:
                    self._append_lines(fd, self._unsaved)
                    self._saved(atomic.signature(fd))
                return
        raise OSError(errno.EBUSY, "the file kept being replaced while we tried to write it")

    def _catch_up(self, target: Path, fd: int) -> None:
        """Take in what other processes wrote since we last looked, so that our unsaved entries continue
        the file as it is now: their entries join ours (ours stay on our branch, under our leaf), and
        an entry whose parent the file no longer has is never written."""
        fresh = Session.open(target)
        self._unsaved = [e for e in self._unsaved if fresh.by_id.get(e["id"]) != e]  # already there: saved
        pending = {e["id"] for e in self._unsaved}
        for entry in self._unsaved:
            parent = entry.get("parentId")
            if parent is not None and parent not in fresh.by_id and parent not in pending:
                raise SessionError(f"the file was replaced by another program (entry {parent}, which this"
                                   " session continues from, is gone)")
        theirs = [e for e in fresh.entries if e["id"] not in self.by_id]
        at = len(self.entries) - len(self._unsaved)
        self.entries[at:at] = theirs
        for entry in theirs:
            self.by_id[entry["id"]] = entry
        self.skipped_parents.update(fresh.skipped_parents)
        self.source_version = fresh.source_version
        self._needs_rewrite = fresh.source_version < CURRENT_VERSION
        self._seen = atomic.signature(fd)

    def _lines(self) -> Iterator[bytes]:
        yield dump_line(self.header).encode("utf-8")
        for entry in self.entries:
            yield dump_line(entry).encode("utf-8")

    def _write_whole(self, target: Path, fd: int | None) -> bool:
        """Write header and every entry to a temp file, then move it into place: over the locked file
        `fd` (a migration to version 3, after a backup of the original), or, when there is no file
        yet, only if none appeared meanwhile (False then)."""
        like = None if fd is None else os.fstat(fd)  # a rewritten file keeps its mode; a new one is private
        if fd is not None:
            self._backup(target, fd)
        temp = atomic.write_temp(target.parent, target.name, self._lines(), like)
        if fd is None:
            if not atomic.create(temp, target):
                return False
        else:
            atomic.replace(temp, target)
        self._needs_rewrite = False
        self._saved(atomic.path_signature(target))
        return True

    def _backup(self, target: Path, fd: int) -> None:
        """Keep the original beside a file about to be migrated: an existing backup is reused only when
        it holds the same bytes; one that differs is never overwritten (the next free name is used)."""
        original = atomic.read_all(fd)
        for number in itertools.count(1):
            suffix = f".v{self.source_version}.bak" if number == 1 else f".v{self.source_version}.{number}.bak"
            bak = target.with_name(target.name + suffix)
            if not os.path.lexists(bak):
                if atomic.create(atomic.write_temp(target.parent, bak.name, [original], os.fstat(fd)), bak):
                    return
            elif bak.stat().st_size == len(original) and bak.read_bytes() == original:
                return

    def _append_lines(self, fd: int, entries: Iterable[dict[str, Any]]) -> None:
        atomic.append_lines(fd, "".join(dump_line(e) for e in entries).encode("utf-8"))

    def _saved(self, seen: atomic.Signature | None) -> None:
        self._unsaved = []
        self._on_disk = True
        self._seen = seen

    def _failed(self, exc: OSError | SessionError) -> None:
        assert self.path is not None
        first = self.write_error is None
        if not self._on_disk:
            lost = "nothing of this session is saved"
        else:
            lost = f"{_describe(self._unsaved[0])} and what follows are not saved"
        reason, remedy = _explain(exc)
        self.write_error = SessionWriteError(f"session not saved: {self.path}: {reason}; {lost} ({remedy})")
        if not first:
            return
        if self.on_write_error is None:
            raise self.write_error from exc
        self.on_write_error(self.write_error)

    def fork_into(self, directory: Path, cwd: str | os.PathLike[str]) -> Path | None:
        """Continue this session in a new file under `directory`, as Pi's fork does: a new id, the same
        entries, `parentSession` naming the original, which is never written again. The copy appears
        with the next write; returns the original's path."""
        original = self.path
        session_id, iso = str(uuid.uuid4()), now_iso()
        self.header = {"type": "session", "version": CURRENT_VERSION, "id": session_id, "timestamp": iso,
                       "cwd": str(cwd)}
        if original is not None:
            self.header["parentSession"] = os.path.abspath(original)
        self.path = new_session_path(directory, session_id, iso)
        self._on_disk = False
        self._needs_rewrite = False
        self._seen = None
        self._unsaved = list(self.entries)
        return original

    def branched(self, leaf_id: str | None, directory: Path) -> Session:
        """A new session file in `directory` holding the path from the root to `leaf_id` (nothing for
        None), as Pi's `/fork` makes it: a new id, `parentSession` naming this file, the labels of the
        path's entries set again at its end. Written at once if it holds a reply, else with the first."""
        path = [dict(entry) for entry in self.branch_entries(leaf_id) if entry.get("type") != "label"] \
            if leaf_id is not None else []
        fork = Session.create(self.cwd, directory)
        if self.path is not None:
            fork.header["parentSession"] = os.path.abspath(self.path)
        fork.entries = path
        fork.by_id = {entry["id"]: entry for entry in path}
        fork.leaf_id = path[-1]["id"] if path else None
        fork._unsaved = list(path)
        for target, label in self._labels().items():
            if target in fork.by_id:
                fork.append_label(target, label)
        if fork._has_assistant():
            fork.flush()
        return fork

    def _labels(self) -> dict[str, str]:
        """Each entry's label now: the last `label` entry naming it, unless that one cleared it."""
        labels: dict[str, str] = {}
        for entry in self.entries:
            if entry.get("type") == "label" and isinstance(entry.get("targetId"), str):
                if isinstance(entry.get("label"), str):
                    labels[entry["targetId"]] = entry["label"]
                else:
                    labels.pop(entry["targetId"], None)
        return labels

    def save_as(self, path: str | os.PathLike[str]) -> None:
        """Write the whole session, as version 3, to a new file (used by replay and conversions)."""
        self.header["version"] = CURRENT_VERSION
        self.path = Path(path)
        self._on_disk = False
        self._needs_rewrite = False
        self._seen = None
        self._unsaved = list(self.entries)
        self._save()


def _describe(entry: dict[str, Any]) -> str:
    """An entry as a person would name it in "X and what follows are not saved"."""
    if entry.get("type") == "message":
        message = entry["message"]
        role = message.get("role")
        if role == "user":
            return "your message"
        if role == "assistant":
            return "the model's reply"
        if role == "toolResult":
            return f"the result of {message.get('toolName', 'a tool')}"
        return f"a {role} message"
    if entry.get("type") in ("custom", "custom_message"):
        return f"a {entry.get('customType')} record"
    return f"a {entry.get('type')} entry"


def write_failure(exc: OSError) -> str:
    """Why a write failed, in a few words ("no space left on the disk")."""
    return _explain(exc)[0]


def _explain(exc: OSError | SessionError) -> tuple[str, str]:
    """What went wrong, and what the user can do about it."""
    if not isinstance(exc, OSError):
        return str(exc), "continue in another file with --session FILE"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "no space left on the disk", "free some space: the next message retries"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (exc.strerror or "permission denied").lower(), \
            "make it writable, or continue in another file with --session FILE"
    return (exc.strerror or str(exc)).lower(), "the next message retries"
