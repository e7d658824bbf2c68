"""The ignore files Pi honours in a skills or prompts folder: `.gitignore`, `.ignore`, `.fdignore`."""

from __future__ import annotations

from pathlib import Path

from pi_tui.tools.walk import GitIgnore

IGNORE_FILES = (".gitignore", ".ignore", ".fdignore")


def ignore_rules(folder: Path, rel: str = "") -> list[GitIgnore]:
    """The rules `folder`'s ignore files hold; `rel` is the folder's path below the one searched."""
    return [rule for name in IGNORE_FILES if (rule := GitIgnore.load(folder / name, rel)) is not None]
