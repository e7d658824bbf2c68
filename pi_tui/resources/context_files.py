"""The project's instructions for agents: AGENTS.md / CLAUDE.md files, found as Pi finds them.

In each folder the first of AGENTS.md, CLAUDE.md counts. The global ones come first (pi-tui's home,
then Pi's `~/.pi/agent`), then every folder from `/` down to the cwd, so the nearest file
is read last and its word is the freshest in the model's mind. A file reached twice counts once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pi_tui.resources.places import user_dirs

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")


@dataclass(frozen=True)
class ContextFile:
    path: Path
    content: str


def read_text_file(path: Path) -> ContextFile | None:
    """The file as text (bad bytes replaced), or None when it is not there or cannot be read."""
    try:
        return ContextFile(path, path.read_text(encoding="utf-8", errors="replace")) if path.is_file() else None
    except OSError:
        return None


def _first_context_file(folder: Path) -> ContextFile | None:
    return next((found for name in CONTEXT_FILE_NAMES if (found := read_text_file(folder / name))), None)


def find_context_files(cwd: Path) -> list[ContextFile]:
    found: list[ContextFile] = []
    seen: set[Path] = set()
    here = cwd.resolve()
    for folder in [*user_dirs(), *reversed(here.parents), here]:
        item = _first_context_file(folder)
        if item is not None and item.path.resolve() not in seen:
            seen.add(item.path.resolve())
            found.append(item)
    return found
