"""What a path names when it is no regular file, so that a command refuses it instead of reading it.

A command reads a session or settings file whole, line by line: `/dev/zero` is one endless line (memory
fills until the machine kills something), a named pipe waits for a writer that may never come, and a
folder or a socket holds no lines at all. The kind is asked before the file is opened, since opening a
named pipe already waits.
"""

from __future__ import annotations

import stat
from pathlib import Path


def irregular_kind(path: Path) -> str | None:
    """"a folder", "a named pipe (FIFO)", "a socket" or "a device" (symbolic links followed); None for a
    regular file, and for a path that cannot be looked at (the reader's own error names that)."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    return "a socket" if stat.S_ISSOCK(mode) else "a device"
