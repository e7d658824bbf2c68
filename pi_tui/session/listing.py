"""Finding sessions: the newest of a folder, a listing, and what a user typed as SESSION on the CLI."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from condense.messages import content_text
from pi_tui.file_kind import irregular_kind
from pi_tui.paths import sessions_dir_for
from pi_tui.session.store import SessionError


@dataclass(frozen=True)
class SessionInfo:
    path: Path
    modified: float
    entries: int
    first_message: str
    name: str | None


def _is_session_file(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            first = handle.readline(65536)
        header = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(header, dict) and header.get("type") == "session" and isinstance(header.get("id"), str)


def session_files(directory: Path) -> list[Path]:
    """Valid session files of a folder, newest (by modification time) first."""
    try:
        candidates = [p for p in directory.iterdir() if p.suffix == ".jsonl" and p.is_file()]
    except OSError:
        return []
    valid = [p for p in candidates if _is_session_file(p)]
    return sorted(valid, key=lambda p: p.stat().st_mtime, reverse=True)


def newest_session(cwd: str | os.PathLike[str]) -> Path | None:
    files = session_files(sessions_dir_for(cwd))
    return files[0] if files else None


def describe(path: Path) -> SessionInfo:
    """A cheap summary for listings: one pass over the lines, no validation, no migration."""
    entries, first, name = 0, "", None
    with path.open("rb") as handle:
        next(handle, None)
        for line in handle:
            if not line.strip():
                continue
            entries += 1
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if not isinstance(obj, dict):
                continue
            if obj.get("type") == "session_info" and isinstance(obj.get("name"), str):
                name = obj["name"]
            message = obj.get("message")
            if not first and isinstance(message, dict) and message.get("role") == "user":
                first = " ".join(content_text(message.get("content") or "").split())
    return SessionInfo(path, path.stat().st_mtime, entries, first, name)


def resolve_session_arg(arg: str, cwd: str | os.PathLike[str]) -> Path:
    """A path, or a unique part of a session file name in the cwd's session folder (e.g. an id prefix)."""
    path = Path(arg).expanduser()
    kind = irregular_kind(path)
    if kind is not None:  # read line by line, /dev/zero filled memory and a named pipe waited for good
        raise SessionError(f"{arg}: is {kind}, not a session file; give the session's .jsonl file")
    if path.exists():
        return path
    matches = [p for p in session_files(sessions_dir_for(cwd)) if arg in p.name]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SessionError(f"{arg}: no such session file, and no session of this folder matches it"
                           " (see `pi-tui sessions`)")
    raise SessionError(f"{arg}: matches {len(matches)} sessions of this folder; give more of the name")
