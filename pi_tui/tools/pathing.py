"""Turning the path a model wrote into the file it meant.

Models copy paths from prompts and UIs: `@src/app.py` (the editor's file mention), `~/notes.md`,
names pasted with no-break or narrow spaces. Relative paths are relative to the session's working
directory, never to the process's, so tools behave the same whatever directory pi-tui started in.
There is deliberately no sandbox: like Pi, the tools may read and write outside the working directory
(`../`, absolute paths); the user sees every call.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pi_tui.file_kind import irregular_kind

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")


def resolve_path(raw: str, cwd: Path) -> Path:
    """The absolute, lexically normalised path for `raw` (symlinks are left alone)."""
    text = _UNICODE_SPACES.sub(" ", raw)
    if text.startswith("@"):
        text = text[1:]
    if text == "~" or text.startswith("~/"):
        text = str(Path.home()) + text[1:]
    return Path(os.path.normpath(Path(cwd) / text))


def os_error_text(error: OSError, path: Path | str) -> str:
    """One line for a filesystem failure, naming the path (the exception's own text may not)."""
    reason = error.strerror or error.__class__.__name__
    return f"{reason}: {path}"


def special_file_text(path: Path, shown: str) -> str | None:
    """One line refusing a path that is no regular file, or None for a file the tools may read whole.

    Reading `/dev/zero` or a named pipe whole never ends (memory fills, or it waits for a writer): the
    model is told what the path is and how to take a bounded piece of it instead."""
    kind = irregular_kind(path)
    if kind is None or kind == "a folder":
        return None  # a folder: the read itself names it (EISDIR), as Pi says it
    return f"{shown} is {kind}, not a regular file: read a bounded part with bash, e.g. `head -c 4096 {shown}`"
