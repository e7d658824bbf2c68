"""The system prompt: who the agent is, its tools, the project's context files, date and folder.

It is the first thing in every request and the start of the provider's cached prefix, so it must
be identical from one request to the next within a session: everything in it is read once when the
session starts, and the date is a date, not a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pi_tui.paths import home_dir

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")

_INTRO = """You are an expert coding assistant working in the user's terminal, inside their project.
You help by reading files, running commands, editing code and writing new files.

Available tools:
{tools}

Guidelines:
- Read a file before you edit it, and make edits with exact, unique oldText.
- Prefer small, verifiable steps: run the tests or the program after a change.
- Use bash for searching and inspecting (ls, rg, find) when no dedicated tool is active.
- When a tool output was pruned from the conversation, its stub names a ref (like t12):
  call context_tree_query with that ref to read the original output again.
- Be concise in replies; show file paths clearly when you discuss them."""


@dataclass(frozen=True)
class ContextFile:
    path: Path
    content: str


def _first_context_file(folder: Path) -> ContextFile | None:
    for name in CONTEXT_FILE_NAMES:
        candidate = folder / name
        try:
            if candidate.is_file():
                return ContextFile(candidate, candidate.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return None


def find_context_files(cwd: Path) -> list[ContextFile]:
    """Home folder's file first, then every folder from `/` down to `cwd` (first of AGENTS.md, CLAUDE.md)."""
    found: list[ContextFile] = []
    seen: set[Path] = set()
    folders = [home_dir(), *reversed(cwd.resolve().parents), cwd.resolve()]
    for folder in folders:
        item = _first_context_file(folder)
        if item is not None and item.path.resolve() not in seen:
            seen.add(item.path.resolve())
            found.append(item)
    return found


def build_system_prompt(cwd: Path, tools: list[tuple[str, str]], today: date | None = None) -> str:
    """`tools` is (name, one-line description) for each active tool, in a stable order."""
    lines = "\n".join(f"- {name}: {description.splitlines()[0] if description else ''}"
                      for name, description in tools)
    parts = [_INTRO.format(tools=lines)]
    context_files = find_context_files(cwd)
    if context_files:
        parts.append("# Project Context\n\nProject-specific instructions and guidelines:")
        parts.extend(f"## {item.path}\n\n{item.content.strip()}" for item in context_files)
    parts.append(f"Current date: {(today or date.today()).isoformat()}\n"
                 f"Current working directory: {cwd.resolve()}")
    return "\n\n".join(parts)
