"""Ctrl+G: the message being written, in the user's own editor (`$VISUAL`, else `$EDITOR`), as Pi does.

The app hands the terminal over while the editor runs; the text goes to a temporary file, and what the
file holds when the editor exits with status 0 comes back (its final newline dropped: editors add one).
Any other exit keeps the text as it was. The command is split as a shell would (`code --wait`).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from contextlib import suppress
from pathlib import Path

NO_EDITOR = "Ctrl+G: no editor is set; set $VISUAL or $EDITOR (e.g. export EDITOR=vim)"


def editor_command() -> list[str] | None:
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    return shlex.split(command) if command and command.strip() else None


def edit_text(command: list[str], text: str) -> str | None:
    """Run `command` on a file holding `text`; the file's text after a clean exit, else None. Raises
    OSError when the command cannot be started."""
    handle, name = tempfile.mkstemp(prefix="pi-tui-message-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        if subprocess.run([*command, str(path)], check=False).returncode != 0:
            return None
        return path.read_text(encoding="utf-8").removesuffix("\n")
    finally:
        with suppress(OSError):
            path.unlink()
