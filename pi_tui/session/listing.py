"""Finding sessions: the newest of a folder, a listing, and what a user typed as SESSION on the CLI.

A listing reaches pi-tui's sessions and Pi's own (`~/.pi/agent/sessions`, same folder names): a Pi user
who switches finds their sessions in `/resume` and `pi-tui sessions`, marked as Pi's. `--continue` stays
on pi-tui's: the newest session of a folder may be one Pi still has open."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from condense.messages import content_text
from pi_tui.file_kind import irregular_kind
from pi_tui.paths import encode_cwd, sessions_dir_for, sessions_root
from pi_tui.resources.places import pi_agent_dir
from pi_tui.session.store import SessionError


@dataclass(frozen=True)
class SessionInfo:
    path: Path
    modified: float
    entries: int
    first_message: str
    name: str | None
    cwd: str  # the header's working folder: where the session ran, shown when all folders are listed
    by_pi: bool  # in Pi's own sessions folder, not pi-tui's


def pi_sessions_root() -> Path:
    """Pi's sessions folder, kept under its agent folder (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`)."""
    return pi_agent_dir() / "sessions"


def _header(path: Path) -> dict[str, object] | None:
    """The file's session header, None when its first line is none (a stray .jsonl beside the sessions)."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(65536)
        header = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return None
    if isinstance(header, dict) and header.get("type") == "session" and isinstance(header.get("id"), str):
        return header
    return None


def _is_session_file(path: Path) -> bool:
    return _header(path) is not None


def session_files(directory: Path) -> list[Path]:
    """Valid session files of a folder, newest (by modification time) first."""
    try:
        candidates = [p for p in directory.iterdir() if p.suffix == ".jsonl" and p.is_file()]
    except OSError:
        return []
    valid = [p for p in candidates if _is_session_file(p)]
    return _newest_first(valid)


def _newest_first(paths: list[Path]) -> list[Path]:
    return sorted(paths, key=lambda p: p.stat().st_mtime, reverse=True)


def _folders(root: Path) -> list[Path]:
    try:
        return [folder for folder in root.iterdir() if folder.is_dir()]
    except OSError:
        return []


def listed_sessions(cwd: str | os.PathLike[str], everywhere: bool = False) -> list[Path]:
    """pi-tui's and Pi's sessions of `cwd` (`everywhere`: of every folder, a deleted one's too), newest
    first: what `/resume` and `pi-tui sessions` offer."""
    roots = dict.fromkeys((sessions_root(), pi_sessions_root()))  # one folder when PI_TUI_HOME is Pi's
    folders = [f for root in roots for f in _folders(root)] if everywhere else [r / encode_cwd(cwd) for r in roots]
    return _newest_first([path for folder in folders for path in session_files(folder)])


def newest_session(cwd: str | os.PathLike[str]) -> Path | None:
    files = session_files(sessions_dir_for(cwd))
    return files[0] if files else None


def describe(path: Path) -> SessionInfo:
    """A cheap summary for listings: one pass over the lines, no validation, no migration."""
    header = _header(path) or {}
    cwd = header.get("cwd")
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
    by_pi = path.parent.parent == pi_sessions_root()
    return SessionInfo(path, path.stat().st_mtime, entries, first, name, cwd if isinstance(cwd, str) else "", by_pi)


def resolve_session_arg(arg: str, cwd: str | os.PathLike[str]) -> Path:
    """A path, or a unique part of a session file name in the cwd's session folder (e.g. an id prefix)."""
    path = Path(arg).expanduser()
    kind = irregular_kind(path)
    if kind is not None:  # read line by line, /dev/zero filled memory and a named pipe waited for good
        raise SessionError(f"{arg}: is {kind}, not a session file; give the session's .jsonl file")
    if path.exists():
        return path
    matches = [p for p in listed_sessions(cwd) if arg in p.name]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SessionError(f"{arg}: no such session file, and no session of this folder matches it"
                           " (see `pi-tui sessions`)")
    raise SessionError(f"{arg}: matches {len(matches)} sessions of this folder; give more of the name")
