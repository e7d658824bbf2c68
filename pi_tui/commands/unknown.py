"""A `/word` nobody answers to is not sent to the model without a question.

Pi sends it as text, and a Pi user may mean that, so the TUI asks instead of refusing: yes sends the
line as typed, no puts it back in the editor (nothing typed is lost). Only lines that start like a
command are asked about (`agent.slash_words`); the app's own commands never reach this point.
"""

from __future__ import annotations

from pi_tui.agent.slash_words import unknown_command
from pi_tui.commands.context import CommandContext
from pi_tui.errors import printable
from pi_tui.screens.confirm import ConfirmScreen

SHOWN_CHARS = 60


async def may_send(context: CommandContext, text: str) -> bool:
    """Whether `text` may go to the model: no unknown command in it, or the user said yes."""
    word = unknown_command(text, context.runtime.host.command_names())
    if word is None:
        return True
    line = printable(text.strip())
    shown = line if len(line) <= SHOWN_CHARS else line[:SHOWN_CHARS - 1] + "…"
    question = ConfirmScreen(f"Send '{shown}' to the model as text?",
                             f"unknown command /{word}: no command, prompt template or skill has that name"
                             " (Tab lists them, /hotkeys the keys)")
    if await context.ask(question):
        return True
    context.set_editor_text(text)
    return False
