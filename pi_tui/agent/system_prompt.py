"""The system prompt: who the agent is (or the user's SYSTEM.md), its tools, APPEND_SYSTEM.md, the
project's context files, the skills, date and folder.

It is the first thing in every request and the start of the provider's cached prefix, so it must
be identical from one request to the next within a session: everything in it is read once when the
runtime is built (and again on /reload), and the date is a date, not a time.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from pi_tui.resources import Resources
from pi_tui.resources.context_files import ContextFile
from pi_tui.resources.skills import skills_prompt

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


def _project_context(files: tuple[ContextFile, ...]) -> str:
    if not files:
        return ""
    listed = "".join(f"## {item.path}\n\n{item.content}\n\n" for item in files)
    return f"\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n{listed}"


def build_system_prompt(cwd: Path, tools: list[tuple[str, str]], resources: Resources | None = None,
                        today: date | None = None) -> str:
    """`tools` is (name, one-line description) for each active tool, in a stable order. The parts
    after the introduction are laid out as Pi lays them out: APPEND_SYSTEM.md, the project context,
    the skills (only when the read tool is there to load them), then date and folder."""
    resources = resources or Resources()
    custom = resources.system.content if resources.system else ""
    if custom:
        prompt = custom
    else:
        lines = "\n".join(f"- {name}: {description.splitlines()[0] if description else ''}"
                          for name, description in tools)
        prompt = _INTRO.format(tools=lines)
    if resources.append_system and resources.append_system.content:
        prompt += f"\n\n{resources.append_system.content}"
    prompt += _project_context(resources.context_files)
    if any(name == "read" for name, _ in tools):
        prompt += skills_prompt(resources.skills)
    return prompt + (f"\nCurrent date: {(today or date.today()).isoformat()}"
                     f"\nCurrent working directory: {cwd.resolve()}")
