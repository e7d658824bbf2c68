"""`/changelog`: the newest entries of CHANGELOG.md, as Pi's `/changelog` shows its own.

An installed pi-tui carries the file inside its package (setup.py puts it there); a source checkout
or an editable install reads the one at the top of the repository.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pi_tui
from pi_tui.commands.context import CommandContext
from pi_tui.commands.registry import Command
from pi_tui.screens.text_view import TextViewScreen

NEWEST = 3  # sections (`## [version]`) shown


def changelog_text() -> str | None:
    """CHANGELOG.md from the package, else from the checkout it runs from; None when neither has it."""
    shipped = resources.files(pi_tui) / "CHANGELOG.md"
    for candidate in (shipped, Path(pi_tui.__file__).resolve().parent.parent / "CHANGELOG.md"):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    return None


def newest_entries(text: str, count: int = NEWEST) -> str:
    """The first `count` sections of a Keep-a-Changelog file (newest first), without its preamble."""
    sections: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("## "):
            if len(sections) == count:
                break
            sections.append([])
        if sections:
            sections[-1].append(line)
    return "\n\n".join("\n".join(lines).strip() for lines in sections)


async def changelog(context: CommandContext, _: str) -> None:
    text = changelog_text()
    if text is None:
        await context.note("/changelog: this installation has no CHANGELOG.md (reinstall pi-tui)", "error")
        return
    context.show(TextViewScreen(f"What's new in pi-tui {pi_tui.__version__} (CHANGELOG.md)", newest_entries(text),
                                markdown=True))


COMMANDS = (Command("changelog", "what's new: the newest entries of the changelog", changelog),)
