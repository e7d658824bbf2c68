"""Where a Pi user's files and pi-tui's own live, searched in one order everywhere.

A Pi user keeps skills, prompt templates, SYSTEM.md and models.json in `~/.pi/agent` (or
`$PI_CODING_AGENT_DIR`, as Pi reads it) and in the project's `.pi`; pi-tui reads those as they are, and
its own beside them (`~/.pi-tui` or `$PI_TUI_HOME`, the project's `.pi-tui`). The project's folders come
first, as in Pi (a project's skill wins over a global one of the same name), and at each level pi-tui's
folder before Pi's: what a user wrote for pi-tui alone is the more specific choice.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_tui.paths import home_dir

PI_AGENT_DIR_VARIABLE = "PI_CODING_AGENT_DIR"
PROJECT_FOLDERS = (".pi-tui", ".pi")


def pi_agent_dir() -> Path:
    """`$PI_CODING_AGENT_DIR` (a leading `~` expanded, as Pi does), else `~/.pi/agent`."""
    override = os.environ.get(PI_AGENT_DIR_VARIABLE)
    return Path(override).expanduser() if override else Path.home() / ".pi" / "agent"


def project_dirs(cwd: Path) -> list[Path]:
    return [cwd / name for name in PROJECT_FOLDERS]


def user_dirs() -> list[Path]:
    return [home_dir(), pi_agent_dir()]


def config_dirs(cwd: Path) -> list[Path]:
    """Every folder that may hold a resource, the one that wins first."""
    return [*project_dirs(cwd), *user_dirs()]


def first_file(cwd: Path, name: str) -> Path | None:
    """The first `name` (SYSTEM.md, APPEND_SYSTEM.md) in `config_dirs` order: one file, never a merge."""
    return next((folder / name for folder in config_dirs(cwd) if (folder / name).is_file()), None)
